"""The wheel carries grammars/, config/ and audio/: install it in a fresh venv and replay."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_installs_and_replays(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist)], check=True, timeout=300, cwd=tmp_path)
    wheel = next(dist.glob("banker-*.whl"))
    env_dir = tmp_path / "venv"
    # System site-packages give the heavy dependencies (onnxruntime, pocketsphinx) without a
    # download; banker itself comes only from the wheel.
    venv.create(env_dir, with_pip=True, system_site_packages=True)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)],
                   check=True, timeout=300, cwd=tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run([str(py), "-c", "import banker.paths as p; print(p.data_root())"],
                           capture_output=True, text=True, cwd=work, check=True, timeout=60).stdout.strip()
    assert where.startswith(str(env_dir)) and where.endswith("_data")
    for sub in ("grammars/commands.yaml", "config/editions/voice-banking.yaml", "config/replies/common.yaml",
                "config/banker.yaml"):
        assert (Path(where) / sub).is_file(), sub
    transcript = ROOT / "tests" / "transcripts" / "voice-banking" / "buy_and_rent.yaml"
    r = subprocess.run([str(env_dir / "bin" / "banker"), "replay", str(transcript)], capture_output=True,
                       text=True, cwd=work, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok:" in r.stdout
