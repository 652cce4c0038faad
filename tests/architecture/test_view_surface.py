"""The surface between the engine and the view (issue 13, item 7).

An engine feeds a view through ``View.show_turn`` (the board, once per turn) and the
plain slots of ``harness.view.TURN_SLOTS`` (the turn state), and reads nothing back.
These tests try to catch the engine writing anything else, reading the view, or the
surface showing something other than what the engine's own view shows; and they pin
that the board's private module stays out of plugin code digests.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from helpers import VIEW_FIELDS

import harness.game.engine
import harness.view
from harness.game import board as _board
from harness.game.board import KEPT_OF, mask_of
from harness.game.dice import ROLLS, SeededDice
from harness.game.engine import Game
from harness.plugins import _project_modules
from harness.rules import PRESETS, Rules
from harness.strategies.greedy import Greedy
from harness.strategies.random_play import RandomPlay
from harness.strategy import Strategy
from harness.view import TURN_SLOTS, View

ROOT = Path(harness.view.__file__).parent


ENGINE = ("harness.game.engine", "harness.game.turn")  # the game, and the turn it plays


class Recording(View):
    """A view that logs which attributes the engine (its game and turn) sets and reads."""

    __slots__ = ()
    log: list[tuple[str, str]] = []

    def __setattr__(self, name: str, value: object) -> None:
        if sys._getframe(1).f_globals.get("__name__") in ENGINE:
            Recording.log.append(("set", name))
        object.__setattr__(self, name, value)

    def __getattribute__(self, name: str) -> object:
        if sys._getframe(1).f_globals.get("__name__") in ENGINE:
            Recording.log.append(("get", name))
        return object.__getattribute__(self, name)


class Counting(Strategy):
    """Plays ``inner``; counts the turns it is asked about."""

    def __init__(self, inner: Strategy) -> None:
        self.inner, self.name, self.turns = inner, inner.name, set()

    def pick(self, view):
        self.turns.add(view.turn)
        return self.inner.pick(view)

    def stop(self, view):
        return self.inner.stop(view)

    def claim(self, view, choices):
        return self.inner.claim(view, choices)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_engine_only_calls_show_turn_and_writes_the_turn_slots(preset, monkeypatch):
    monkeypatch.setattr(harness.game.engine, "View", Recording)
    Recording.log = []
    rules = Rules.preset(preset, 3)
    seats = [Counting(RandomPlay()), Counting(Greedy()), Counting(RandomPlay())]
    game = Game(seats, rules, SeededDice(5), seed=5)
    result = game.play()
    log = Recording.log
    assert log, "the recording view was not used"
    sets = {name for kind, name in log if kind == "set"}
    gets = {name for kind, name in log if kind == "get"}
    assert sets and sets <= set(TURN_SLOTS)  # never a private member
    assert gets == {"show_turn"}  # nothing read back, no other method
    # show_turn once per turn, before the seat is asked anything that turn
    assert sum(1 for entry in log if entry == ("get", "show_turn")) == result.turns
    first = log.index(("get", "show_turn"))
    assert all(kind == "get" for kind, _ in log[: first + 1])


def test_the_turn_slots_are_the_views_public_slots():
    public = {s for s in View.__slots__ if not s.startswith("_")}
    assert set(TURN_SLOTS) == public
    assert set(TURN_SLOTS) <= set(VIEW_FIELDS)
    assert harness.view.__all__.count("TURN_SLOTS") == 1


def test_show_turn_shows_the_board_and_starts_a_fresh_turn():
    view = View(1, Rules(players=3))
    view.counts, view.choices = ROLLS[sum(1 << 4 * f for f in (2, 6))].counts, (2, 6)
    view.kept, view.kept_faces, view.total, view.dice_left, view.has_worm = (6,), (6,), 5, 7, True
    stacks = ((21, 30), (), (36,))
    view.show_turn(7, mask_of((22, 23, 35)), mask_of((24,)), stacks)
    assert view.turn == 7
    assert view.grill == (22, 23, 35) and view.flipped == (24,)
    assert view.stacks is stacks and view.tops == (30, None, 36) and view.scores == (4, 0, 4)
    assert view.bust_cost() == 0  # seat 1's stack is empty
    assert (view.kept, view.kept_faces, view.total, view.dice_left, view.has_worm) == (
        (),
        (),
        0,
        8,
        False,
    )
    assert view.claims == ()  # no worm yet
    # the last roll stays shown until the engine writes the next one (never asked before)
    assert view.choices == (2, 6) and view.rolled == (2, 6)


def test_kept_of_is_the_faces_not_free():
    for free in range(0, 128, 2):
        assert KEPT_OF[free] == tuple(f for f in range(1, 7) if not free >> f & 1)
    assert KEPT_OF[_board.ALL_FACES] == () and KEPT_OF[0] == (1, 2, 3, 4, 5, 6)


class Mirror(Strategy):
    """Plays ``inner`` on a second view fed only through the surface, from what the
    engine's view shows, and checks at every question that the two show the same."""

    def __init__(self, inner: Strategy) -> None:
        self.inner, self.name = inner, inner.name
        self.checked = 0

    def new_game(self, seat, rules):
        self.mirror = View(seat, rules)
        self.inner.new_game(seat, rules)

    def _fed(self, view: View) -> View:
        mirror = self.mirror
        if mirror.turn != view.turn:
            mirror.show_turn(view.turn, mask_of(view.grill), mask_of(view.flipped), view.stacks)
        for slot in TURN_SLOTS:
            setattr(mirror, slot, getattr(view, slot))
        for field in VIEW_FIELDS:
            if field != "rng":
                assert getattr(mirror, field) == getattr(view, field), field
        assert mirror.bust_cost() == view.bust_cost()
        self.checked += 1
        return mirror

    def pick(self, view):
        return self.inner.pick(self._fed(view))

    def stop(self, view):
        return self.inner.stop(self._fed(view))

    def claim(self, view, choices):
        return self.inner.claim(self._fed(view), choices)


