"""Properties of many random seeded games, over every preset, variant mix and 2..7 players.

Each game is checked four independent ways: an observer that rebuilds the board from
the events and checks tile conservation (R1) and scores (R11) after every event;
spies around the strategies that check what the engine asks and offers (R5, R7); the
referee in ``helpers`` (RULES.md implemented again) run over the game's record; and
replay of the record. Same seed, same game; every game ends or is capped.

``HARNESS_THOROUGH=1 pytest tests/game/test_properties.py`` runs 2000 games per property
instead of 60 (about five minutes; worth it after any engine change).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers import ALL_TILES, WORMS, options, referee, referee_ranks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import play_game, replay
from harness.game.engine import GameObserver
from harness.plugins import resolve
from harness.rules import PRESETS, VARIANTS, Rules
from harness.strategy import Strategy

STRATEGIES = [
    "greedy",
    "random",
    "random(p_stop=0.9)",
    "threshold(target=25)",
    "threshold(target=33)",
    "worm-first",
    "worm-first(target=30, min_dice=2)",
    "simple",
    "env-heuristic",
    "tactician",  # board-aware: steals and chooses among claims (about 15 ms a game)
]
MAX_TURNS = 400  # generous for these strategies, small enough to keep the suite fast
# A few dozen random games per property keep the suite fast on a shared machine; no
# example database, so a run leaves nothing behind (a failure prints its example).
CHECKED = settings(
    max_examples=2000 if os.environ.get("HARNESS_THOROUGH") == "1" else 60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class Tracker(GameObserver):
    """Rebuilds the board from the events alone; checks R1 and R11 after every event."""

    def __init__(self, players: int) -> None:
        self.grill = set(ALL_TILES)
        self.flipped: set[int] = set()
        self.stacks: list[list[int]] = [[] for _ in range(players)]
        self.events = 0

    def claimed(self, seat, claim, total):
        tile, victim = claim
        assert tile <= total, f"claimed {tile} with {total} (R7)"
        if victim is None:
            assert tile in self.grill, f"{tile} is not face up on the grill (R7)"
            self.grill.remove(tile)
        else:
            assert victim != seat and self.stacks[victim][-1] == tile == total, "steal (R7)"
            self.stacks[victim].pop()
        self.stacks[seat].append(tile)
        self.check()

    def busted(self, seat, reason, total, returned, turned, roll):
        stack = self.stacks[seat]
        assert returned == (stack[-1] if stack else None), "R9: the top tile is returned"
        if returned is not None:
            self.grill.add(stack.pop())
        if turned is not None:
            assert turned in self.grill, "R9: only a face-up grill tile is turned"
            self.grill.remove(turned)
            self.flipped.add(turned)
        self.check()

    def check(self) -> None:
        self.events += 1
        placed = sorted([*self.grill, *self.flipped, *(t for s in self.stacks for t in s)])
        assert placed == ALL_TILES, f"R1: 16 tiles must stay in play, found {placed}"

    def state(self) -> dict:
        return {
            "grill": sorted(self.grill),
            "flipped": sorted(self.flipped),
            "stacks": self.stacks,
            "scores": [sum(WORMS[t] for t in s) for s in self.stacks],
        }


class Spy(Strategy):
    """Wraps a strategy and checks every question the engine asks it."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name
        self.lower_any = False
        self.asked = {"pick": 0, "stop": 0, "claim": 0}

    def new_game(self, seat, rules):
        self.lower_any = rules.lower_tile == "any"
        self.inner.new_game(seat, rules)

    def _options(self, view) -> set:
        found = options(
            view.grill, view.stacks, view.seat, view.total, view.has_worm, self.lower_any
        )
        return set(found)

    def pick(self, view):
        self.asked["pick"] += 1
        assert len(view.rolled) == view.dice_left == 8 - len(view.kept), "R4"
        new = sorted(set(view.rolled) - set(view.kept))
        assert list(view.choices) == new and new, "R5: the choices are the new faces"
        return self.inner.pick(view)

    def stop(self, view):
        self.asked["stop"] += 1
        assert view.dice_left > 0, "R6: with all 8 dice set aside there is no question"
        can = self._options(view)
        assert can, "R7: stop offered although it would claim nothing"
        assert {tuple(c) for c in view.claims} == can
        return self.inner.stop(view)

    def claim(self, view, choices):
        self.asked["claim"] += 1
        assert len(choices) > 1, "claim() is asked only with a real choice"
        assert {tuple(c) for c in choices} == self._options(view), "R7: the legal claims"
        return self.inner.claim(view, choices)


