"""Faults of the machine, each announced in one sentence and handled without losing anything.

* a broken config file (``BANKER_CONFIG``): one sentence, exit 2, no game file made;
* a second ``banker play`` on a game that is being played: refused, exit 2 (``banker state``
  still reads it, without disturbing the game);
* the disk fills up while the journal is written (a file-size limit in the child with SIGXFSZ
  ignored, and a tiny tmpfs in a private mount namespace when the machine allows it): the
  command is refused with a sentence, nothing is half-done, queries still work, the game
  resumes later with exactly the transactions that were announced, and is not "damaged";
* the speech model folder is missing (``--option asr.engine=vosk
  --option asr.vosk_model=/nonexistent``): one sentence, the other engine is used.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from banker.journal import GameFile

from .support import PtyGame, assert_one_sentence, clean_env, run_banker, state_json

BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))

BROKEN_CONFIGS: dict[str, str | bytes | None] = {
    "not-yaml": "asr: [pocketsphinx\n",
    "not-a-mapping": "- asr\n- tts\n",
    "wrong-engine": "asr: {engine: whisper}\n",
    "wrong-types": "asr: 5\nbuttons: {a: 9}\naudio: [1]\n",
    "button-bool": "buttons: {a: true}\n",
    "yaml-bomb": BILLION_LAUGHS + "asr: {engine: *i}\n",
    "deep": "asr: " + "[" * 5000 + "]" * 5000 + "\n",
    "self-reference": "asr: &a {x: *a}\n",
    "binary": b"\xff\xfe\x00\x01 not text",
    "missing": None,
    "folder": "FOLDER",
}


@pytest.mark.parametrize("name", sorted(BROKEN_CONFIGS))
def test_broken_config_is_one_sentence_and_exit_2(tmp_path: Path, name: str) -> None:
    cfg = tmp_path / "broken.yaml"
    content = BROKEN_CONFIGS[name]
    if content == "FOLDER":
        cfg.mkdir()
    elif isinstance(content, bytes):
        cfg.write_bytes(content)
    elif content is not None:
        cfg.write_text(content)
    game = tmp_path / "g.sqlite"
    env = clean_env(BANKER_CONFIG=str(cfg), XDG_DATA_HOME=str(tmp_path / "data"))
    r = run_banker(["play", "--keyboard", "--players", "cat,dog", "--game", str(game)],
                   input="cat: pass go\n", env=env, timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    sentence = assert_one_sentence(r.stderr)
    assert str(cfg) in sentence and "config" in sentence.lower(), sentence
    assert not game.exists(), "no game is started with a broken config"


def test_bad_option_value_is_one_sentence(tmp_path: Path) -> None:
    r = run_banker(["play", "--keyboard", "--players", "cat,dog", "--game", str(tmp_path / "g"),
                    "--option", "asr.engine=[unclosed"], env=clean_env(XDG_DATA_HOME=str(tmp_path)))
    assert r.returncode == 2
    assert_one_sentence(r.stderr)


def test_second_banker_on_a_game_in_play_is_refused(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    first = PtyGame(["play", "--keyboard", "--players", "cat,dog", "--game", str(game)], env=env)
    try:
        first.until_prompt()
        first.send("cat: pass go")
        assert any("1,700" in ln for ln in first.until_prompt())
        for args in (["play", "--keyboard", "--resume", "--game", str(game)],
                     ["play", "--resume", "--game", str(game)],
                     ["play", "--keyboard", "--players", "cat,dog", "--game", str(game)]):
            r = run_banker(args, input="cat: pass go\n", env=env)
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            sentence = assert_one_sentence(r.stderr)
            assert "already" in sentence, sentence
        # reading the game doesn't disturb it, and sees every announced transaction
        assert state_json(game)["cash"]["cat"] == 1700
        first.send("cat: pass go")
        assert any("1,900" in ln for ln in first.until_prompt())
        assert first.end_input() == 0
    finally:
        first.close()
    assert state_json(game)["cash"]["cat"] == 1900


# --- a full disk -----------------------------------------------------------------------------------

def _limit_file_size(limit: int) -> None:
    """In the child: files may not grow past ``limit`` bytes (EFBIG, not a signal)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _fill_until_refused(g: PtyGame, player: str = "cat", most: int = 60) -> tuple[int, list[str]]:
    """Pass GO until the banker can't save; returns (announced, the refusal)."""
    g.until_prompt()
    for n in range(most):
        g.send(f"{player}: pass go")
        answer = g.until_prompt()
        if any("couldn't save" in ln for ln in answer):
            return n, answer
        assert any("passes GO" in ln or "GO" in ln for ln in answer), answer
    raise AssertionError("the disk never filled up")


