"""Hints from a view or a board (harness.analysis.hints): every option valued exactly.

Checked against the account, which values the same decisions from the game's events
(harness.analysis.account.Accountant), not from the views: a hint that reads the view
wrongly (the dice set aside, a top tile, the seat) disagrees with it.
"""

from __future__ import annotations

import pytest

from harness import play_game
from harness.analysis.hints import (
    claim_hints,
    position_of_view,
    roll_hints,
    stop_hints,
    stop_options,
)
from harness.analysis.roll import TurnPosition, roll_options
from harness.analysis.units import accountant_for
from harness.errors import HarnessError
from harness.rules import Rules
from harness.strategies.greedy import Greedy
from harness.strategies.optimal import Optimal
from harness.strategies.tactician import Tactician
from harness.strategy import Strategy


class Recorder(Strategy):
    """Plays ``inner``'s moves and keeps every hint it could have been given."""

    name = "recorder"

    def __init__(self, inner: Strategy, unit: str = "worms") -> None:
        self.inner = inner
        self.unit = unit
        self.seen: list[tuple[str, object]] = []

    def new_game(self, seat, rules):
        self.inner.new_game(seat, rules)

    def pick(self, view):
        self.seen.append(("pick", roll_hints(view, self.unit)))
        return self.inner.pick(view)

    def stop(self, view):
        self.seen.append(("stop", stop_hints(view, self.unit)))
        return self.inner.stop(view)

    def claim(self, view, choices):
        self.seen.append(("claim", claim_hints(view, choices, self.unit)))
        return self.inner.claim(view, choices)


@pytest.mark.parametrize("unit", ["worms", "win"])
@pytest.mark.parametrize(
    "players,variant",
    [(2, {}), (3, {"lower_tile": "any"}), (4, {"bust_flip": "lowest"})],
)
def test_hints_are_the_accounts_values_for_every_decision_of_a_game(players, variant, unit):
    # in either unit: the win-unit hints are the win-unit account's values (issue 32)
    rules = Rules.coerce({"preset": "official", **variant}, players=players)
    for seed in range(3):
        seated = [Recorder(Tactician(), unit) if s == 1 else Greedy() for s in range(players)]
        accountant = accountant_for(unit, rules, detail=True)
        play_game(seated, rules, seed=seed, observer=accountant)
        accountant.finish()
        hinted = seated[1].seen
        decisions = [d for t in accountant.turns if t.seat == 1 for d in t.decisions]
        # the account lists a claim decision for every claim; hints only where asked
        decisions = [d for d in decisions if d.kind != "claim" or len(d.options) > 1]
        assert [k for k, _ in hinted] == [d.kind for d in decisions]
        for (kind, hint), decision in zip(hinted, decisions, strict=True):
            if kind == "pick":  # a keep is worth its best way on (stop or roll)
                best = {o.face: max(p.value for p in hint.options if p.face == o.face)
                        for o in hint.options}  # fmt: skip
                assert best == {o.move: o.value for o in decision.options}
            else:
                values = {h.move: h.value for h in hint}
                assert values == {o.move: o.value for o in decision.options}
            assert hint_regret_zero_first(kind, hint)


def hint_regret_zero_first(kind, hint) -> bool:
    options = hint.options if kind == "pick" else hint
    return options[0].regret == 0 and all(o.regret >= 0 for o in options)


class Hinted(Strategy):
    """The docstring's example: the best keep, and the better of stop or roll on."""

    name = "hinted"

    def pick(self, view):
        return roll_hints(view).options[0].face

    def stop(self, view):
        return stop_hints(view)[0].move == "stop"


def test_a_strategy_following_the_hints_plays_optimal_outside_its_end_game():
    for seed in range(4):
        a = play_game([Hinted(), Greedy()], seed=seed, record=True)
        b = play_game([Optimal(endgame=0), Greedy()], seed=seed, record=True)
        assert a.record["turns"] == b.record["turns"]


def test_a_board_gives_the_same_options_as_a_view():
    position = TurnPosition((25, 26, 27, 28, 29, 30), (23, 24), 0, kept=(6, 6, 3, 3, 2, 5, 5))
    hints = stop_options(position)
    assert {h.move for h in hints} == {"stop", "roll"}
    rolled = roll_options(
        TurnPosition((25, 26, 27, 28, 29, 30), (23, 24), 0, kept=(6, 6, 3, 3, 2)), (5, 5, 4)
    )
    by = {(o.face, o.then): o.value for o in rolled.options}
    assert {h.move: h.value for h in hints} == {"stop": by[5, "stop"], "roll": by[5, "roll"]}
    # no worm set aside: nothing to decide (R7); all dice kept: nothing either (R8)
    assert stop_options(TurnPosition((21, 22), (0, 0), 0, kept=(5, 5, 5, 5, 4))) == ()


def test_a_view_is_read_as_the_seat_sees_it():
    class Look(Strategy):
        name = "look"

        def pick(self, view):
            self.position = position_of_view(view)
            return max(view.choices)

        def stop(self, view):
            return True

    looker = Look()
    play_game([Greedy(), looker], seed=3)
    p = looker.position
    assert p.seat == 1 and len(p.tops) == 2 and p.lower_any is False


def test_hints_at_the_wrong_moment_are_one_line():
    class Early(Strategy):
        name = "early"

        def new_game(self, seat, rules):
            from harness.view import View

            with pytest.raises(HarnessError, match="moment of a pick"):
                roll_hints(View(seat, rules))

        def pick(self, view):
            return max(view.choices)

        def stop(self, view):
            return True

    play_game([Early(), Greedy()], seed=1)


def test_the_coach_pages_python_sample_runs_and_writes_the_worm_by_name():
    """docs/coach.md's hints sample (issue 30, item 5): it runs as printed, names the worm
    WORM (never a bare 6), and its two boards are the moments it says: the roll before
    the keep, the total after it."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "coach.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "roll_options(" in b)
    assert not re.search(r"kept=\([^)]*\b6\b", block)  # the worm by name in a kept tuple
    names: dict = {}
    exec(compile(block, "docs/coach.md", "exec"), names)  # noqa: S102 - the page's own code
    board, after = names["board"], names["after"]
    assert sum(min(f, 5) for f in board.kept) == 18 and len(board.kept) == 5  # before
    assert sum(min(f, 5) for f in after.kept) == 28 and len(after.kept) == 7  # after 5 5
    keeps = {o.face for o in roll_options(board, (5, 5, 4)).options}
    assert keeps == {5, 4}
