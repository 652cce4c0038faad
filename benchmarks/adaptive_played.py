"""Adaptive tournaments played through the runner: games, wrong orders, coverage, savings.

    python benchmarks/adaptive_played.py [--tournaments 200] [--first-seed 1]
                                         [--truth-deals 30000] [--truth-seed 900001]
                                         [--cap 20000] [--jobs 2] [--cache DIR] [--json]

adaptive_cs.py resamples pools of deals; this script plays whole tournaments. Eight
cheap native bots at 2 players (:data:`BOTS`: built-ins and parameterised ones), a round
robin of 28 tables with ``schedule: adaptive`` (zone 1 point, confidence 0.95 for the
whole run, batches of 100 deals, ``deals: --cap`` the most a table plays), each
tournament its own seed (``--first-seed`` onwards), played by
:func:`harness.tourney.run_tournament` itself (workers: 0, one tournament a process,
``--jobs`` processes): real games, the runner's own batches, verdicts and run folder.
Each seed is played twice, raw (``luck: off``) and luck-adjusted (``luck: on``): the
same games (the seed fixes the dice; the account does not change a move), two schedules.

**The truth** is a fixed round robin of the same 8 bots, ``--truth-deals`` deals a table
(both seat orders) on a seed no tournament uses, with the account: per pair, A's
head-to-head share, luck-adjusted (cross-fitted, the report's estimate) with its standard
error. A verdict is wrong when it contradicts the truth ("A ahead" while A's true share
is below 1/2, "tie" while it lies outside the zone); a pair whose truth lies within 3
standard errors of 1/2 or of the zone's edge is named (its right verdict is uncertain).

**What is read from each tournament.** Its run.json (how it ended, every comparison's
verdict, deals and reported interval) and its stored games: each pair's deals are fed
again, batch by batch, to :class:`harness.stats.PairSequence` (as the schedule feeds
them), which must give the run's verdicts and deals exactly (checked), and which gives
the interval at every look. Coverage: of the interval each comparison reports at its stop
(per interval, and all 28 of a run at once), and of every interval it showed at every
look (all 28 at once: what "every verdict holds at once" claims).

**The fixed round robin that reaches the same order** plays every table the same deals
(the same seed: the adaptive run's games are the first deals of the fixed run's tables).
Each pair is credited with the first batch end at which its fixed-sample interval
(normal, the run's alpha / 28 a pair, two-sided; the luck-adjusted one with the truth's
coefficient: an oracle) settles it by the verdicts' rule, read from the same stored deals
(a pair whose fixed interval does not settle by the adaptive stop is played further, alone:
the same table of the same seed plays the same games in a run of those two bots only); the
round robin is credited with the largest of these over the 28 pairs, every table playing
that many deals. A round robin that peeks at every batch end and needs each pair settled
only once, not all at once, is favoured twice over: the ratio is a lower bound on what
the adaptive schedule saves.

Each tournament's figures are cached in ``--cache`` (one JSON line a seed and kind), so
a stopped run resumes; the run folders are deleted once read.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import shutil
import sys
import time
from itertools import combinations
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from harness import stats
from harness.stats.sequential_cs import PairSequence, pair_verdict
from harness.tourney import run_tournament
from harness.tourney.adaptive.schedule import read_games

BOTS: list[Any] = [
    "tactician",
    {"strategy": "tactician", "params": {"caution": 3.0}},
    "simple",
    "greedy",
    "worm-first",
    "env-heuristic",
    {"strategy": "threshold", "params": {"target": 24}},
    {"strategy": "threshold", "params": {"target": 29}},
]
KINDS = ("raw", "adjusted")
CONFIDENCE = 0.95
ZONE = 0.01
BATCH = 100


def cpu_seconds() -> float:
    """CPU of this process and its waited-for children."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def adaptive_config(kind: str, seed: int, cap: int) -> dict[str, Any]:
    return {
        "name": f"played-{kind}",
        "entrants": BOTS,
        "deals": cap,
        "seed": seed,
        "luck": "on" if kind == "adjusted" else "off",
        "schedule": "adaptive",
        "target": {"zone": ZONE * 100, "confidence": CONFIDENCE, "batch": BATCH},
    }


