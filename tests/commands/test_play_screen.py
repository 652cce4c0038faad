"""What ``harness play`` shows a new user on one screen (issue 30, item 5).

A person's game at 80 columns shows its dice in one order (the narration's ``rolls`` line
and the person's ``Roll:`` / ``Set aside:`` lines and answer keys: lowest first, the worm
last), the hint table's numbers in columns for the longest option (a steal's), one
wording for a steal ("steal 28 from seat 1", never "take 28 from seat 1"), and the
record's line in 80 columns too. Several mistyped names are one message naming each.
"""

from __future__ import annotations

import re

from harness.analysis import roll
from harness.analysis.game import decision_line
from harness.analysis.hints import claim_hints, stop_options
from harness.analysis.roll import TurnPosition, option_lines, roll_options
from harness.people.console import choice_keys, dice_text, roll_lines

W = 6
# Answers tried in turn until one is legal (a wrong one is asked again): a whole game.
TRIES = "W\n5\n4\n3\n2\n1\ns\n1\n" * 400


def _ascending(text: str) -> bool:
    faces = [6 if d == "W" else int(d) for d in text.split()]
    return faces == sorted(faces)


def test_one_order_for_the_dice_on_a_persons_screen(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the record goes to the default results/play/
    out = cli("play", "you", "greedy", "--seed", "5", "--hints", input=TRIES)
    assert out.exit_code == 0, out.output
    screen = out.output
    narrated = re.findall(r"^  rolls ([W1-5 ]+?)\s{2,}", screen, re.M)
    drawn = re.findall(r"^Roll: ([W1-5 ]+)$", screen, re.M)
    kept = re.findall(r"^Set aside: ([W1-5 ]+?)  total", screen, re.M)
    keys = re.findall(r"^keep \[([W1-5 ]+)\]> ", screen, re.M)
    assert narrated and drawn and kept and keys
    for shown in [*narrated, *drawn, *kept, *keys]:
        assert _ascending(shown), shown
    offers = re.findall(r"^  may keep:  (.*)$", screen, re.M)
    assert offers and all(_ascending(" ".join(re.findall(r"(\w) x\d", o))) for o in offers)


def test_the_persons_game_fits_80_columns_record_lines_too(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = cli("play", "you", "greedy", "--seed", "5", input=TRIES)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    record = next(i for i, line in enumerate(lines) if line.startswith("Record: "))
    path = lines[record].removeprefix("Record: ")
    assert f"harness replay {path}" in lines[record + 1]
    assert f"harness analyze game {path}" in lines[record + 2]
    too_wide = [line for line in lines if len(line) > 80]
    assert too_wide == []


def test_the_dice_helpers_share_the_narrations_order():
    assert dice_text([W, 1, 5, W, 3]) == "1 3 5 W W"
    assert choice_keys([W, 1, 5]) == "1 5 W"
    roll, offer = roll_lines([5, 1, W], [0, 1, 0, 0, 0, 1, 1], [1, 5, W])
    assert roll == "Roll: 1 5 W" and offer == "  may keep:  1 x1 (1)  5 x1 (5)  W x1 (5)"


# A board where the best stop steals: seat 1 shows 26, the grill holds 21 only; the
# person (seat 0) has kept W W W 5 5 (25) and rolls 1 5 5: keep 1 x 1 (26), stop, steal.
STEAL = TurnPosition(grill=(21,), tops=(0, 26), seat=0, kept=(W, W, W, 5, 5))


def _columns(lines: list[str]) -> set[int]:
    """Where each line's value column ends (the sign of the value's right edge)."""
    return {m.end() for line in lines[1:] if (m := re.search(r"[+-]\d+\.\d{4}", line))}


def test_a_steal_is_worded_as_a_steal_everywhere():
    options = roll_options(STEAL, (1, 5, 5)).options
    steal = next(o for o in options if o.then == "stop" and o.claim and o.claim[1] is not None)
    assert steal.describe() == "keep 1 x 1, stop: steal 26 from seat 1"
    assert roll.claim_words(26, 1) == "steal 26 from seat 1"
    assert roll.claim_words(26, None) == "take 26"
    assert roll.claim_words(26, 1, worm_count=True) == "steal 26 (2 worms) from seat 1"
    assert all("take 26 from" not in o.describe() for o in options)

    class Chose:  # decision_line's view of a claim decision (analysis.game)
        kind, chosen, best, regret = "claim", (26, 1), (26, 1), 0.0

    assert decision_line(Chose()).startswith("steal 26 from seat 1")  # type: ignore[arg-type]


def test_the_hint_table_keeps_its_columns_for_the_longest_option():
    lines = option_lines(roll_options(STEAL, (1, 5, 5)))
    assert any("steal 26 from seat 1" in line for line in lines)
    assert len(_columns(lines)) == 1, lines
    header = lines[0]
    assert header.index("value") + len("value") == next(iter(_columns(lines)))
    stop = stop_options(TurnPosition(grill=(21,), tops=(0, 26), seat=0, kept=(W, W, W, 5, 5, 1)))
    texts = [h.text for h in stop]
    assert "stop and steal 26 (2 worms) from seat 1" in texts  # 39 characters
    from harness.people.seat import _hint_lines

    table = _hint_lines(stop)
    assert len(_columns(table)) == 1, table
    assert all(len(line) <= 80 for line in table)


def test_claim_hints_word_a_steal_with_its_worms():
    class View:  # what claim_hints reads of a strategy's view
        grill, tops, seat, kept, total = (26,), (0, 26), 0, (W, W, W, 5, 5, 1), 26
        claims = ((26, None), (26, 1))

        class rules:  # noqa: N801 (the view's attribute)
            lower_tile = "highest"

    words = {h.text for h in claim_hints(View())}  # type: ignore[arg-type]
    assert words == {"take 26 (2 worms)", "steal 26 (2 worms) from seat 1"}


def test_every_unknown_name_is_named_in_one_line(cli):
    out = cli("play", "gredy", "tactican")
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1, out.output
    assert "'gredy' (did you mean 'greedy'?)" in lines[0]
    assert "'tactican' (did you mean 'tactician'?)" in lines[0]
    assert "available: " in lines[0] and "Pickomino:" not in out.output


def test_one_unknown_name_reads_as_before_and_a_person_seat_is_no_name(cli):
    out = cli("play", "you", "gredy")
    assert out.exit_code == 2
    assert "unknown strategy 'gredy'; did you mean 'greedy'? available: " in out.output
    assert "'you'" not in out.output
