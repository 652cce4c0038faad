"""One check of a record for every command (issue 30): ``harness replay`` and ``harness
analyze game`` cannot disagree.

``harness replay`` said "all legal", exit 0, for records whose stored luck account
``harness analyze game`` refuses: replay re-applied the moves and the result, analyze game
also held each turn's stored ``account`` (par, luck, regret, swing) to the one its moves
give. Both now call :func:`harness.analysis.game.account_record`. Every kind of forgery
of the account is refused by both, in the same one line, exit 2; an honest record, with
or without the account, is legal to both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.engine

Record = dict[str, Any]


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> Record:
    """A record harness wrote, every turn with its account."""
    from click.testing import CliRunner

    from harness.cli import main

    path = tmp_path_factory.mktemp("rec") / "game.json"
    out = CliRunner().invoke(
        main, ["play", "greedy", "tactician", "--seed", "3", "--record", str(path), "-q"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(path.read_text())
    assert all("account" in turn for turn in data["turns"])
    return data


def set_field(turn: int, key: str, value: Any) -> Callable[[Record], None]:
    def forge(data: Record) -> None:
        data["turns"][turn]["account"][key] = value

    return forge


def add(turn: int, key: str, delta: float) -> Callable[[Record], None]:
    def forge(data: Record) -> None:
        data["turns"][turn]["account"][key] += delta

    return forge


def drop(turn: int, key: str) -> Callable[[Record], None]:
    def forge(data: Record) -> None:
        del data["turns"][turn]["account"][key]

    return forge


def replace_account(turn: int, value: Any) -> Callable[[Record], None]:
    def forge(data: Record) -> None:
        data["turns"][turn]["account"] = value

    return forge


def consistent_lie(data: Record) -> None:
    """A turn's whole account shifted so that it still sums (swing = par + luck - regret)
    and its swing still is the turn's: luck up, regret up by as much."""
    account = data["turns"][5]["account"]
    account["luck"] += 1.0
    account["regret"] += 1.0


def raw(text_from: str, text_to: str) -> Callable[[str], str]:
    """A forgery of the file's text (JSON's NaN and Infinity, which Python reads)."""
    return lambda text: text.replace(text_from, text_to, 1)


# Every check `harness analyze game` made that `harness replay` did not: the account of a
# turn is an object, its four figures present, numbers (not text, not booleans, not nan
# or infinite) and the ones its moves give.
FORGERIES: dict[str, tuple[Callable[[Record], None], str]] = {
    "account not an object": (replace_account(3, "lucky"), "is not an object"),
    "account a list": (replace_account(2, [0.5, 0.1, 0.0, 0.6]), "is not an object"),
    "par edited": (add(0, "par", 0.25), "the record says par"),
    "luck edited": (add(3, "luck", 0.5), "the record says luck"),
    "regret made negative": (set_field(4, "regret", -1.0), "the record says regret"),
    "swing edited": (add(6, "swing", 2.0), "the record says swing"),
    "a figure missing": (drop(1, "luck"), "the record's luck None should be"),
    "swing null on a finished turn": (set_field(2, "swing", None), "swing None should be"),
    "a figure as text": (set_field(7, "par", "1.5"), "the record says par '1.5'"),
    "a figure as a boolean": (set_field(8, "regret", True), "the record says regret True"),
    "an edit that still sums": (consistent_lie, "turn 6, seat 1: the record says luck"),
}
TEXT_FORGERIES: dict[str, tuple[Callable[[Record], None], str]] = {
    "nan": (set_field(9, "luck", "@NAN@"), "the record says luck nan"),
    "infinity": (set_field(10, "par", "@INF@"), "the record says par inf"),
}


def write(tmp_path: Path, data: Record) -> Path:
    text = json.dumps(data).replace('"@NAN@"', "NaN").replace('"@INF@"', "Infinity")
    path = tmp_path / "forged.json"
    path.write_text(text)
    return path


def both(cli, path: Path) -> tuple[Any, Any]:
    return cli("replay", str(path)), cli("analyze", "game", str(path))


@pytest.mark.parametrize("kind", [*FORGERIES, *TEXT_FORGERIES])
def test_every_forgery_is_refused_by_both_commands_in_the_same_line(honest, tmp_path, cli, kind):
    forge, says = {**FORGERIES, **TEXT_FORGERIES}[kind]
    data = json.loads(json.dumps(honest))
    forge(data)
    replayed, analysed = both(cli, write(tmp_path, data))
    for result in (replayed, analysed):
        assert result.exit_code == 2, (kind, result.output)
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert says in result.output, (says, result.output)
        assert "all legal" not in result.output
    assert replayed.output == analysed.output


def test_an_honest_record_is_legal_to_both_with_or_without_its_account(honest, tmp_path, cli):
    replayed, analysed = both(cli, write(tmp_path, honest))
    assert replayed.exit_code == 0 and analysed.exit_code == 0
    turns = len(honest["turns"])
    assert f"{turns} turns replayed, all legal; the stored account of {turns} turns matches" in (
        replayed.output
    )
    plain = json.loads(json.dumps(honest))
    for turn in plain["turns"]:
        del turn["account"]
    replayed, analysed = both(cli, write(tmp_path, plain))
    assert replayed.exit_code == 0 and analysed.exit_code == 0
    assert f"{turns} turns replayed, all legal." in replayed.output


def test_both_commands_call_the_one_check(honest, tmp_path, cli, monkeypatch):
    """Neither command checks a record by a way of its own: both go through
    account_record, and what it refuses both refuse."""
    from harness.analysis import game
    from harness.errors import RecordError

    calls = []

    def refuse(data, unit="worms"):
        calls.append(len(data["turns"]))
        raise RecordError("turn 1, seat 0: refused by the one check")

    monkeypatch.setattr(game, "account_record", refuse)
    replayed, analysed = both(cli, write(tmp_path, honest))
    assert calls == [len(honest["turns"])] * 2
    assert replayed.exit_code == analysed.exit_code == 2
    assert "refused by the one check" in replayed.output
    assert replayed.output == analysed.output
