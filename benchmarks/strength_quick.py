"""Quick head-to-head strength check between two strategies, through the engine alone.

    python benchmarks/strength_quick.py A B [--deals 2000] [--players 2]

Plays seat-rotated duplicate-dice deals (every rotation of a deal sees the same dice seat
by seat) and prints A's win share with a 95% interval clustered by deal.
For full tournaments use `harness tourney`; this is the engine-only sanity check.
"""

from __future__ import annotations

import argparse
import math
import statistics

from harness.game.dice import DuplicateDice
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import Rules


def deal_scores(a: str, b: str, deals: int, players: int) -> list[float]:
    """A's points per deal (1 per win, split on ties), over all rotations of the deal."""
    specs = [resolve(a)] + [resolve(b)] * (players - 1)
    rules = Rules(players=players)
    out = []
    for deal in range(deals):
        dice = DuplicateDice(f"strength/{a}/{b}/{deal}")
        points = 0.0
        for rotation in range(players):
            order = specs[rotation:] + specs[:rotation]
            seat_a = (players - rotation) % players
            result = Game([s.create() for s in order], rules, dice, seed=deal * 7 + rotation).play()
            if result.winner is None:
                firsts = [s for s, r in enumerate(result.ranks) if r == 1]
                points += 1 / len(firsts) if seat_a in firsts else 0.0
            else:
                points += result.winner == seat_a
        out.append(points / players)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    scores = deal_scores(args.a, args.b, args.deals, args.players)
    mean = statistics.fmean(scores)
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))
    print(
        f"{args.a} vs {args.b} ({args.players} players, {args.deals} deals x {args.players} "
        f"rotations): {args.a} wins {mean:.1%} +- {half:.1%}"
    )


if __name__ == "__main__":
    main()