def play_checked(seats: list[str], rules: Rules, seed: int):
    spies = [Spy(resolve(ref).create()) for ref in seats]
    tracker = Tracker(rules.players)
    result = play_game(spies, rules, seed, record=True, observer=tracker, max_turns=MAX_TURNS)
    # Games end (R10) or are stopped by the cap, never scored then.
    assert result.over or result.capped
    assert result.turns <= MAX_TURNS
    if result.over:
        assert result.grill == [] and result.status == "over"
    else:
        assert result.status == "turn-cap" and result.winner is None and result.grill
    # R1 and R11, from the engine's own result.
    placed = sorted(result.grill + result.flipped + [t for s in result.stacks for t in s])
    assert placed == ALL_TILES
    assert result.scores == [sum(WORMS[t] for t in s) for s in result.stacks]
    assert result.ranks == referee_ranks(result.stacks)
    if result.over:
        firsts = [s for s, r in enumerate(result.ranks) if r == 1]
        assert result.winner == (firsts[0] if len(firsts) == 1 else None)
    # Four views of the same game agree.
    state = result.state()
    assert {k: state[k] for k in tracker.state()} == tracker.state()
    assert tracker.events == len(result.record["turns"]) == result.turns
    assert referee(result.record) == state
    assert replay(json.loads(json.dumps(result.record))).state() == state
    assert sum(result.busts) == sum("bust" in t["end"] for t in result.record["turns"])
    assert (
        sum(result.steals)
        == sum(result.stolen)
        == sum("steal" in t["end"] for t in result.record["turns"])
    )
    return result


@st.composite
def games(draw):
    players = draw(st.integers(2, 7))
    if draw(st.booleans()):
        rules = Rules.preset(draw(st.sampled_from(list(PRESETS))), players)
    else:
        rules = Rules(players=players, **{k: draw(st.sampled_from(v)) for k, v in VARIANTS.items()})
    seats = draw(st.lists(st.sampled_from(STRATEGIES), min_size=players, max_size=players))
    seed = draw(st.integers(0, 2**64 - 1))
    return seats, rules, seed


@CHECKED
@given(games())
def test_random_games_obey_every_rule(game):
    seats, rules, seed = game
    play_checked(seats, rules, seed)


@CHECKED
@given(games())
def test_same_seed_same_game(game):
    seats, rules, seed = game
    first = play_game(seats, rules, seed, record=True, max_turns=MAX_TURNS)
    again = play_game(seats, rules, seed, record=True, max_turns=MAX_TURNS)
    assert again.record == first.record
    assert again.state() == first.state() and again.turns == first.turns


@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("preset", list(PRESETS))
def test_sweep_every_preset_and_player_count(preset, players):
    """A fixed sweep, so every combination is covered on every run (hypothesis samples)."""
    rules = Rules.preset(preset, players)
    for seed in range(3):
        seats = [STRATEGIES[(seed + i) % len(STRATEGIES)] for i in range(players)]
        result = play_checked(seats, rules, seed)
        if preset != "official":
            continue
        assert result.over, "official games end (R10)"


def test_spies_were_asked_every_kind_of_question():
    """The spy checks above are only worth something if each question happens."""
    totals = {"pick": 0, "stop": 0, "claim": 0}
    for seed in range(40):
        spies = [Spy(resolve(r).create()) for r in ("random", "greedy", "threshold(target=25)")]
        play_game(spies, Rules(players=3, lower_tile="any"), seed, max_turns=MAX_TURNS)
        for spy in spies:
            for key, n in spy.asked.items():
                totals[key] += n
    assert all(n > 50 for n in totals.values()), totals


def test_different_seeds_give_different_games():
    records = {
        json.dumps(play_game(["random", "greedy"], seed=s, record=True).record["turns"])
        for s in range(20)
    }
    assert len(records) == 20


SCRIPT = """
import json, sys
from harness import play_game
out = []
for seed in (1, 2, 3):
    r = play_game(["random", "greedy", "worm-first"], rules="piko-blog", seed=seed, record=True)
    out.append(r.record)
print(json.dumps(out))
"""


def test_same_seed_same_game_in_another_process():
    """Python's hash() is salted per process; nothing in a game may depend on it."""
    here = [
        play_game(["random", "greedy", "worm-first"], rules="piko-blog", seed=s, record=True).record
        for s in (1, 2, 3)
    ]
    for hashseed in ("12345",):  # this process's hash() salt is random: they differ
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": hashseed, "PATH": "/usr/bin:/bin"},
            check=True,
            timeout=120,
        )
        assert json.loads(done.stdout) == here