def _after_full(g: PtyGame, announced: int) -> None:
    """Still full: money commands are refused one sentence at a time, queries answered."""
    cash = 1500 + 200 * announced
    g.send("cat: what's my balance")
    answer = g.until_prompt()
    assert len(answer) == 1 and f"{cash:,}" in answer[0], answer
    g.send("dog: buy " + "Boardwalk")
    answer = g.until_prompt()
    assert len(answer) == 1 and "couldn't save" in answer[0], answer
    g.send("dog: what's my balance")
    assert any("1,500" in ln for ln in g.until_prompt()), "the refused purchase left no trace"


def _resume_and_check(game: Path, announced: int, env: dict[str, str]) -> None:
    loaded = GameFile(game).peek()
    assert not loaded.damaged, f"a full disk must not look like damage: {loaded.notes}"
    view = state_json(game)
    assert view["cash"]["cat"] == 1500 + 200 * announced
    assert view["cash"]["dog"] == 1500 and view["owner"]["Boardwalk"] is None
    r = run_banker(["play", "--keyboard", "--resume", "--game", str(game)],
                   input="cat: pass go\n", env=env)
    assert r.returncode == 0, r.stderr
    assert "damaged" not in r.stdout
    assert f"{1500 + 200 * (announced + 1):,}" in r.stdout


def test_disk_full_file_size_limit(tmp_path: Path) -> None:
    game = tmp_path / "g.sqlite"
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    g = PtyGame(["play", "--keyboard", "--players", "cat,dog", "--game", str(game)], env=env,
                preexec=lambda: _limit_file_size(64 * 1024))
    try:
        announced, refusal = _fill_until_refused(g)
        print(f"\ndisk full (file-size limit) after {announced}: {refusal}")
        assert len(refusal) == 1, refusal
        assert announced >= 1
        _after_full(g, announced)
        assert g.end_input() == 0
    finally:
        g.close()
    _resume_and_check(game, announced, env)


def _can_mount_tmpfs() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                        "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d"],
                       capture_output=True, timeout=20)
    return r.returncode == 0


def test_disk_full_real_filesystem(tmp_path: Path) -> None:
    """A 128 KB tmpfs in a private mount namespace: write() fails with ENOSPC, SQLite says
    SQLITE_FULL and Mr. Monopoly says the disk is full. Where mounting isn't allowed (not
    root), the file-size limit stands in for it, so this test still checks the same things."""
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"))
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    out.mkdir()
    real = _can_mount_tmpfs()
    if real:
        script = (f'mount -t tmpfs -o size=128k tmpfs "{disk}" || exit 99; '
                  f'"{sys.executable}" -m banker play --keyboard --players cat,dog '
                  f'--game "{disk}/g.sqlite"; rc=$?; cp -a "{disk}/." "{out}/"; exit $rc')
        g = PtyGame([], env=env, argv=["unshare", "-m", "--propagation", "private", "sh", "-c",
                                       script])
    else:
        g = PtyGame(["play", "--keyboard", "--players", "cat,dog", "--game", str(out / "g.sqlite")],
                    env=env, preexec=lambda: _limit_file_size(64 * 1024))
    try:
        announced, refusal = _fill_until_refused(g)
        print(f"\ndisk full ({'tmpfs' if real else 'file-size limit'}) after {announced}: {refusal}")
        if real:
            assert "disk is full" in refusal[0], refusal
        _after_full(g, announced)
        assert g.end_input() == 0
    finally:
        g.close()
    for f in out.glob("g.sqlite.lock"):
        f.unlink()
    _resume_and_check(out / "g.sqlite", announced, env)


# --- the speech model ------------------------------------------------------------------------------

def test_missing_vosk_model_is_one_sentence_and_pocketsphinx_goes_on(tmp_path: Path) -> None:
    wav = tmp_path / "quiet.wav"
    import wave

    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(np.zeros(8000, dtype=np.int16).tobytes())
    r = run_banker(["transcribe", "--json", "--option", "asr.engine=vosk", "--option",
                    "asr.vosk_model=/nonexistent", str(wav)], timeout=120)
    assert r.returncode == 0, r.stderr
    sentence = assert_one_sentence(r.stderr)
    assert "/nonexistent" in sentence
    assert '"file"' in r.stdout and str(wav) in r.stdout  # the file was still recognised
