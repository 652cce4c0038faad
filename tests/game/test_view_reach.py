"""A plugin cannot reach the game through what it is handed (issue 9, item 2, in-process).

The view holds plain values the engine pushes into it, never the game, its dice or the
other seats' strategies; writing to the view or to the rules changes nothing the engine
reads. What in-process mode cannot forbid (a plugin walking its caller's frames or the
garbage collector) is shown here too, so that the README's claim stays honest: for
untrusted code, ``isolation: process`` is the answer.

Views also travel as plain data (``snapshot``/``from_snapshot``/``update``): a seat that
sees only detached views plays exactly the same games. The plugins are in
tests/fixtures/hostile/engine_reach.py.
"""

from __future__ import annotations

import importlib.util
import json
import pickle
import random
import types

import pytest
from helpers import HOSTILE, VIEW_FIELDS, Scripted

from harness import play_game
from harness.errors import IntegrityError
from harness.game.dice import SeededDice, derive_seed
from harness.game.engine import Game
from harness.rules import PRESETS, Rules
from harness.strategies.greedy import Greedy
from harness.strategies.random_play import RandomPlay
from harness.strategy import Claim, Strategy
from harness.view import View, legal_claims

pytestmark = pytest.mark.interpreter

W = 6


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, HOSTILE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reach = load("engine_reach")


def shown(view: View) -> dict:
    """Everything a strategy can read of a view."""
    return {**{f: getattr(view, f) for f in VIEW_FIELDS}, "bust_cost": view.bust_cost()}


# -- no path back -------------------------------------------------------------------------
def test_the_view_has_no_game_and_holds_only_plain_values():
    seen = []

    class Looks(Greedy):
        def pick(self, view):
            seen.append({s: getattr(view, s) for s in View.__slots__ if hasattr(view, s)})
            return super().pick(view)

    game = Game([Looks(), Greedy()], Rules(), SeededDice(3), seed=3)
    game.play()
    assert not hasattr(game._views[0], "_game") and "_game" not in View.__slots__
    board = game.board
    engine_state = {
        id(x) for x in (board, board.stacks, board.tops, board.scores, game._dice, game)
    }
    plain = (int, bool, str, tuple, type(None), Rules, random.Random, list)
    for slots in seen:
        for name, value in slots.items():
            assert isinstance(value, plain) or type(value) is object, name  # a sentinel
            assert id(value) not in engine_state, name
    assert game._views[0].rules is not game._rules  # the seat's own copy


def test_nothing_reachable_from_what_a_plugin_is_handed_leads_back_to_the_game():
    """Everything reachable through attributes and items from the view, its choices,
    claims, rules and rng, the strategy itself and its class: never the game, its dice,
    its state, the other seat's strategy or view, or the caller's objects. (Modules are
    not followed: they lead anywhere through ``sys.modules``, and hold no game; see
    test_no_module_global_holds_the_game.)"""
    explorer, rival = reach.Explorer(), Greedy()
    seats, rules = [explorer, rival], Rules(players=2, lower_tile="any")
    dice = SeededDice(5)
    game = Game(seats, rules, dice, seed=5)
    game.play()
    assert set(explorer.questions) == {"new_game", "pick", "stop", "claim"}
    forbidden = {
        "the game": game,
        "its dice": dice,
        "its strategies": game._strategies,
        "the caller's list": seats,
        "the caller's rules": rules,
        "the rival": rival,
        "the rival's view": game._views[1],
        "the board": game.board,
        "the stacks": game.board.stacks,
        "the tops": game.board.tops,
        "the scores": game.board.scores,
        "the views": game._views,
    }
    for what, obj in forbidden.items():
        assert id(obj) not in explorer.reached, f"a plugin can reach {what}"
    # The walk does find what there is to find: the seat's view, its own rules, its rng,
    # and an object hidden in a closure, a slot and a container.
    view = game._views[0]
    for obj in (view, view._rules, view._rng):
        assert id(obj) in explorer.reached

    def hides():
        return holder

    holder = types.SimpleNamespace(deep=[{"key": (game,)}])
    assert id(game) in reach.reachable([hides])


