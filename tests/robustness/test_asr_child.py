"""The recogniser's child process (``banker.speech.asr_process``) when its parent dies.

``banker play`` SIGKILLed (power cut for the process) while the child decodes: the child finds
its pipe broken when it answers, and must leave quietly, with no traceback over the table's
terminal (it shares the parent's stderr).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from .support import clean_env

PARENT = r"""
import os, signal, sys, threading, time
import numpy as np
from banker.config import load_config
from banker.editions import load_edition
from banker.speech.asr_process import ProcessRecognizer

rec = ProcessRecognizer(load_config(), load_edition("voice-banking"))
assert rec.ready(60), "the recogniser child did not start"
print(rec.proc.pid, flush=True)
noise = np.random.default_rng(1).integers(-3000, 3000, 16000 * 4).astype(np.int16)
threading.Thread(target=rec.recognize, args=(noise, ("any", frozenset())), daemon=True).start()
time.sleep(0.05)  # the request is with the child, which is decoding
os.kill(os.getpid(), signal.SIGKILL)
"""


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan may wait a while for a container's init to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_recogniser_child_leaves_quietly_when_its_parent_is_killed() -> None:
    started = time.monotonic()
    # the child inherits stderr: reading to its end waits for the child to be gone too
    r = subprocess.run([sys.executable, "-c", PARENT], capture_output=True, text=True,
                       timeout=120, env=clean_env())
    assert r.returncode == -9, r.stderr  # the parent was killed, as intended
    child = int(r.stdout.split()[0])
    assert "Traceback" not in r.stderr, r.stderr
    assert "Error" not in r.stderr, r.stderr
    assert not _running(child), "the child outlived its parent"
    assert time.monotonic() - started < 60
