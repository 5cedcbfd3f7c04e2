"""Edition data: exact values from editions.md, and every error reported with its key path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from banker.editions import EditionError, load_edition
from banker.editions.loader import editions_dir, parse_edition

VB = (editions_dir() / "voice-banking.yaml").read_text()


def test_voice_banking_values() -> None:
    ed = load_edition("voice-banking")
    assert ed.start_cash == 1500 and ed.currency == "M"
    assert ed.token_ids == ("trex", "racecar", "cat", "dog")
    assert len(ed.streets) == 16 and len(ed.chance) == 16
    assert ed.street("Boardwalk").price == 400 and ed.street("Boardwalk").rent["hotel"] == 2000
    assert ed.street("St. Charles Place").house_cost == 100
    assert ed.stock == {"houses": 8, "hotels": 12}
    assert (ed.auction.open, ed.auction.step) == (50, 50)
    assert ed.fees == {"pass_go": 200, "bail": 50, "trade": 100}
    assert "Vermont Avenue" in ed.foreign_streets and "Baltic Avenue" not in ed.foreign_streets
    assert {c.id for c in ed.chance} == {
        "dividend", "loan", "crossword", "speeding", "school", "building-loan", "birthday",
        "chairman", "repairs", "go", "boardwalk", "jail", "jail-free", "inheritance", "doctor",
        "bank-error"}


def test_every_error_with_its_key_path() -> None:
    broken = (VB.replace("start_cash: 1500", "start_cash: lots")
              .replace("price: 60, rent: {base: 2", "price: -1, rent: {base: 2")
              .replace("house: 200, hotel: 2000", "hotel: 2000")
              .replace("{id: doctor, title: \"Doctor's fees\", effect: {pay: 50}}",
                       "{id: doctor, title: x, effect: {teleport: 1}}"))
    with pytest.raises(EditionError) as err:
        parse_edition(broken, "broken.yaml")
    text = "\n".join(err.value.errors)
    assert "start_cash: must be a whole number" in text
    assert "streets[0].price: must be more than 0" in text
    assert "streets[15].rent.house: is missing" in text
    assert "chance[14].effect: unknown effect 'teleport'" in text
    assert len(err.value.errors) == 4


@pytest.mark.parametrize("text", ["", "[1, 2", "just a string", "id: x\nrules: nope\n"])
def test_unusable_files(text: str) -> None:
    with pytest.raises(EditionError):
        parse_edition(text, "bad.yaml")


def test_broken_edition_file_exits_2_without_traceback(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "config" / "editions").mkdir(parents=True)
    (data / "config" / "editions" / "voice-banking.yaml").write_text(VB.replace("start_cash: 1500", "start_cash: -5"))
    import shutil

    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "config" / "replies", data / "config" / "replies")
    shutil.copy(root / "config" / "banker.yaml", data / "config" / "banker.yaml")
    shutil.copytree(root / "grammars", data / "grammars")
    env = {"BANKER_DATA": str(data), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "banker", "editions"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 2
    assert "start_cash" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--players", "dog,cat"],
                       capture_output=True, text=True, env=env, timeout=60, input="")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_unknown_edition_exits_2(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "banker", "play", "--keyboard", "--edition", "nope",
                        "--players", "dog,cat", "--game", str(tmp_path / "g.sqlite")],
                       capture_output=True, text=True, timeout=60, input="")
    assert r.returncode == 2
    assert "no edition called 'nope'" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "g.sqlite").exists()


JP = (editions_dir() / "jackpot.yaml").read_text()
SV = (editions_dir() / "secret-vault.yaml").read_text()


@pytest.mark.parametrize(("text", "error"), [
    # a typo in Jackpot's payout table used to pay 0 without a word
    (JP.replace("payout: {x1 pay out: 1,", "payout: {x1 pay outt: 1,"),
     "extra.payout.x1 pay outt: is not one of spinner_outcomes"),
    (JP.replace("jail_tries: 3", "jail_tires: 3"),
     "extra.jail_tires: unknown key (known: spinner_outcomes, spinner_segments, payout, "
     "hot_house, jail_tries)"),
    (JP.replace("hot_house: {one: 2, pair: 4}", "hot_house: {one: 2, pairs: 4}"),
     "extra.hot_house.pairs: unknown key (known: one, pair)"),
    (JP.replace("jail_tries: 3", "jail_tries: three"),
     "extra.jail_tries: must be a whole number of at least 1, not 'three'"),
    (SV.replace("vault_items: {key: 1, hotel: 1}", "vault_items: {key: 1, hotels: 1}"),
     "extra.vault_items.hotels: unknown key (known: key, hotel)"),
    (VB.replace("start_cash: 1500", "start_cash: 1500\nstart_money: 2000"),
     "start_money: unknown key (known: id, name, rules,"),
    (VB.replace("  bail: 50 ", "  bale: 50 "), "fees.bale: unknown key (known: pass_go, bail, trade)"),
    (VB.replace("rent: {base: 2, house: 10,", "rent: {base: 2, house: 10, hotels: 1,"),
     "streets[0].rent.hotels: unknown key (known: base, house, hotel)"),
    (SV.replace("effect: {pay_vault: 200}", "effect: {pay: 200}"),
     "chance[2].effect: unknown effect 'pay'"),  # Secret Vault pays fines into the vault
])
def test_misspelt_keys_fail_at_load_with_their_path(text: str, error: str) -> None:
    with pytest.raises(EditionError) as err:
        parse_edition(text, "typo.yaml")
    assert any(e.startswith(error) for e in err.value.errors), err.value.errors


def test_extra_defaults_are_filled_in_for_the_rules() -> None:
    ed = parse_edition(JP.replace("  jail_tries: 3\n", ""), "jp.yaml")
    assert ed.extra["jail_tries"] == 3 and ed.extra["hot_house"] == {"one": 2, "pair": 4}
    assert set(load_edition("voice-banking").extra) == set()