@pytest.mark.once
def test_no_module_global_holds_the_game():
    import sys

    found = []

    class Searches(Greedy):
        def pick(self, view):
            if not found:
                roots = [
                    vars(m)
                    for name, m in list(sys.modules.items())
                    if name.split(".")[0] == "harness" and m is not None
                ]
                found.append(reach.reachable(roots, limit=400_000))
            return super().pick(view)

    game = Game([Searches(), Greedy()], Rules(), SeededDice(1), seed=1)
    game.play()
    assert id(game) not in found[0] and id(game._dice) not in found[0]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("players, preset", [(2, "official"), (4, "french"), (3, "piko-blog")])
def test_writing_every_slot_of_the_view_and_the_rules_changes_nothing(seed, players, preset):
    rules = Rules.preset(preset, players)
    clean = play_game([Greedy() for _ in range(players)], rules, seed, record=True)
    seats: list = [Greedy() for _ in range(players)]
    seats[0] = reach.Scribbler()
    scribbled = play_game(seats, rules, seed, record=True)
    assert scribbled.record == clean.record and scribbled.state() == clean.state()
    assert rules == Rules.preset(preset, players)  # the caller's object is untouched
    again = play_game([Greedy() for _ in range(players)], rules, seed, record=True)
    assert again.record == clean.record  # and so are later games on the same rules
    later = Game([Greedy() for _ in range(players)], rules, SeededDice(seed))
    assert all(v.rules == rules and v.rules is not rules for v in later._views)  # fresh copies


def test_the_scribbler_writes_every_slot_of_the_view():
    """A slot it missed is a slot the test above never attacks."""
    assert set(reach.VIEW_SLOTS_JUNK) == set(View.__slots__)


def test_replacing_seats_in_the_callers_list_changes_nothing():
    class Swaps(Greedy):
        """Holds the caller's list (as a careless harness might hand it) and swaps the rival."""

        def __init__(self, seats):
            self.seats = seats

        def pick(self, view):
            self.seats[1] = Scripted(picks=[1] * 99)  # a rival that plays badly
            return super().pick(view)

    seats: list = [None, Greedy()]
    seats[0] = Swaps(seats)
    result = Game(seats, Rules(), SeededDice(4), seed=4).play()
    assert type(seats[1]) is Scripted  # swapped in the caller's list, to no effect:
    clean = Game([Greedy(), Greedy()], Rules(), SeededDice(4), seed=4).play()
    assert result.state() == clean.state() and result.turns == clean.turns


# -- what in-process mode cannot forbid -----------------------------------------------------
def test_in_process_a_plugin_can_walk_its_callers_frames():
    """Documents the limit: Python lets a plugin read its caller's frame and find the
    live Game there. In-process mode keeps honest and careless code out; it cannot stop
    code that sets out to cheat. ``isolation: process`` runs the plugin where no game is."""
    walker = reach.FrameWalker()
    game = Game([walker, Greedy()], Rules(), SeededDice(2), seed=2)
    game.play()
    assert walker.found and walker.found[0] is game


def test_in_process_a_plugin_can_find_the_game_through_gc_and_move_tiles():
    """Documents the limit: through gc a plugin finds the Game and moves its rival's tiles
    onto its own stack, scores and tops kept consistent, and the end-of-game check (which
    only sees a consistent board) passes."""
    walker = reach.GcWalker()
    game = Game([walker, Greedy()], Rules(), SeededDice(8), seed=8)
    result = game.play()
    assert walker.moved > 0
    clean = Game([Greedy(), Greedy()], Rules(), SeededDice(8), seed=8).play()
    assert result.stacks != clean.stacks


def test_the_end_of_game_check_catches_a_careless_edit_of_the_board():
    """What the engine can verify cheaply it does: a top that is not its stack's last tile
    (or a score that is not its stack's worms, or a tile lost) fails the game's check."""
    game = Game([Greedy(), Greedy()], Rules(), SeededDice(8), seed=8)
    game.play_turn()
    game.play_turn()
    seat = 0 if game.board.stacks[0] else 1
    game.board.tops[seat] = 36 if game.board.tops[seat] != 36 else 35
    with pytest.raises(IntegrityError, match="top tile differs from its stack"):
        game.result()


# -- views as plain data --------------------------------------------------------------------
PLAIN = (int, bool, str, type(None))


