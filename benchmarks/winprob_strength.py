"""Strength of win-optimal against optimal, on duplicate deals with balanced seating.

    python benchmarks/winprob_strength.py --players 2 --deals 3000
    python benchmarks/winprob_strength.py --players 3 --deals 500
    python benchmarks/winprob_strength.py --players 4 --deals 300 --json

Through the tourney machinery (:func:`harness.tourney.run_tournament`, run folders
under ``--out``): at 2 players one table, win-optimal against optimal, every deal in
both seat orders with the same dice; at 3 and 4 players a gauntlet, one win-optimal
seat against optimal in every other seat (the other seats' copies named optimal-2, ...),
every deal in every seating. Prints win-optimal's win share (a shared first place split
evenly, R11) with its 95% interval over deals, the luck-adjusted share and interval the
standings give (docs/luck.md: the worm account's control, or with ``--luck win`` the
win account's, far stronger between these two), the target (52.0% at
2 players, 1/P + 1.5 points at 3+), and the evaluator win-optimal used.

``--paired RUN_DIR``: another run folder of this script with the same players, deals and
seed (another model installed): win-optimal's share per deal (its seatings' mean) in this
run minus that one's, with a 95% interval over deals. The dice are the same (a run of
other dice is refused), so the difference is far more precise than the two intervals
side by side.

``--rules PRESET``: the games under a preset of RULES.md (win-optimal then plays for the
model that judges it: the preset's own where one is shipped, else the official rules').
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from harness.errors import HarnessError
from harness.game.rules import PRESETS, Rules
from harness.results import load_run
from harness.stats.intervals import Moments
from harness.stats.luck import win_points
from harness.tourney import run_tournament
from harness.winprob import evaluator


def config(
    players: int, deals: int, seed: int, rules: str = "official", luck: str = "auto"
) -> dict:
    base = {"name": f"winprob_strength_{players}p", "rules": rules, "players": players,
            "deals": deals, "seed": seed, "dice": "duplicate", "luck": luck}  # fmt: skip
    if players == 2:
        return {**base, "format": "round_robin", "entrants": ["win-optimal", "optimal"]}
    others = ["optimal"] + [
        {"strategy": "optimal", "name": f"optimal-{k}"} for k in range(2, players)
    ]
    return {**base, "format": "gauntlet", "challenger": "win-optimal", "entrants": others}


def deal_shares(games: pd.DataFrame, who: str = "win-optimal") -> pd.DataFrame:
    """Per deal: ``who``'s share of first place (the standings' ``win_points``, R11: a
    shared first place split evenly), the mean over the deal's seatings, and the deal's
    dice seed."""
    seats = int(games["players"].max())
    ranks = np.stack([games[f"seat{i}_rank"].to_numpy() for i in range(seats)], axis=1)
    mine = np.stack([games[f"seat{i}_strategy"].to_numpy() == who for i in range(seats)], axis=1)
    share = (win_points(ranks) * mine).sum(axis=1)
    frame = pd.DataFrame({"deal": games["deal"], "seed": games["seed"], "share": share})
    return frame.groupby("deal").agg(share=("share", "mean"), seed=("seed", "first"))


def paired(run_dir: Path, other_dir: Path) -> dict:
    """This run's win-optimal share per deal minus the other run's, over the deals both
    played with the same dice (refused otherwise), with the 95% interval over deals that
    the standings use (``Moments``: a t interval, deals as clusters)."""
    try:
        a, b = (deal_shares(load_run(d).games) for d in (run_dir, other_dir))
    except HarnessError as exc:
        raise SystemExit(f"winprob_strength: {exc}") from None
    both = a.merge(b, left_index=True, right_index=True, suffixes=("_a", "_b"))
    if len(both) < 2 or len(both) < min(len(a), len(b)):
        raise SystemExit(f"winprob_strength: {other_dir} did not play this run's deals")
    if (both["seed_a"] != both["seed_b"]).any():
        raise SystemExit(f"winprob_strength: {other_dir} played other dice (another --seed)")
    diff = Moments.of(both["share_a"] - both["share_b"])
    low, high = diff.interval()
    return {"other": str(other_dir), "deals": len(both), "difference": diff.estimate,
            "low": low, "high": high}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", default="results")
    ap.add_argument("--paired", type=Path, default=None, metavar="RUN_DIR",
                    help="another run folder of this script on the same deals")  # fmt: skip
    ap.add_argument("--rules", choices=list(PRESETS), default="official",
                    help="the preset the games are played under")  # fmt: skip
    ap.add_argument("--luck", choices=("auto", "win"), default="auto",
                    help="the account the games keep: win adds win luck, the stronger"
                    " control of the adjusted share (docs/luck.md)")  # fmt: skip
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cpu = time.process_time()
    run = run_tournament(config(a.players, a.deals, a.seed, a.rules, a.luck), out=a.out, fresh=True,
                         workers=a.workers, progress=None if not a.json else False)  # fmt: skip
    st = run.standings.set_index("strategy")
    row = st.loc["win-optimal"]
    target = 0.52 if a.players == 2 else 1 / a.players + 0.015
    out = {
        "players": a.players,
        "deals": a.deals,
        "games": int(row["games"]),
        "win_share": float(row["win_share"]),
        "win_low": float(row["win_low"]),
        "win_high": float(row["win_high"]),
        "win_adj": float(row["win_adj"]),
        "win_adj_low": float(row["win_adj_low"]),
        "win_adj_high": float(row["win_adj_high"]),
        "luck_games": int(row["luck_games"]),
        "luck": a.luck,
        "target": target,
        "rules": a.rules,
        "evaluator": evaluator(Rules.preset(a.rules, a.players)).describe(),
        "run_dir": str(run.path),
        "wall_seconds": run.summary()["wall_seconds"],
        "cpu_seconds_main": time.process_time() - cpu,
    }
    if a.paired is not None:
        out["paired"] = paired(run.path, a.paired)
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"\nwin-optimal against optimal, {a.players} players, {a.deals:,} deals"
          f" ({out['games']:,} games of win-optimal), seed {a.seed}, {a.rules} rules")  # fmt: skip
    print(f"  evaluator: {out['evaluator']}")
    print(f"  win share      {100 * out['win_share']:.2f}%  95% CI "
          f"{100 * out['win_low']:.2f} to {100 * out['win_high']:.2f}%")  # fmt: skip
    print(f"  luck-adjusted  {100 * out['win_adj']:.2f}%  95% CI "
          f"{100 * out['win_adj_low']:.2f} to {100 * out['win_adj_high']:.2f}%"
          f"  ({out['luck_games']:,} games kept the luck account)")  # fmt: skip
    print(f"  target         {100 * target:.2f}%")
    if a.paired is not None:
        pr = out["paired"]
        print(f"  paired with {pr['other']} on {pr['deals']:,} deals: "
              f"{100 * pr['difference']:+.2f} points, 95% CI {100 * pr['low']:+.2f} to "
              f"{100 * pr['high']:+.2f}")  # fmt: skip
    print(f"  run folder {out['run_dir']}, {out['wall_seconds']:.0f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
