"""What balanced seating removes: the seat-order bias of cyclic rotations at 3 players.

Under ``seating: cyclic`` a 3-player table plays the three rotations of one order, so
entrant 0 always plays immediately before entrant 1 (1 before 2, 2 before 0): a bust by
the one before can hand the next a tile, and the next is the first who may steal its top
tile (R7). Under ``seating: balanced`` (at 3 players: all six orders) every entrant
plays before every other equally often.

Two measurements, each on the same deals (the same seeds, duplicate dice) in both modes:

1. **Mirror.** Copies of one deterministic built-in (``--mirror``, default greedy) under
   display names of their own: three copies, and two copies with a filler
   (``--filler``, default random). Head-to-head share of the copy that sits just before
   another under cyclic ("A ahead of B", ties half; three copies: the three such pairs
   pooled per deal), with its 95% interval over deals, and its Elo. Under balanced it
   is exactly 1/2 with no spread: the copies are the same deterministic code, every
   order of a deal sees the same dice and the same ``view.rng`` seed (so the filler
   plays the same too), and the six orders hold every seat arrangement together with
   its mirror image (the two copies swapped): a deal's games come in pairs that are
   one game with the names of A and B swapped, so A's and B's results cancel exactly.
   Three copies alone show no bias in this measure (measured: a game's finishing
   order runs with the turn order about as often as against it); with a third,
   different player it shows: the copy just before its twin scores above 1/2.
2. **Field.** A real 3-player table (``--field``, default tactician, greedy, simple):
   each pair's head-to-head share in both modes and the paired difference (cyclic
   minus balanced, per deal, 95% interval). Cyclic fixes which of each pair sits just
   before the other; that is what the difference measures.

Intervals: the deal is the unit (all games of a deal share its dice), mean +- 1.96 x
standard error of the per-deal values. Default: 20,000 deals a mode, a few seconds on
the native engine. ``--json`` prints the figures as one JSON object.

    python benchmarks/seating_bias.py
    python benchmarks/seating_bias.py --deals 50000 --json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from itertools import permutations
from typing import Any

from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk

Z95 = 1.959964


def deal_shares(entrants: list[Any], mode: str, deals: int, seed: int, engine: str) -> Any:
    """Per deal, A's head-to-head share against B for every ordered pair (a, b) of table
    entrants: ``({(a, b): [share per deal]}, table names, seat orders)``."""
    config = load_config(
        {
            "name": "seating-bias",
            "players": 3,
            "entrants": entrants,
            "deals": deals,
            "seed": seed,
            "seating": mode,
            "dice": "duplicate",
            "chunk": min(deals, 5000),
            "engine": engine,
        }
    )
    (table,) = plan.tables(config)
    pairs = list(permutations(range(3), 2))
    points = {p: [0.0] * deals for p in pairs}
    games = {p: [0] * deals for p in pairs}
    orders = None
    for spec in plan.chunks(config, [table]):
        orders = spec.orders
        result = play_chunk(spec)
        ranks = [s["rank"] for s in result.seats]
        for row in range(result.rows):
            if result.games["status"][row] == 1:  # turn-capped: no result
                continue
            deal = result.games["deal"][row]
            order = orders[result.games["seating"][row]]
            for a, b in pairs:
                ra, rb = ranks[order.index(a)][row], ranks[order.index(b)][row]
                points[a, b][deal] += 1.0 if ra < rb else 0.5 if ra == rb else 0.0
                games[a, b][deal] += 1
    shares = {p: [x / g for x, g in zip(points[p], games[p], strict=True) if g] for p in pairs}
    return shares, table.names, orders


def interval(values: list[float]) -> dict[str, float]:
    """Mean, its 95% interval over deals, and the median of the per-deal values."""
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {
        "mean": mean,
        "low": mean - half,
        "high": mean + half,
        "median": statistics.median(values),
    }


def elo(share: float) -> float:
    """The Elo difference a head-to-head share stands for (inf at 0 or 1)."""
    if share <= 0.0:
        return -math.inf
    if share >= 1.0:
        return math.inf
    return 400.0 * math.log10(share / (1.0 - share))


def just_before(orders: Any) -> list[tuple[int, int]]:
    """The ordered pairs (a, b) with a immediately before b in every order of a design."""
    pairs = []
    for a, b in permutations(range(3), 2):
        if all(o[(o.index(a) + 1) % 3] == b for o in orders):
            pairs.append((a, b))
    return pairs


def mirror(strategy: str, filler: str | None, deals: int, seed: int, engine: str) -> dict[str, Any]:
    """The mirror's head-to-head share of the copy just before another copy (cyclic), in
    both modes: three copies (``filler`` None; the three such pairs pooled per deal) or
    two copies and a ``filler``."""
    copies = [strategy, f"{strategy}-b"] + ([] if filler else [f"{strategy}-c"])
    entrants: list[Any] = [strategy] + [{"strategy": strategy, "name": n} for n in copies[1:]]
    entrants += [filler] if filler else []
    out: dict[str, Any] = {"strategy": strategy, "filler": filler, "entrants": copies}
    before: list[tuple[int, int]] = []
    for mode in ("cyclic", "balanced"):  # cyclic first: it says which pairs to follow
        shares, table_names, orders = deal_shares(entrants, mode, deals, seed, engine)
        if not before:
            mine = {table_names.index(n) for n in copies}
            before = [p for p in just_before(orders) if set(p) <= mine]
        pooled = [statistics.fmean(v) for v in zip(*(shares[p] for p in before), strict=True)]
        stats = interval(pooled)
        stats.update(
            elo=elo(stats["mean"]),
            elo_low=elo(stats["low"]),
            elo_high=elo(stats["high"]),
            spread=statistics.pstdev(pooled),
            pairs=[f"{table_names[a]} before {table_names[b]}" for a, b in before],
        )
        out[mode] = stats
    return out


def field(entrants: list[str], deals: int, seed: int, engine: str) -> dict[str, Any]:
    cyclic, names, orders = deal_shares(entrants, "cyclic", deals, seed, engine)
    balanced, _, _ = deal_shares(entrants, "balanced", deals, seed, engine)
    before = set(just_before(orders))
    rows = []
    for a, b in sorted(cyclic):
        if a > b:
            continue
        diff = [c - x for c, x in zip(cyclic[a, b], balanced[a, b], strict=True)]
        rows.append(
            {
                "a": names[a],
                "b": names[b],
                "cyclic_seating": f"{names[a]} just before {names[b]}"
                if (a, b) in before
                else f"{names[b]} just before {names[a]}",
                "cyclic": interval(cyclic[a, b]),
                "balanced": interval(balanced[a, b]),
                "difference": interval(diff),
            }
        )
    return {"entrants": names, "pairs": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=40000, help="deals per mode (default 40000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mirror", default="greedy", help="deterministic built-in to mirror")
    parser.add_argument("--filler", default="random", help="third seat of the twins' table")
    parser.add_argument("--field", default="tactician,greedy,simple", help="3 built-ins")
    parser.add_argument("--engine", default="auto", choices=["auto", "python", "native"])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    result = {
        "deals": args.deals,
        "seed": args.seed,
        "mirror": mirror(args.mirror, None, args.deals, args.seed, args.engine),
        "twins": mirror(args.mirror, args.filler, args.deals, args.seed, args.engine),
        "field": field(args.field.split(","), args.deals, args.seed, args.engine),
    }
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result, default=lambda x: None if x != x else x))
        return
    print(f"{args.deals:,} deals a mode, duplicate dice, seed {args.seed}")
    for key in ("mirror", "twins"):
        m = result[key]
        what = (
            f"three copies of {m['strategy']}"
            if key == "mirror"
            else (f"two copies of {m['strategy']} and {m['filler']}")
        )
        print(f"3-player mirror, {what}: head-to-head share of the copy just before another")
        print(f"  (under cyclic: {', '.join(m['cyclic']['pairs'])})")
        for mode in ("cyclic", "balanced"):
            s = m[mode]
            print(
                f"    {mode:<9} {s['mean']:.4f}  95% CI {s['low']:.4f}-{s['high']:.4f}  "
                f"median {s['median']:.3f}  Elo {s['elo']:+.1f} ({s['elo_low']:+.1f} to "
                f"{s['elo_high']:+.1f})  per-deal spread {s['spread']:.3f}"
            )
    f = result["field"]
    print(f"3-player field {', '.join(f['entrants'])}: head-to-head share of A against B")
    for row in f["pairs"]:
        c, b, d = row["cyclic"], row["balanced"], row["difference"]
        print(
            f"    {row['a']} v {row['b']} (cyclic: {row['cyclic_seating']}): cyclic "
            f"{c['mean']:.4f} ({c['low']:.4f}-{c['high']:.4f}), balanced {b['mean']:.4f} "
            f"({b['low']:.4f}-{b['high']:.4f}), difference {d['mean']:+.4f} "
            f"({d['low']:+.4f} to {d['high']:+.4f})"
        )
    print(f"({result['wall_seconds']} s)")


if __name__ == "__main__":
    main()