def assert_plain(value, where="snapshot"):
    if isinstance(value, dict):
        for k, v in value.items():
            assert type(k) is str, where
            assert_plain(v, f"{where}[{k!r}]")
    elif isinstance(value, tuple):
        assert type(value) is tuple, where
        for i, v in enumerate(value):
            assert_plain(v, f"{where}[{i}]")
    else:
        assert type(value) in PLAIN, f"{where}: {type(value).__name__}"


class Spy(Strategy):
    """Plays like ``inner``; at each question keeps what the view showed and its snapshot."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.seen: list[tuple[dict, dict, list]] = []

    def new_game(self, seat, rules):
        self.inner.new_game(seat, rules)

    def _look(self, view):
        self.seen.append((shown(view), view.snapshot()))

    def pick(self, view):
        self._look(view)
        return self.inner.pick(view)

    def stop(self, view):
        self._look(view)
        return self.inner.stop(view)

    def claim(self, view, choices):
        self._look(view)
        return self.inner.claim(view, choices)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 5])
def test_a_snapshot_rebuilds_the_same_view(preset, players):
    rules = Rules.preset(preset, players)
    spies = [Spy(RandomPlay()) for _ in range(players)]
    play_game(spies, rules, seed=players * 7, max_turns=60)
    for seat, spy in enumerate(spies):
        for i, (seen, data) in enumerate(spy.seen):
            assert_plain(data)
            detached = View.from_snapshot(data)
            assert shown(detached) == seen, i
            moved = View.from_snapshot(json.loads(json.dumps(data)))  # lists, not tuples
            assert shown(moved) == seen, i
            assert shown(View.from_snapshot(pickle.loads(pickle.dumps(data)))) == seen
            assert data["rng_seed"] == derive_seed(players * 7, "strategy", seat)
            assert detached.rng.random() == random.Random(data["rng_seed"]).random()


class Detached(Strategy):
    """Plays ``inner`` through ONE detached view per game, fed by snapshots, as a seat in a
    process of its own does: the board once per turn, then the turn state per question."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.view: View | None = None
        self.turn = -1

    def new_game(self, seat, rules):
        self.view = None
        self.inner.new_game(seat, rules)

    def _detached(self, view: View) -> View:
        data = view.snapshot()
        if self.view is None:
            self.view = View.from_snapshot(data)
        elif data["turn"] != self.turn:
            self.view.update(data)
        else:
            turn_state = ("counts", "choices", "kept", "total", "dice_left", "has_worm")
            self.view.update({k: data[k] for k in turn_state})
        self.turn = data["turn"]
        return self.view

    def pick(self, view):
        return self.inner.pick(self._detached(view))

    def stop(self, view):
        return self.inner.stop(self._detached(view))

    def claim(self, view, choices):
        return self.inner.claim(self._detached(view), choices)


@pytest.mark.parametrize("seed", range(6))
def test_a_seat_that_sees_only_detached_views_plays_the_same_games(seed):
    """RandomPlay draws from view.rng at every question: the detached stream must be the
    in-process stream, and claims/bust_cost computed from snapshots the engine's."""
    rules = Rules.preset("french", 3)
    make = [RandomPlay, Greedy, RandomPlay]
    inproc = play_game([m() for m in make], rules, seed, record=True)
    detached = play_game([Detached(m()) for m in make], rules, seed, record=True)
    assert detached.record == inproc.record


def test_update_with_a_new_seed_starts_a_new_stream():
    data = View(1, Rules(), seed=3).snapshot()
    view = View.from_snapshot(data)
    first = view.rng.random()
    view.update({"rng_seed": data["rng_seed"]})
    assert view.rng.random() != first  # the same seed: the same stream goes on
    view.update({"rng_seed": 99})
    assert view.rng.random() == random.Random(99).random()


def test_legal_claims_is_pure_and_claim_is_public():
    import harness.strategy
    import harness.view

    assert harness.strategy.Claim is harness.view.Claim is Claim
    tops = (30, 0)
    assert legal_claims(1, 30, True, (1 << 29) | (1 << 21), tops, False) == (
        Claim(30, 0),
        Claim(29),
    )
    assert legal_claims(1, 30, True, (1 << 29) | (1 << 21), tops, True) == (
        Claim(30, 0),
        Claim(29),
        Claim(21),
    )
    assert legal_claims(1, 30, False, 1 << 29, tops, False) == ()
    assert tops == (30, 0)
