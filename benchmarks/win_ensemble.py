"""Whether win-optimal would play better for an average of several models' chances: a
measurement of a design that is not built (docs/winprob.md: "An average of models").

    python benchmarks/win_ensemble.py --models shipped A.bin B.bin --deals 4000 [--seed 1]
        [--workers 2] [--json]

Models trained alike from other seeds err differently; the mean of their chances is a
steadier evaluator than any one of them (the evaluator's error is what a one-turn
programme cannot play around: docs/luck.md). ``--models`` names the files averaged
(``shipped``: the shipped 2-player model); each is checked as a model file is
(harness.winprob.load) and must judge two players. The averaged chances are the
models' own, each seat's mean in the order given.

Both bots, ``win-optimal`` with the shipped model and the one playing for the average,
play `optimal` on the same deals (duplicate dice, both seat orders; win_lookahead.py's
deals of the same seed), on the Python engine: the games are the same until the first
turn the two valuations choose differently, so the paired difference per deal is
measured far more closely than either share. Printed: each bot's win share against
`optimal`, the paired difference with its 95% interval over deals, how many games
differed, and the CPU per game.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from win_lookahead import play_all, play_pair, report

from harness.game.rules import Rules
from harness.strategies.win_optimal import WinOptimal
from harness.strategy import View
from harness.winprob import ModelError, Position, ending_chances, evaluator, load
from harness.winprob.evaluator import Evaluator

SHIPPED = "shipped"


class Average:
    """The seat-by-seat mean of several evaluators' chances (in the order given)."""

    def __init__(self, rules: Rules, models: Sequence[str]) -> None:
        if rules.players != 2:
            raise ValueError("the average is measured at two players")
        self.parts = [
            evaluator(rules) if m == SHIPPED else Evaluator(rules, load(m)) for m in models
        ]

    def chances_many(self, positions: Sequence[Position]) -> list[tuple[float, ...]]:
        each = [e.chances_many(positions) for e in self.parts]
        n = len(each)
        return [
            tuple(sum(seat) / n for seat in zip(*rows, strict=True))
            for rows in zip(*each, strict=True)
        ]


class AverageWinOptimal(WinOptimal):
    """win-optimal, its endings valued by :class:`Average`."""

    name = "win-optimal-average"

    def __init__(self, models: Sequence[str]) -> None:
        super().__init__()
        self.models = tuple(models)
        self._judge: Average | None = None

    def _plan_key(self, view: View) -> tuple:
        return ("win-average", self.models, *super()._plan_key(view))

    def _ending_values(self, view: View) -> tuple[dict, float]:
        if self._judge is None:
            self._judge = Average(view.rules, self.models)
        position = Position.of(view.grill, view.stacks, view.seat)
        return ending_chances(position, view.rules, self._judge)  # type: ignore[arg-type]


def play_deal(job: tuple[int, int, tuple[str, ...]]) -> dict[str, Any]:
    """:func:`win_lookahead.play_pair` of the bot for the average of ``models``."""
    deal, seed, models = job
    return play_pair(deal, seed, lambda: AverageWinOptimal(models))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", required=True, help="model files, or 'shipped'")
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    models = tuple(a.models)
    try:
        Average(Rules(players=2), models)  # every file checked before any game
    except ModelError as exc:  # a missing or damaged file, a model of other seats
        print(f"win_ensemble: {exc}", file=sys.stderr)
        return 2
    jobs = [(d, a.seed, models) for d in range(a.deals)]
    parts, wall = play_all(play_deal, jobs, a.workers)
    setting = {"models": list(models), "deals": a.deals, "seed": a.seed}
    return report(setting, parts, wall, f"for the mean of {len(models)} models", a.json)


if __name__ == "__main__":
    sys.exit(main())
