"""Win share with a 95% confidence interval, per table, from a `harness tourney` run folder.

    python benchmarks/optimal_ci.py results/optimal_vs_simple/<run id> [--strategy optimal]

Reads the run's games (Parquet) and, for the strategy named, prints its win share (a
shared first place split evenly) at every table it sat at, with a 95% interval
computed over deals: the deal is the independent unit, since its seat rotations share
their dice (duplicate dice). Also the overall figure over all its tables.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd


def shares(games: pd.DataFrame, strategy: str) -> pd.DataFrame:
    """One row per game the strategy played: table, deal, its win share, its opponents."""
    players = int(games["players"].iloc[0])
    firsts = sum((games[f"seat{s}_rank"] == 1).astype(int) for s in range(players))
    rows = []
    for s in range(players):
        mine = games[games[f"seat{s}_strategy"] == strategy]
        won = (mine[f"seat{s}_rank"] == 1) / firsts.loc[mine.index]
        others = mine[[f"seat{o}_strategy" for o in range(players) if o != s]].apply(
            lambda r: " + ".join(sorted(r)), axis=1
        )
        rows.append(
            pd.DataFrame({"table": mine["table"], "deal": mine["deal"], "share": won, "vs": others})
        )
    return pd.concat(rows, ignore_index=True)


def interval(per_game: pd.DataFrame) -> tuple[float, float, int, int]:
    per_deal = per_game.groupby(["table", "deal"])["share"].mean()
    mean = per_deal.mean()
    half = 1.96 * per_deal.std(ddof=1) / math.sqrt(len(per_deal))
    return mean, half, len(per_deal), len(per_game)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder of harness tourney")
    parser.add_argument("--strategy", default="optimal", help="the entrant to report")
    args = parser.parse_args()
    files = sorted((args.run / "games").glob("*.parquet"))
    if not files:
        raise SystemExit(f"{args.run}: no games/*.parquet here")
    games = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    games = games[games["status"] == "over"]  # finished games only (no forfeits, no caps)
    mine = shares(games, args.strategy)
    if mine.empty:
        raise SystemExit(f"{args.strategy!r} played no game in {args.run}")
    for vs, part in mine.groupby("vs"):
        mean, half, deals, n = interval(part)
        print(
            f"{args.strategy} vs {vs}: win share {mean:.2%} +- {half:.2%} "
            f"(95% CI {mean - half:.2%} .. {mean + half:.2%}; {n:,} games, {deals:,} deals)"
        )
    mean, half, deals, n = interval(mine)
    print(
        f"{args.strategy} overall: {mean:.2%} +- {half:.2%} "
        f"(95% CI {mean - half:.2%} .. {mean + half:.2%}; {n:,} games)"
    )


if __name__ == "__main__":
    main()
