"""A private PulseAudio daemon as the sound card of a test: null sinks as speaker and microphone.

``spk`` is where banker plays (default sink); ``micsrc`` is where a test "speaks" (paplay), and
banker records its monitor (default source). Recipe: ``/work/shared/notes/virtual-sound-card.md``.
The daemon runs in a runtime folder of its own, so it never touches another PulseAudio, and it
must start: a missing ``pulseaudio`` fails the test loudly rather than skipping it.

Used by the ``sound_card`` fixture (``tests/speech_live``) and the ``pulse`` fixture
(``tests/robustness/test_audio_faults.py``); imported as ``pulse_card`` (``tests/`` is on the
path: it holds the root ``conftest.py``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

INSTALL = "pulseaudio is not installed: apt-get install pulseaudio pulseaudio-utils libportaudio2"


@dataclass
class PulseDaemon:
    """A running private daemon: ``env`` points PulseAudio clients (and banker) at it."""

    exe: str
    runtime: Path
    env: dict[str, str]

    def kill(self) -> None:
        """Stop the daemon (the sound device "disappears"); the folder stays until ``stop``."""
        subprocess.run([self.exe, "-k"], env=self.env, capture_output=True, timeout=20)

    def restart(self) -> None:
        """Start the daemon again in the same folder (the sound server came back)."""
        _launch(self.exe, self.runtime, self.env)

    def stop(self) -> None:
        """Stop the daemon and remove its runtime folder (safe after ``kill``)."""
        self.kill()
        shutil.rmtree(self.runtime, ignore_errors=True)


def _run(cmd: list[str], env: Mapping[str, str]) -> None:
    subprocess.run(cmd, env=dict(env), check=True, capture_output=True, timeout=20)


def start_pulse(base_env: Mapping[str, str]) -> PulseDaemon:
    """Start a daemon with the ``spk`` and ``micsrc`` null sinks as defaults.

    ``base_env``: the environment to start from (``PULSE_SINK``/``PULSE_SOURCE`` are dropped,
    ``PULSE_RUNTIME_PATH``/``PULSE_SERVER`` set to the private daemon).
    """
    exe = shutil.which("pulseaudio")
    assert exe, INSTALL
    runtime = Path(tempfile.mkdtemp(prefix="banker-pulse-"))
    env = dict(base_env, PULSE_RUNTIME_PATH=str(runtime), PULSE_SERVER=f"unix:{runtime}/native")
    env.pop("PULSE_SINK", None)
    env.pop("PULSE_SOURCE", None)
    daemon = PulseDaemon(exe, runtime, env)
    try:
        _launch(exe, runtime, env)
    except BaseException:
        daemon.stop()
        raise
    return daemon


def _launch(exe: str, runtime: Path, env: Mapping[str, str]) -> None:
    _run([exe, "--daemonize=yes", "--exit-idle-time=-1", "--system=false", "-n",
          "--load=module-null-sink sink_name=spk",
          "--load=module-null-sink sink_name=micsrc",
          "--load=module-native-protocol-unix"], env)
    for _ in range(100):
        if (runtime / "native").exists():
            break
        time.sleep(0.05)
    _run(["pactl", "set-default-sink", "spk"], env)
    _run(["pactl", "set-default-source", "micsrc.monitor"], env)
