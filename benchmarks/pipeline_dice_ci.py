"""How much duplicate dice narrow the confidence interval of a win-rate difference.

    python benchmarks/pipeline_dice_ci.py [--deals 3000] [--repeats 40] [--repeat-deals 100]

For a table of two strategies A and B (and one 4-player table), the quantity a
tournament estimates is the difference of their win shares (ties split). Each deal is
played in every seat rotation; with duplicate dice the rotations face the same dice
seat by seat, with independent dice they do not. Two measurements per table and mode:

* from one long run: the standard deviation of the per-deal difference (the deal is
  the independent unit; its rotations are averaged), hence the 95% CI half-width of the
  mean difference for the same number of games;
* empirically: the spread (sd) of the estimated difference over many small repeated
  tournaments with different seeds.

The ratio of widths (independent / duplicate), squared, is how many times more games
independent dice need for the same precision. Runs in this process, through the same
pure chunk function the workers use (harness.tourney.chunks.play_chunk).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk

TABLES = [
    ("greedy", "simple"),
    ("greedy", "worm-first"),
    ("tactician", "env-heuristic"),
    ("greedy", "threshold"),
    ("greedy", "simple", "worm-first", "threshold"),
]


def per_deal_differences(
    entrants: tuple[str, ...], dice: str, deals: int, seed: int
) -> list[float]:
    """Win share of entrants[0] minus entrants[1], per deal (its seat orders averaged)."""
    players = len(entrants)
    config = load_config(
        {
            "entrants": list(entrants),
            "players": players,
            "deals": deals,
            "seed": seed,
            "dice": dice,
            "chunk": deals,
        }
    )
    (spec,) = list(plan.chunks(config))
    a = next(i for i, e in enumerate(spec.entrants) if e.name == entrants[0])
    b = next(i for i, e in enumerate(spec.entrants) if e.name == entrants[1])
    result = play_chunk(spec)
    ranks = [s["rank"] for s in result.seats]
    seating, status = result.games["seating"], result.games["status"]
    orders = spec.orders
    diffs: list[float] = []
    share = [0.0] * players
    counted = 0
    for row in range(result.rows):
        k = seating[row]
        if status[row] != 1:  # turn-capped games are not scored
            firsts = [s for s in range(players) if ranks[s][row] == 1]
            for s in firsts:
                share[orders[k][s]] += 1 / len(firsts)
            counted += 1
        if k == len(orders) - 1:  # the deal's last seat order
            if counted:
                diffs.append((share[a] - share[b]) / counted)
            share = [0.0] * players
            counted = 0
    return diffs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000, help="deals of the long run per mode")
    parser.add_argument("--repeats", type=int, default=40, help="small tournaments per mode")
    parser.add_argument("--repeat-deals", type=int, default=100, help="deals per small tournament")
    args = parser.parse_args()
    start = time.process_time()
    print(
        f"{'table':<42} {'mode':<12} {'mean diff':>9} {'sd/deal':>8} {'CI95 +-':>8} "
        f"{'sd repeats':>10}"
    )
    for entrants in TABLES:
        label = " v ".join(entrants)
        widths = {}
        spreads = {}
        for dice in ("independent", "duplicate"):
            diffs = per_deal_differences(entrants, dice, args.deals, seed=1)
            sd = statistics.stdev(diffs)
            half = 1.96 * sd / math.sqrt(len(diffs))
            estimates = [
                statistics.fmean(
                    per_deal_differences(entrants, dice, args.repeat_deals, seed=100 + k)
                )
                for k in range(args.repeats)
            ]
            spread = statistics.stdev(estimates)
            widths[dice], spreads[dice] = half, spread
            print(
                f"{label:<42} {dice:<12} {statistics.fmean(diffs):>+9.3f} {sd:>8.3f} "
                f"{half:>8.4f} {spread:>10.4f}"
            )
        ratio = widths["independent"] / widths["duplicate"]
        # Too few repeats can give equal estimates (a spread of 0): no ratio then.
        empirical = (
            f"x{spreads['independent'] / spreads['duplicate']:.2f}" if spreads["duplicate"] else "-"
        )
        print(
            f"{'':<42} => duplicate CI is {1 / ratio:.0%} as wide (x{ratio:.2f} narrower; "
            f"independent needs x{ratio**2:.1f} the games); repeats: {empirical}"
        )
    print(
        f"({args.deals} deals per long run, {args.repeats} x {args.repeat_deals} deals of "
        f"repeats; {time.process_time() - start:.0f} CPU-s)"
    )


if __name__ == "__main__":
    main()