def pair_deals(run_dir: Path, names: list[str]) -> dict[tuple[int, int], tuple[np.ndarray, ...]]:
    """Each pair's deals of a run folder, in deal order: (deal, Y, M, C), C nan where no
    game of the deal kept the account (as the schedule reads them)."""
    index = {n: i for i, n in enumerate(names)}
    p = len(names)
    parts = sorted((run_dir / "games").glob("*.parquet"))
    games = read_games(parts, index, 2)
    deal, key, y, m, c, a = stats.unit_totals(
        *stats.pair_points(games["deal"], games["strat"], games["rank"], games["wluck"], p), p * p
    )
    c = np.where(a > 0, c, np.nan)
    out = {}
    for i, j in combinations(range(p), 2):
        mine = key == i * p + j
        order = np.argsort(deal[mine], kind="stable")
        out[(i, j)] = tuple(v[mine][order] for v in (deal, y, m, c))
    return out


def names_of(run_dir: Path) -> list[str]:
    record = json.loads((run_dir / "run.json").read_text())
    return sorted({c for pair in record["adaptive"]["comparisons"] for c in (pair["a"], pair["b"])})


# -- the truth -------------------------------------------------------------------------
def truth(args: argparse.Namespace) -> dict[str, Any]:
    """The large fixed run (played once into --cache) and each pair's true share."""
    path = args.cache / f"truth-{args.truth_deals}-{args.truth_seed}.json"
    if path.exists():
        return json.loads(path.read_text())
    config = {
        "name": "played-truth",
        "entrants": BOTS,
        "deals": args.truth_deals,
        "seed": args.truth_seed,
        "luck": "on",
    }
    run = run_tournament(config, workers=args.jobs, out=args.cache / "truth", progress=False)
    names = sorted(str(n) for n in run.standings["strategy"])
    deals = pair_deals(Path(run.run_dir), names)
    pairs = {}
    for (i, j), (deal, y, m, c) in deals.items():
        cm = stats.ControlMoments.of(y, c, m, deal)
        raw, adj = cm.raw, cm.adjusted()
        pairs[f"{names[i]} v {names[j]}"] = {
            "a": names[i],
            "b": names[j],
            "deals": len(deal),
            "raw": raw.estimate,
            "raw_se": raw.se,
            "share": adj.estimate,
            "se": adj.se,
            "coef": cm.coef,
            "gain": cm.gain(),
        }
    out = {
        "names": names,
        "deals": args.truth_deals,
        "seed": args.truth_seed,
        "games": int(sum(v["deals"] for v in pairs.values()) * 2),
        "pairs": pairs,
    }
    path.write_text(json.dumps(out, indent=1))
    return out


def right(verdict: str, share: float, zone: float) -> bool:
    d = share - 0.5
    if verdict == "a":
        return d > 0
    if verdict == "b":
        return d < 0
    if verdict == "tie":
        return abs(d) < zone
    return True  # open: no claim


# -- one tournament ---------------------------------------------------------------------
def replay(
    deal: np.ndarray, y: np.ndarray, m: np.ndarray, c: np.ndarray, alpha: float, delta: float
) -> dict[str, Any]:
    """A pair's stored deals fed batch by batch as the schedule fed them: its verdict,
    deals, and whether every interval it showed covered ``delta``."""
    s = PairSequence(alpha=alpha, zone=ZONE)
    always = True
    for first in range(0, int(deal.max()) + 1 if len(deal) else 0, BATCH):
        mine = (deal >= first) & (deal < first + BATCH)
        s.add_batch(deal[mine], y[mine], m[mine], c[mine])
        low, high = s.interval()
        always &= bool(low <= delta <= high)
        if s.check() != "open":
            break
    return {"verdict": s.settled, "deals": s.deals, "always": always}


