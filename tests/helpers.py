"""Test helpers: scripted games (records, dice, strategies) and an independent referee.

* :class:`Script` writes game records turn by turn (``take``, ``steal``, ``bust``,
  ``turn``), so a rule test states the board it needs in a few lines and replays it
  through :func:`harness.game.record.replay`.
* :class:`ScriptedDice` and :class:`Scripted` drive :class:`harness.game.engine.Game`
  directly with fixed dice and fixed decisions (for the strategy API itself).
* :func:`referee` is a second, deliberately naive implementation of RULES.md
  (R1-R11 and every variant) written from the rules text, not from the engine: it
  checks a record step by step and returns the final state, so property tests can
  compare the engine against it over thousands of random games.
"""

from __future__ import annotations

import functools
import importlib.util
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import native
from harness.game.dice import encode_turn
from harness.strategy import Strategy

# For a test or a parameter that asks for engine: native by name: skipped where the
# extension is not built (CI's pure-Python pass), as the native rooms' own tests are.
NEEDS_NATIVE = pytest.mark.skipif(not native.available(), reason="native engine not built")
HANG_GUARD = 60.0
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
"""Seconds: the only bound a test may put on wall-clock time, against a hang (a loop that
never ends, a bomb that expands), never a budget for speed; figures are measured in
benchmarks/ (tests/architecture/test_hang_guards.py holds every test to it)."""
FORMAT = "pickomino-record/1"
HOSTILE = Path(__file__).parent / "fixtures" / "hostile"  # plugins that misbehave on purpose
TIME = f"{HOSTILE}/seats_time.py"  # seats that loop, sleep or decide slowly
CRASH = f"{HOSTILE}/seats_crash.py"  # seats that end their process or raise non-Exceptions
# Every public field of harness.view.View (bust_cost is a method).
VIEW_FIELDS = [
    "seat",
    "players",
    "rules",
    "turn",
    "rolled",
    "counts",
    "choices",
    "kept",
    "kept_faces",
    "total",
    "dice_left",
    "has_worm",
    "grill",
    "flipped",
    "stacks",
    "tops",
    "scores",
    "claims",
]
WORM = 6
ALL_TILES = list(range(21, 37))
# R1, written out from the rules text rather than computed like the engine does.
WORMS = {**dict.fromkeys(range(21, 25), 1), **dict.fromkeys(range(25, 29), 2)}
WORMS |= {**dict.fromkeys(range(29, 33), 3), **dict.fromkeys(range(33, 37), 4)}
POINTS = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, WORM: 5}  # R2: a worm counts 5