@pytest.mark.parametrize("preset, players", [("official", 2), ("french", 4), ("piko-blog", 3)])
def test_a_view_fed_through_the_surface_shows_what_the_engine_shows(preset, players):
    rules = Rules.preset(preset, players)
    seats = [Mirror(Greedy() if s % 2 else RandomPlay()) for s in range(players)]
    Game(seats, rules, SeededDice(11), seed=11).play()
    assert all(s.checked > 20 for s in seats)


def test_a_fresh_view_is_a_blank_turn():
    view = View(0, Rules())
    assert (view.kept, view.kept_faces, view.total, view.dice_left, view.has_worm) == (
        (),
        (),
        0,
        8,
        False,
    )
    assert view.counts == (0,) * 7 and view.choices == () and view.rolled == ()


def test_claim_and_claim_key_are_public_and_keep_the_board_out_of_plugin_digests():
    """Claim and claim_key are defined in harness.game.board but named as harness.game.view,
    the versioned API: a strategy that uses them must not hash the private module."""
    import harness.strategies.optimal as optimal
    import harness.strategies.random_play as random_play

    assert harness.view.Claim is _board.Claim and harness.view.claim_key is _board.claim_key
    assert _board.Claim.__module__ == _board.claim_key.__module__ == "harness.game.view"
    for module in (optimal, random_play):  # both name Claim, optimal claim_key too
        assert "harness.game.board" not in _project_modules(module)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("harness")}


def test_the_arrows_run_one_way():
    """the board is ground floor (rules only); the view never imports the engine."""
    assert _imports(ROOT / "board.py") == {"harness.game.rules"}
    assert "harness.game.engine" not in _imports(ROOT / "view.py")
    assert _imports(ROOT / "view.py") <= {
        "harness.game.board",
        "harness.game.dice",
        "harness.game.rules",
        "harness.errors",  # the ground floor (rules imports it too): a renamed name's warning
    }


def test_view_py_holds_no_engine_only_tables_any_more():
    for name in ("GRILL_CLAIMS", "STEAL_CLAIMS", "LE", "ALL_FACES", "KEPT_OF", "_TILE_TUPLES"):
        assert not hasattr(harness.view, name), name