def fixed_reach(
    deal: np.ndarray, y: np.ndarray, m: np.ndarray, c: np.ndarray, coef: float, alpha: float
) -> int | None:
    """The first batch end at which the fixed-sample interval (normal, ``alpha``
    two-sided, adjusted with ``coef`` where c is kept) of a pair's deals settles it."""
    cc = np.where(np.isnan(c), 0.0, c)
    x = (y - coef * cc) / m - 0.5
    ends = np.arange(BATCH, len(x) + 1, BATCH)
    if not len(ends):
        return None
    s1, s2 = np.cumsum(x)[ends - 1], np.cumsum(x * x)[ends - 1]
    mean = s1 / ends
    var = np.maximum(s2 / ends - mean * mean, 0) * ends / np.maximum(ends - 1, 1)
    half = stats.z_quantile(1 - alpha) * np.sqrt(var / ends)
    for n, mu, h in zip(ends, mean, half, strict=True):
        if pair_verdict(mu - h, mu + h, ZONE) != "open":
            return int(n)
    return None


def extend(pair: tuple[str, str], kind: str, seed: int, deals: int, work: Path) -> Path:
    """The table of ``pair`` at ``seed`` played to ``deals`` alone (the same games)."""
    bots = [BOTS[bot_order.index(pair[0])], BOTS[bot_order.index(pair[1])]]
    config = {
        "name": "played-extend",
        "entrants": bots,
        "deals": deals,
        "seed": seed,
        "luck": "on" if kind == "adjusted" else "off",
    }
    run = run_tournament(config, workers=0, out=work, progress=False, fresh=True)
    return Path(run.run_dir)


bot_order: list[str] = []  # the display name of each of BOTS, in its order (set per process)


def tournament(job: tuple[str, int, int, dict[str, Any], str]) -> dict[str, Any]:
    kind, seed, cap, tr, scratch = job
    work = Path(scratch) / f"{kind}-{seed}"
    shutil.rmtree(work, ignore_errors=True)
    c0, t0 = cpu_seconds(), time.perf_counter()
    run = run_tournament(adaptive_config(kind, seed, cap), workers=0, out=work, progress=False)
    cpu, wall = cpu_seconds() - c0, time.perf_counter() - t0
    run_dir = Path(run.run_dir)
    record = json.loads((run_dir / "run.json").read_text())["adaptive"]
    names = names_of(run_dir)
    comps = {(c["a"], c["b"]): c for c in record["comparisons"]}
    k = len(comps)
    alpha = (1 - CONFIDENCE) / k
    deals = pair_deals(run_dir, names)
    games = 0
    pairs = {}
    for (i, j), (deal, y, m, c) in deals.items():
        a, b = names[i], names[j]
        t = tr["pairs"][f"{a} v {b}"]
        comp = comps[(a, b)]
        rep = replay(deal, y, m, c, alpha, t["share"] - 0.5)
        assert rep["verdict"] == comp["verdict"] and rep["deals"] == comp["deals"], (
            f"replay of {a} v {b} at seed {seed} ({kind}) differs from the run: {rep} {comp}"
        )
        games += int(m.sum())
        coef = t["coef"] if kind == "adjusted" else 0.0
        reach = fixed_reach(deal, y, m, c, coef, alpha)
        extended = 0
        more = comp["deals"]
        while reach is None and more < cap:  # play this table further, alone
            more = min(cap, 2 * more)
            ext = pair_deals(extend((a, b), kind, seed, more, work / "ext"), sorted((a, b)))
            reach = fixed_reach(*ext[(0, 1)], coef, alpha)
            extended = more
        pairs[f"{a} v {b}"] = {
            "verdict": comp["verdict"],
            "deals": comp["deals"],
            "games": comp["games"],
            "right": right(comp["verdict"], t["share"], ZONE),
            "covers": bool(comp["low"] <= t["share"] <= comp["high"]),
            "always": rep["always"],
            "fixed_reach": reach,
            "extended": extended,
        }
    reaches = [p["fixed_reach"] for p in pairs.values()]
    fixed = None if None in reaches else 2 * k * max(r for r in reaches if r is not None)
    shutil.rmtree(work, ignore_errors=True)
    return {
        "kind": kind,
        "seed": seed,
        "cap": cap,
        "ended": record["ended"],
        "batches": len(record["batches"]),
        "games": games,
        "fixed_games": fixed,
        "cpu": cpu,
        "wall": wall,
        "pairs": pairs,
    }


