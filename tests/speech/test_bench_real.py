"""``banker bench --real`` on a tiny generated set: the benchmark's mixing, the scoring, the
published rows printed above ours, counts beside every number, and the decode cache."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np

from banker.tools import bench_real, clips
from banker.tools.bench_real import _max_frame_energy, mix, noise_scale

LIGHTS = Path(__file__).parent / "contexts" / "lights.yaml"
README = """# A tiny set

## Published results (command acceptance)
| engine | noise | 6 dB | 9 | 12 | 15 | 18 | 21 | 24 |
|---|---|---|---|---|---|---|---|---|
| Some Engine | kitchen | 0.50 | 0.60 | 0.70 | 0.80 | 0.90 | 0.95 | 0.99 |

## Other
| not | this |
"""


def test_mix_is_the_benchmarks() -> None:
    rng = np.random.default_rng(0)
    clean = np.sin(np.arange(16000) / 5.0) * 0.3
    noise = rng.standard_normal(48000) * 0.1
    seg = noise[1000:17000]
    k = noise_scale(clean, seg, 12.0)
    ratio = _max_frame_energy(clean) / _max_frame_energy(k * seg)
    assert abs(10 * np.log10(ratio) - 12.0) < 1e-9
    out = mix(clean, noise, 12.0, np.random.default_rng(1))
    assert len(out) == len(clean) and abs(int(np.abs(out.astype(np.int32)).max()) - 16384) <= 1
    again = mix(clean, noise, 12.0, np.random.default_rng(1))
    assert np.array_equal(out, again)


def _tiny_set(folder: Path) -> None:
    (folder / "clean").mkdir(parents=True)
    said = {"a.wav": ("make the kitchen lights red", {"room": "kitchen", "color": "red"},
                      "changeColor"),
            "b.wav": ("switch off the bedroom lights", {"state": "off", "room": "bedroom"},
                      "changeState")}
    labels = {}
    for name, (text, slots, intent) in said.items():
        clips.write_wav(folder / "clean" / name, clips.pad(clips.speech(text), 1.0, 1.0))
        labels[name] = {"intent": intent, "slots": {k: f" {v} " for k, v in slots.items()}}
    (folder / "labels.json").write_text(json.dumps(labels))
    shutil.copy(LIGHTS, folder / "lights.yaml")
    noise = clips.noise("pink", 16000 * 20, np.random.default_rng(2))
    clips.write_wav(folder / "kitchen.wav", np.clip(noise * 3000, -32768, 32767).astype(np.int16))
    (folder / "README.md").write_text(README)


def test_real_bench_on_a_tiny_set(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    _tiny_set(folder)
    out = io.StringIO()
    report = tmp_path / "real.json"
    assert bench_real.run_real(folder, out=report, stream=out, cache=tmp_path / "cache") == 0
    text = out.getvalue()
    assert "2 recordings x 8 conditions = 16 decodes, 16 not cached" in text
    rows = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert rows[2].startswith("| Some Engine | kitchen | 0.50") and len(rows) == 4
    assert rows[3].startswith("| banker (pocketsphinx + moonshine) | kitchen | ") and "/2)" in rows[3]
    data = json.loads(report.read_text())
    assert data["recordings"] == 2 and set(data["scores"]) == set(bench_real.CONDITIONS)
    clean = data["scores"]["clean"]
    assert clean["n"] == 2 and clean["exact"] == 2  # piper, clean: both orders right
    again = io.StringIO()
    bench_real.run_real(folder, stream=again, cache=tmp_path / "cache")
    assert "16 decodes, 0 not cached" in again.getvalue()
    assert again.getvalue().splitlines()[-9:] == text.splitlines()[-9:]


def test_the_decode_cache_version_covers_the_second_ears_rules() -> None:
    """A change to how the two ears are weighed, or to the snap, starts the real-speech
    decode cache afresh (they were once left out, and a changed rule scored stale decodes)."""
    from banker.tools import decode_cache
    from banker.tools.bench_real import CODE

    names = {p.relative_to(p.parents[1]).as_posix() for p in decode_cache.modules(*CODE)}
    assert {"speech/two_ears.py", "speech/ear_rules.py", "speech/snap.py", "speech/lexicon.py",
            "speech/moonshine_asr.py", "interpreter/hearing.py"} <= names
