"""The wheel carries grammars/, config/ and audio/: install it in a fresh venv and replay."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def package_dirs() -> list[str]:
    """Where the running interpreter finds its packages: a venv's own site-packages (and its
    base's, if it borrows them), or the system Python's. Never the source tree."""
    return [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


def test_wheel_installs_and_replays(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist)], check=True, timeout=300, cwd=tmp_path)
    wheel = next(dist.glob("banker-*.whl"))
    env_dir = tmp_path / "venv"
    # The heavy dependencies (onnxruntime, pocketsphinx, rapidfuzz…) come from wherever the
    # tests run, without a download: a venv's ``system_site_packages`` would borrow the *base*
    # Python's, which a fresh venv doesn't have. The venv's own site-packages comes first on
    # its path, so banker itself comes only from the wheel.
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    (Path(site) / "borrowed-packages.pth").write_text("".join(f"{d}\n" for d in package_dirs()))
    # The running pip installs into the new venv (``--python``, pip >= 22.3): no ensurepip.
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                    "--force-reinstall", str(wheel)], check=True, timeout=300, cwd=tmp_path)
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
