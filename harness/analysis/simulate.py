"""Monte Carlo through the real engine: the end-to-end check of ``analyze turn --simulate``.

Each policy of an analysis is played for N turns by a strategy that follows it
(:class:`PolicyPlayer`, public strategy API only), each turn the first of a fresh
:class:`harness.game.engine.Game`, so the engine rolls the dice, applies the keeps and ends
the turn (R4-R8) exactly as in a tournament. The opening board (full grill, no tops)
offers a stop at every total a board's claims allow and more, so the policy stops only
where the analysed board allows it; the engine's outcome (the total claimed at, or a
bust) is then read as the analysed board reads it: a claim at a total the board cannot
claim at (all dice kept, R8) is a bust there. The simulated frequencies are compared
with the exact values: z-scores and 95% intervals from the exact standard deviation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from harness.analysis.board import TurnBoard
from harness.analysis.report import TurnAnalysis
from harness.analysis.turn import LOOKUP, Solution
from harness.game.dice import SeededDice, derive_seed
from harness.game.engine import Game, GameObserver
from harness.game.rules import Rules
from harness.game.strategy import Strategy, View
from harness.stats import Z95


class PolicyPlayer(Strategy):
    """Plays a solved turn policy (:class:`~harness.analysis.turn.Solution`)."""

    def __init__(self, solution: Solution) -> None:
        self.solution = solution

    def pick(self, view: View) -> int:
        state = LOOKUP[view.kept_faces, view.dice_left, view.total]
        return self.solution.pick(state, view.counts, view.choices)

    def stop(self, view: View) -> bool:
        return self.solution.stops[LOOKUP[view.kept_faces, view.dice_left, view.total]]


class _Never(Strategy):
    """The other seat: its turn never comes (one turn is played per game)."""

    def pick(self, view: View) -> int:  # pragma: no cover - never asked
        return view.choices[-1]

    def stop(self, view: View) -> bool:  # pragma: no cover - never asked
        return True


class _Ending(GameObserver):
    """Remembers how the turn ended: the total claimed at, or None for a bust."""

    total: int | None = None

    def claimed(self, seat: int, claim: Any, total: int) -> None:
        self.total = total

    def busted(self, *args: Any) -> None:
        self.total = None


def play_turns(
    solution: Solution, board: TurnBoard, turns: int, seed: int | str
) -> Counter[int | None]:
    """Play ``turns`` opening turns with ``solution``'s policy; count how they end on
    ``board``: the total of each claim the board allows, None for a bust."""
    player = PolicyPlayer(solution)
    rules = Rules(players=2)
    dice = SeededDice(seed)
    ending = _Ending()
    endings: Counter[int | None] = Counter()
    stoppable = {s: board.stoppable(s) for s in range(41)}
    for _ in range(turns):
        ending.total = None
        Game([player, _Never()], rules, dice, observer=ending).play_turn()
        total = ending.total
        endings[total if total is not None and stoppable[total] else None] += 1
    return endings


@dataclass
class Check:
    """One simulated quantity against its exact value."""

    quantity: str
    exact: float
    simulated: float
    half_width: float  # of the 95% interval around the exact value
    turns: int

    @property
    def z(self) -> float | None:
        sd = self.half_width / Z95
        if sd == 0:
            return None if self.simulated == self.exact else float("inf")
        return (self.simulated - self.exact) / sd

    @property
    def within(self) -> bool:
        return abs(self.simulated - self.exact) <= self.half_width

    def to_json(self) -> dict[str, Any]:
        return {
            "quantity": self.quantity,
            "exact": self.exact,
            "simulated": self.simulated,
            "ci95": [self.exact - self.half_width, self.exact + self.half_width],
            "z": self.z,
            "within": self.within,
            "turns": self.turns,
        }


def _proportion(name: str, p: float, hits: int, n: int) -> Check:
    return Check(name, p, hits / n, Z95 * (p * (1 - p) / n) ** 0.5, n)


def simulate(
    analysis: TurnAnalysis,
    turns: int,
    seed: int,
    progress: Callable[[str], None] | None = None,
) -> list[Check]:
    """Play every policy of ``analysis`` for ``turns`` turns and check each quantity."""
    if analysis.kept:
        raise ValueError("simulation plays whole turns: it cannot start after --kept dice")
    board = analysis.board
    checks: list[Check] = []
    for row in analysis.targets:
        t = row["target"]
        for kind, label, exact_p in (
            ("at_least", f"P(>= {t})", row["at_least"]),
            ("exactly", f"P(= {t})", row["exactly"]),
        ):
            if progress:
                progress(label)
            sol = analysis.solutions[kind, t]
            endings = play_turns(sol, board, turns, derive_seed(seed, "analyze", kind, t))
            hits = sum(
                k
                for s, k in endings.items()
                if s is not None and (s >= t if kind == "at_least" else s == t)
            )
            checks.append(_proportion(label, float(exact_p), hits, turns))
    if analysis.worms is not None:
        if progress:
            progress("expected worms")
        w = analysis.worms
        sol = analysis.solutions["worms"]
        endings = play_turns(sol, board, turns, derive_seed(seed, "analyze", "worms"))
        gains: Counter[int] = Counter()
        for s, k in endings.items():
            gains[board.bust_gain if s is None else board.gain(s)] += k
        mean = sum(g * k for g, k in gains.items()) / turns
        sd = float(w["variance"]) ** 0.5
        checks.append(Check("mean worms", float(w["mean"]), mean, Z95 * sd / turns**0.5, turns))
        checks.append(_proportion("P(bust)", float(w["bust"]), endings[None], turns))
        for gain, p in w["gains"].items():
            if gain > 0:
                checks.append(_proportion(f"P({gain:+d} worms)", float(p), gains[gain], turns))
    return checks


def verdict(checks: list[Check]) -> dict[str, Any]:
    """How many checks fall within their 95% intervals, and whether all fall within the
    family-wide (Bonferroni) band: the pass mark for many checks at once."""
    inside = sum(c.within for c in checks)
    z_family = NormalDist().inv_cdf(1 - 0.025 / max(1, len(checks)))
    worst = max((abs(c.z) for c in checks if c.z is not None), default=0.0)
    return {
        "count": len(checks),
        "within_95": inside,
        "family_z": z_family,
        "worst_z": worst,
        "passed": worst <= z_family,
    }