def _init(order: list[str]) -> None:
    bot_order[:] = order


def summary(rows: list[dict[str, Any]], tr: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in KINDS:
        rs = [r for r in rows if r["kind"] == kind]
        if not rs:
            continue
        games = np.array([r["games"] for r in rs], dtype=float)
        fixed = np.array([r["fixed_games"] or math.nan for r in rs], dtype=float)
        wrong = sum(any(not p["right"] for p in r["pairs"].values()) for r in rs)
        intervals = [p for r in rs for p in r["pairs"].values()]
        every_stop = sum(all(p["covers"] for p in r["pairs"].values()) for r in rs)
        every_look = sum(all(p["always"] for p in r["pairs"].values()) for r in rs)
        per_pair = {}
        for name in tr["pairs"]:
            ps = [r["pairs"][name] for r in rs]
            per_pair[name] = {
                "deals_mean": float(np.mean([p["deals"] for p in ps])),
                "wrong": sum(not p["right"] for p in ps),
                "covers": float(np.mean([p["covers"] for p in ps])),
                "verdicts": {
                    v: sum(p["verdict"] == v for p in ps) for v in ("a", "b", "tie", "open")
                },
            }
        out[kind] = {
            "tournaments": len(rs),
            "mean_games": float(games.mean()),
            "median_games": float(np.median(games)),
            "p5_p95_games": [float(np.percentile(games, 5)), float(np.percentile(games, 95))],
            "fixed_mean_games": float(np.nanmean(fixed)),
            "fixed_unreached": int(np.isnan(fixed).sum()),
            # a round robin sized beforehand to settle every pair in 95% of tournaments
            "fixed_p95_games": float(np.nanpercentile(fixed, 95)),
            "ratio_of_means": float(np.nanmean(fixed) / games.mean()),
            "median_ratio": float(np.nanmedian(fixed / games)),
            "wrong_tournaments": wrong,
            "wrong_ci": list(stats.wilson(wrong, len(rs))),
            "open_pairs": sum(p["verdict"] == "open" for p in intervals),
            "coverage_per_interval": float(np.mean([p["covers"] for p in intervals])),
            "coverage_run_at_stop": every_stop / len(rs),
            "coverage_run_every_look": every_look / len(rs),
            "extended_pairs": sum(bool(p["extended"]) for p in intervals),
            "cpu": float(sum(r["cpu"] for r in rs)),
            "cpu_per_tournament": float(np.median([r["cpu"] for r in rs])),
            "per_pair": per_pair,
        }
    if "raw" in out and "adjusted" in out:
        out["fixed_raw_over_adaptive_adjusted"] = (
            out["raw"]["fixed_mean_games"] / out["adjusted"]["mean_games"]
        )
        out["fixed_raw_p95_over_adaptive_adjusted"] = (
            out["raw"]["fixed_p95_games"] / out["adjusted"]["mean_games"]
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tournaments", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--truth-deals", type=int, default=30000)
    ap.add_argument("--truth-seed", type=int, default=900001)
    ap.add_argument("--cap", type=int, default=20000, help="deals: the most a table plays")
    ap.add_argument("--kind", choices=(*KINDS, "both"), default="both")
    ap.add_argument("--jobs", type=int, default=2, help="tournaments played at once")
    ap.add_argument("--cache", type=Path, default=Path("results/adaptive_played"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.tournaments < 1 or args.cap < BATCH or args.truth_deals < BATCH or args.jobs < 1:
        print("Error: --tournaments, --jobs at least 1; --cap, --truth-deals at least 100")
        return 2
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    args.cache.mkdir(parents=True, exist_ok=True)
    tr = truth(args)
    say(f"truth: {tr['games']:,} games ({tr['deals']:,} deals a pair, seed {tr['seed']})")
    for name, t in tr["pairs"].items():
        d, se = t["share"] - 0.5, t["se"]
        near = min(abs(d), abs(abs(d) - ZONE)) < 3 * se
        say(
            f"  {name:<48} {t['share']:.4f} +- {se:.4f} (raw {t['raw']:.4f}, "
            f"variance raw/adjusted {t['gain']:.2f}){'  NEAR AN EDGE' if near else ''}"
        )
    from harness.tourney import load_config

    order = [e.name for e in load_config(adaptive_config("raw", 1, args.cap)).entrants]
    results = args.cache / f"tournaments-{args.cap}-{args.truth_deals}-{args.truth_seed}.jsonl"
    done: dict[tuple[str, int], dict[str, Any]] = {}
    if results.exists():
        for line in results.read_text().splitlines():
            r = json.loads(line)
            done[(r["kind"], r["seed"])] = r
    kinds = KINDS if args.kind == "both" else (args.kind,)
    seeds = range(args.first_seed, args.first_seed + args.tournaments)
    jobs = [
        (kind, seed, args.cap, tr, str(args.cache / "scratch"))
        for seed in seeds
        for kind in kinds
        if (kind, seed) not in done
    ]
    started = time.perf_counter()
    pool = Pool(args.jobs, initializer=_init, initargs=(order,))
    with pool, results.open("a") as sink:
        for n, r in enumerate(pool.imap_unordered(tournament, jobs), 1):
            sink.write(json.dumps(r) + "\n")
            sink.flush()
            done[(r["kind"], r["seed"])] = r
            if not args.json and (n % 20 == 0 or n == len(jobs)):
                say(f"  {n} of {len(jobs)} played ({time.perf_counter() - started:.0f} s)")
    rows = [done[(kind, seed)] for seed in seeds for kind in kinds]
    s = summary(rows, tr)
    if args.json:
        print(json.dumps({"truth": tr, "summary": s}, indent=1))
        return 0
    print(
        f"\n{len(seeds)} tournaments of {len(BOTS)} bots at 2 players "
        f"(seeds {seeds[0]}-{seeds[-1]}):"
    )
    for kind in kinds:
        r = s[kind]
        print(
            f"  {kind:<8} adaptive {r['mean_games']:9,.0f} games (median {r['median_games']:,.0f}, "
            f"5-95% {r['p5_p95_games'][0]:,.0f}-{r['p5_p95_games'][1]:,.0f}); fixed round robin "
            f"{r['fixed_mean_games']:9,.0f} ({r['fixed_unreached']} never): "
            f"{r['ratio_of_means']:.1f}x fewer (median ratio {r['median_ratio']:.1f}x; sized for "
            f"95% of them {r['fixed_p95_games']:,.0f}: "
            f"{r['fixed_p95_games'] / r['mean_games']:.1f}x)\n"
            f"           wrong orders {r['wrong_tournaments']} of {r['tournaments']} "
            f"[{r['wrong_ci'][0]:.1%}, {r['wrong_ci'][1]:.1%}], open pairs {r['open_pairs']}; "
            f"coverage: per interval at its stop {r['coverage_per_interval']:.2%}, all 28 at "
            f"their stops {r['coverage_run_at_stop']:.1%}, all 28 at every look "
            f"{r['coverage_run_every_look']:.1%}; {r['extended_pairs']} pairs played further "
            f"for the fixed credit; {r['cpu']:.0f} CPU-s ({r['cpu_per_tournament']:.2f} a "
            "tournament, median)"
        )
        for name, p in r["per_pair"].items():
            if p["deals_mean"] > 300 or p["wrong"]:
                print(
                    f"    {name:<48} deals {p['deals_mean']:7.0f}  wrong {p['wrong']:3d}  "
                    f"covers {p['covers']:.1%}  {p['verdicts']}"
                )
    if "fixed_raw_over_adaptive_adjusted" in s:
        print(
            "  fixed raw round robin / adaptive luck-adjusted: "
            f"{s['fixed_raw_over_adaptive_adjusted']:.1f}x (sized for 95%: "
            f"{s['fixed_raw_p95_over_adaptive_adjusted']:.1f}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