# -- writing records ------------------------------------------------------------------
@functools.cache
def dice_for(total: int) -> tuple[tuple[int, int], ...]:
    """(face, count) keeps with a worm first, distinct faces and at most 8 dice, summing
    to ``total`` (5..40): the fewest faces, then the fewest dice."""
    best: tuple[tuple[int, int], ...] | None = None

    def search(faces: list[int], left: int, rest: int, chosen: list[tuple[int, int]]) -> None:
        nonlocal best
        if rest == 0:
            cand = tuple(chosen)
            key = (len(cand), sum(c for _, c in cand))
            if best is None or key < (len(best), sum(c for _, c in best)):
                best = cand
            return
        if not faces or left == 0:
            return
        face, others = faces[0], faces[1:]
        for count in range(min(left, rest // POINTS[face]), 0, -1):
            search(others, left - count, rest - count * POINTS[face], [*chosen, (face, count)])
        search(others, left, rest, chosen)

    for worms in range(1, 9):  # R7: a claim needs a worm; keep it first
        if 5 * worms <= total:
            search([5, 4, 3, 2, 1], 8 - worms, total - 5 * worms, [(WORM, worms)])
    if best is None:
        raise ValueError(f"no way to set aside {total} with a worm")
    return best


def rolls_for(keeps: list[tuple[int, int]], last: list[int] | None = None) -> list[list[int]]:
    """The rolls that let ``keeps`` ((face, count) in order) be set aside: each roll shows
    the kept face ``count`` times, the other dice show a face that is not kept then.
    ``last`` appends one more roll (e.g. one with no new face)."""
    rolls, left = [], 8
    for face, count in keeps:
        filler = 1 if face != 1 else 2
        rolls.append([face] * count + [filler] * (left - count))
        left -= count
    if last is not None:
        assert len(last) == left, f"the last roll must have {left} dice"
        rolls.append(list(last))
    return rolls


def turn(seat: int, rolls: list[list[int]], keeps: list[int], end: dict) -> dict[str, Any]:
    return {"seat": seat, "rolls": rolls, "keeps": keeps, "end": end}


class Script:
    """A game record written turn by turn; seats take turns in order (R3)."""

    def __init__(self, players: int = 2, seats: list[str] | None = None, **rules: Any) -> None:
        self.seats = seats or [f"p{i}" for i in range(players)]
        self.rules = {"players": len(self.seats), **rules}
        self.turns: list[dict[str, Any]] = []

    @property
    def seat(self) -> int:
        return len(self.turns) % len(self.seats)

    def turn(self, rolls: list[list[int]], keeps: list[int], end: dict) -> Script:
        self.turns.append(turn(self.seat, rolls, keeps, end))
        return self

    def take(self, tile: int, total: int | None = None) -> Script:
        """Set aside ``total`` (default: the tile) with a worm and claim ``tile``."""
        keeps = list(dice_for(total if total is not None else tile))
        return self.turn(rolls_for(keeps), [f for f, _ in keeps], {"claim": tile})

    def steal(self, tile: int, victim: int, total: int | None = None) -> Script:
        keeps = list(dice_for(total if total is not None else tile))
        return self.turn(rolls_for(keeps), [f for f, _ in keeps], {"steal": tile, "from": victim})

    def bust(self, reason: str = "no-new-face") -> Script:
        """A bust of the given kind (R5, R8) with no tile to claim on the way."""
        if reason == "no-new-face":  # seven 1s set aside, the last die shows a 1 again
            return self.turn([[1] * 7 + [2], [1]], [1], {"bust": reason})
        if reason == "no-worm":  # eight 5s: 40 points, no worm (R7, R8)
            return self.turn([[5] * 8], [5], {"bust": reason})
        if reason == "no-tile":  # a worm and seven 1s: 12 points, below every tile (R8)
            return self.turn(rolls_for([(WORM, 1), (1, 7)]), [WORM, 1], {"bust": reason})
        raise ValueError(reason)

    def record(self, **extra: Any) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": dict(self.rules),
            "seats": list(self.seats),
            "turns": [dict(t) for t in self.turns],
            **extra,
        }


# -- driving the engine directly ----------------------------------------------------------
class ScriptedDice:
    """A DiceSource serving fixed turns in game order: each turn is a list of rolls."""

    def __init__(self, turns: list[list[list[int]]]) -> None:
        self.turns = list(turns)
        self.asked: list[tuple[int, int]] = []

    def start_turn(self, seat: int, turn: int) -> int:
        self.asked.append((seat, turn))
        if len(self.asked) > len(self.turns):
            raise AssertionError(f"the script has only {len(self.turns)} turns")
        return encode_turn(self.turns[len(self.asked) - 1])


class Scripted(Strategy):
    """Answers from queues shared across its turns: picks, stops (bools), claims.

    An empty pick queue picks the highest legal face; an empty stop queue stops.
    Every question is logged in ``asked`` with a snapshot of what the view showed.
    """

    name = "scripted"

    def __init__(self, picks=(), stops=(), claims=()) -> None:
        self.picks = list(picks)
        self.stops = list(stops)
        self.claims = list(claims)
        self.asked: list[tuple] = []

    def pick(self, view):
        self.asked.append(("pick", view.rolled, view.choices, view.kept, view.total))
        return self.picks.pop(0) if self.picks else max(view.choices)

    def stop(self, view):
        self.asked.append(("stop", view.total, view.dice_left, view.claims))
        return self.stops.pop(0) if self.stops else True

    def claim(self, view, choices):
        self.asked.append(("claim", view.total, tuple(choices)))
        return self.claims.pop(0) if self.claims else super().claim(view, choices)


# -- the referee: RULES.md implemented again, naively ------------------------------------
class Foul(AssertionError):
    """The referee found a record step that RULES.md forbids."""


def full_rules(record: dict[str, Any]) -> dict[str, Any]:
    presets = {
        "official": {},
        "piko-blog": {"bust_flip": "lowest", "flip_without_tile": True},
        "french": {"lower_tile": "any"},
        "short": {"returned_tile": "flip"},
    }
    given = dict(record.get("rules") or {})
    rules = {
        "bust_flip": "highest",
        "flip_without_tile": False,
        "lower_tile": "highest",
        "returned_tile": "keep",
    }
    rules.update(presets[given.pop("preset", "official")])
    given.pop("players", None)
    rules.update(given)
    return rules


def options(grill, stacks, seat, total, worm, lower_any) -> list[tuple[int, int | None]]:
    """R7: what a stop at ``total`` may take, as (tile, victim or None)."""
    if not worm:
        return []
    below = sorted(t for t in grill if t <= total)
    found: list[tuple[int, int | None]] = []
    if below:
        found += [(t, None) for t in below] if lower_any else [(below[-1], None)]
    for victim, stack in enumerate(stacks):
        if victim != seat and stack and stack[-1] == total:
            found.append((total, victim))
    return found


def referee_ranks(stacks: list[list[int]]) -> list[int]:
    """R11: most worms; ties to the highest tile; players without tiles share."""
    keys = [(sum(WORMS[t] for t in s), max(s, default=0)) for s in stacks]
    return [1 + sum(k > key for k in keys) for key in keys]


def referee(record: dict[str, Any]) -> dict[str, Any]:
    """Check every step of a record against RULES.md; return the final state as
    ``harness replay --json`` prints it. Raises :class:`Foul` naming turn and rule."""
    rules = full_rules(record)
    n = len(record["seats"])
    grill, flipped = set(ALL_TILES), set()
    stacks: list[list[int]] = [[] for _ in range(n)]
    for number, t in enumerate(record["turns"], start=1):

        def foul(what: str, number: int = number) -> Foul:
            return Foul(f"turn {number}: {what}")

        seat, rolls, keeps, end = t["seat"], t["rolls"], t["keeps"], t["end"]
        if not grill:
            raise foul("the game is over (R10)")
        if seat != (number - 1) % n:
            raise foul("seat order (R3)")
        kept: set[int] = set()
        total, left, opts = 0, 8, []
        for j, roll in enumerate(rolls):
            if left == 0:
                raise foul("rolled with no dice left (R6)")
            if len(roll) != left:
                raise foul(f"roll {j + 1} has {len(roll)} dice, {left} left (R4)")
            new = set(roll) - kept
            if j == len(keeps):
                if new or end != {"bust": "no-new-face"}:
                    raise foul("a roll without a keep must show no new face (R5)")
                break
            face = keeps[j]
            if face not in new:
                raise foul(f"keep {face} not a new face of {roll} (R5)")
            count = roll.count(face)
            kept.add(face)
            total += POINTS[face] * count
            left -= count
            opts = options(grill, stacks, seat, total, WORM in kept, rules["lower_tile"] == "any")
            if j < len(keeps) - 1 and left == 0:
                raise foul("went on with all 8 dice set aside (R6)")
        if len(rolls) > len(keeps) + 1:
            raise foul("rolls after the turn ended")
        if "claim" in end or "steal" in end:
            if len(rolls) != len(keeps):
                raise foul("a claim must follow the last keep (R7)")
            want = (end["claim"], None) if "claim" in end else (end["steal"], end["from"])
            if want not in opts:
                raise foul(f"{want} is not among {opts} with sum {total} (R7)")
            tile, victim = want
            if victim is None:
                grill.remove(tile)
            else:
                stacks[victim].pop()
            stacks[seat].append(tile)
        else:
            reason = end["bust"]
            if reason in ("no-worm", "no-tile"):
                if left != 0 or opts:
                    raise foul(f"bust {reason} with {left} dice left / choices {opts} (R8)")
                if reason != ("no-tile" if WORM in kept else "no-worm"):
                    raise foul(f"wrong bust reason {reason} (R8)")
            elif len(rolls) != len(keeps) + 1:
                raise foul("no-new-face bust without its roll (R5)")
            # R9 and its variants.
            returned = stacks[seat].pop() if stacks[seat] else None
            if returned is not None:
                grill.add(returned)
            flip = returned is not None or rules["flip_without_tile"]
            if flip and rules["bust_flip"] != "none" and grill:
                target = max(grill) if rules["bust_flip"] == "highest" else min(grill)
                if not (target == returned and rules["returned_tile"] == "keep"):
                    grill.remove(target)
                    flipped.add(target)
        placed = sorted([*grill, *flipped, *(x for s in stacks for x in s)])
        if placed != ALL_TILES:
            raise foul(f"tiles not conserved: {placed} (R1)")
    over = not grill
    ranks = referee_ranks(stacks)
    firsts = [s for s, r in enumerate(ranks) if r == 1]
    return {
        "grill": sorted(grill),
        "flipped": sorted(flipped),
        "stacks": stacks,
        "scores": [sum(WORMS[x] for x in s) for s in stacks],
        "over": over,
        "winner": firsts[0] if over and len(firsts) == 1 else None,
    }


def answers_alike(results: list[Any]) -> list[str]:
    """The coach's or diff's answers (``to_json()``) without what depends on the run
    (engine, CPU, wall time), as comparable text: the same games give the same text."""
    import json

    plain = []
    for result in results:
        data = result.to_json()
        for key in ("engine", "cpu_seconds", "wall_seconds"):
            data.pop(key)
        plain.append(json.dumps(data, sort_keys=True))
    return plain


def load_benchmark(name: str, module_name: str | None = None) -> Any:
    """A script of benchmarks/ as a module (its ``main`` not run), registered in
    sys.modules under ``module_name`` (default ``name``: its dataclasses look their module
    up), with benchmarks/ on sys.path (the scripts import their siblings)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(module_name or name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def as_at_a_terminal() -> None:
    """A subprocess's ``preexec_fn``: the stop signals (SIGINT, SIGTERM, SIGHUP) at their
    defaults, as a terminal's shell starts a command, whatever the test process inherited.
    A shell's background job starts with SIGINT ignored and nohup ignores SIGHUP; harness
    rightly leaves an ignored signal ignored (harness.interrupts), so a test that plays the
    user's Ctrl-C or a closed terminal would otherwise depend on how pytest was started."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
