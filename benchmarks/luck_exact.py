"""The luck and skill account is exact and unbiased: the figures of docs/luck.md.

    python benchmarks/luck_exact.py [--deals 3000] [--turn-games 100000] [--json]

Two parts, each over every built-in strategy (and ``optimal``), played through the
runner's own chunk function (harness.tourney.chunks.play_chunk, luck on: the native
engine where it is built, as a tourney plays):

* **Exact.** Every turn of ``--turn-games`` games (every built-in pairing and preset, 2,
  3 and 4 players, replayed on the Python engine with the account's turn-by-turn detail)
  satisfies swing = par + sum(luck) - sum(regret); the largest residual is reported
  (the target: under 1e-9). Every two-player game of the stored rows satisfies the margin
  identity: seat 0's worms - seat 1's = (par + luck - regret) of seat 0 - the same of
  seat 1.
* **Unbiased.** Each roll's luck has mean zero given everything before it, whoever
  decides: per strategy, the mean luck per roll over its seats' rolls (>= 1 M rolls each
  at the defaults) with a z score clustered by deal (a deal's games share dice, so the
  deal's luck total is the independent unit: z = sum_d L_d / sqrt(sum_d L_d^2)); the
  target is |z| < 3 for each and |z| < 2 pooled.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

import numpy as np

from harness.analysis.account import Accountant
from harness.game.dice import DuplicateDice
from harness.game.engine import Game
from harness.plugins import resolve
from harness.rules import PRESETS, Rules
from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk
from harness.tourney.plan import deal_seed

STRATEGIES = [
    "greedy",
    "threshold",
    "worm-first",
    "simple",
    "env-heuristic",
    "tactician",
    "random",
    "optimal",
]


def identity(games: int, seed: int) -> dict[str, Any]:
    """Every turn of ``games`` games across pairings, presets and 2-4 players."""
    worst = 0.0
    turns = played = 0
    rng = np.random.default_rng(seed)
    started = time.process_time()
    combos = [(p, preset) for p in (2, 3, 4) for preset in PRESETS]
    while played < games:
        players, preset = combos[played % len(combos)]
        rules = Rules.preset(preset, players)
        names = [STRATEGIES[i] for i in rng.integers(0, len(STRATEGIES), players)]
        accountant = Accountant(rules, detail=True)
        deal = deal_seed(seed, played)
        strategies = [resolve(n).create() for n in names]
        Game(strategies, rules, DuplicateDice(deal), observer=accountant, seed=deal).play()
        accountant.finish()
        for turn in accountant.turns:
            if turn.swing is not None:
                worst = max(worst, abs(turn.residual))
                turns += 1
        played += 1
        if played % 5000 == 0:
            print(f"  identity: {played:,} games, {turns:,} turns", file=sys.stderr)
    return {
        "games": played,
        "turns": turns,
        "worst_residual": worst,
        "cpu_s": time.process_time() - started,
    }


def _config(entrants: list[str], deals: int, seed: int) -> Any:
    return load_config(
        {
            "name": "luck-exact",
            "players": 2,
            "entrants": entrants,
            "deals": deals,
            "seed": seed,
            "luck": "on",
            "chunk": min(deals, 5000),
        }
    )


def unbiased(deals: int, seed: int) -> dict[str, Any]:
    """Mean luck per roll of each strategy over a round robin of every built-in."""
    config = _config(STRATEGIES, deals, seed)
    # per strategy: its luck and rolls, and its luck per deal (a deal's games at every
    # table share the dice: the deal is the unit)
    per: dict[str, dict[str, float]] = {s: {"luck": 0.0, "rolls": 0.0} for s in STRATEGIES}
    by_deal: dict[str, np.ndarray] = {s: np.zeros(deals) for s in STRATEGIES}
    pooled_by_deal: dict[int, float] = {}
    margin_worst = 0.0
    games = 0
    engines: set[str] = set()
    started = time.process_time()
    for spec in plan.chunks(config):
        result = play_chunk(spec)
        engines.add(result.engine)
        deal = np.frombuffer(result.games["deal"], dtype=np.int32)
        status = np.frombuffer(result.games["status"], dtype=np.int8)
        seating = np.frombuffer(result.games["seating"], dtype=np.int8)
        seats = result.seats
        luck = [np.frombuffer(s["luck"], dtype=np.float64) for s in seats]
        rolls = [np.frombuffer(s["rolls"], dtype=np.int16) for s in seats]
        totals = [
            np.frombuffer(s["par"], dtype=np.float64)
            + luck[i]
            - np.frombuffer(s["regret_pick"], dtype=np.float64)
            - np.frombuffer(s["regret_stop"], dtype=np.float64)
            - np.frombuffer(s["regret_claim"], dtype=np.float64)
            for i, s in enumerate(seats)
        ]
        worms = [np.frombuffer(s["worms"], dtype=np.int8).astype(float) for s in seats]
        over = status == 0
        margin_worst = max(
            margin_worst,
            float(np.abs((worms[0] - worms[1]) - (totals[0] - totals[1]))[over].max(initial=0)),
        )
        games += len(deal)
        for i in range(2):
            names = [spec.entrants[spec.orders[k][i]].name for k in seating]
            for name in set(names):
                mine = np.array([n == name for n in names])
                np.add.at(by_deal[name], deal[mine], luck[i][mine])
                cell = per[name]
                cell["luck"] += float(luck[i][mine].sum())
                cell["rolls"] += float(rolls[i][mine].sum())
            for d, value in zip(deal, luck[i], strict=True):
                pooled_by_deal[int(d)] = pooled_by_deal.get(int(d), 0.0) + float(value)
    out = {}
    for name, cell in per.items():
        ss = float((by_deal[name] ** 2).sum())
        z = cell["luck"] / math.sqrt(ss) if ss > 0 else float("nan")
        out[name] = {
            "rolls": int(cell["rolls"]),
            "mean_luck_per_roll": cell["luck"] / cell["rolls"] if cell["rolls"] else float("nan"),
            "z": z,
        }
    totals_by_deal = np.array(list(pooled_by_deal.values()))
    pooled_z = float(totals_by_deal.sum() / math.sqrt((totals_by_deal**2).sum()))
    return {
        "games": games,
        "engines": sorted(engines),
        "per_strategy": out,
        "pooled_z": pooled_z,
        "pooled_rolls": int(sum(c["rolls"] for c in per.values())),
        "margin_identity_worst": margin_worst,
        "cpu_s": time.process_time() - started,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=3000, help="deals per table (28 tables)")
    parser.add_argument("--turn-games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = {
        "unbiased": unbiased(args.deals, args.seed),
        "identity": identity(args.turn_games, args.seed),
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    u, i = result["unbiased"], result["identity"]
    print(f"Exact: {i['turns']:,} turns of {i['games']:,} games (2-4 players, every preset):")
    print(f"  largest |swing - (par + luck - regret)| = {i['worst_residual']:.2e}")
    print(
        f"  two-player margin identity over {u['games']:,} stored games: largest error "
        f"{u['margin_identity_worst']:.2e}"
    )
    print(f"Unbiased ({', '.join(u['engines'])} engine): mean luck per roll, z by deal")
    for name, cell in u["per_strategy"].items():
        print(
            f"  {name:<14} {cell['rolls']:>11,} rolls  {cell['mean_luck_per_roll']:+.6f}"
            f"  z {cell['z']:+.2f}"
        )
    print(f"  pooled: {u['pooled_rolls']:,} rolls, z {u['pooled_z']:+.2f}")


if __name__ == "__main__":
    main()
