"""SPRT error rates and games to a verdict, raw against luck-adjusted, side by side.

    python benchmarks/luck_sprt.py [--runs 1000] [--gap 10] [--pool-deals 20000]
                                   [--pairing greedy,tactician ...] [--control wluck|winluck]
                                   [--tests raw,normal,adjusted] [--cache results/luck_pools]
                                   [--json]

A resampling world: a pool of played 2-player deals with the account (luck_pool.py: both
seat orders on duplicate dice) is the population, and a run draws its deals from it with
replacement, in an order fixed by the run's seed. The pool's mean deal score (A's share
of the games where A finished ahead of B) is then the known truth, at ``elo_true`` =
score_to_elo(mean), and the control (per deal, the mean over its games of W_A - W_B,
the seats' win-weighted luck; with ``--control winluck``, W is the stored win luck, from
pools played with ``luck: win``, what ``harness sprt --luck win`` adjusts by) is centred
on the pool so that it has mean exactly 0 in this world, as in the real one. Two worlds
per pairing, each with ``--runs`` runs:

* H0 true: elo0 = elo_true, elo1 = elo_true + gap (accepting H1 is the error);
* H1 true: elo0 = elo_true - gap, elo1 = elo_true (accepting H0 is the error).

Every run feeds the same deals, in the same order, to three tests, each looked at after
every check of 50 deals, as ``harness sprt`` looks at 2 players:

* raw: harness.stats.Sprt, the pentanomial GSPRT ``harness sprt`` runs today;
* normal: harness.stats.AdjustedSprt fed no control: the continuous test on raw scores
  (what the test's form alone changes);
* adjusted: AdjustedSprt with the control: each deal's score minus a coefficient fitted
  on the deals before it.

``--tests`` chooses the tests (raw and adjusted always; ``normal`` is a diagnostic; with
``--control winluck``, ``adjusted_wluck`` adds the adjusted test on the same deals with
the win-weighted worm luck as its control, the two controls side by side).

Printed per world and test: the error rate with its 95% interval (Wilson), the mean and
median deals to a verdict, and raw's mean over adjusted's (the games saved). Wald's
bounds with alpha = beta = 0.05. A run that reaches ``--max-deals`` stops undecided
(counted, not an error). A deal drawn twice in one run lets its first copy inform the
coefficient applied to the second (a small leak the real test cannot have): runs of about
1,000 deals from a pool of 20,000 repeat a few dozen deals, which moves nothing
measurable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from luck_pool import CONTROLS, centred, deal_totals, pool

from harness import stats

PAIRINGS = ["greedy,tactician", "greedy,worm-first", "optimal,simple"]
CHECK_DEALS = 50  # harness sprt's check at 2 players: CHECK_GAMES / games a deal
TESTS = ("raw", "normal", "adjusted", "adjusted_wluck")


def one_run(
    score: np.ndarray,
    control: np.ndarray,
    elo0: float,
    elo1: float,
    seed: int,
    max_deals: int,
    names: tuple[str, ...] = ("raw", "normal", "adjusted"),
    worm: np.ndarray | None = None,
) -> dict[str, tuple[str, int]]:
    """(verdict, deals) of each test of ``names`` on one resampled run (``worm``: the
    win-weighted worm luck per deal, the control of ``adjusted_wluck``)."""
    rng = np.random.default_rng(seed)
    tests = {
        name: stats.Sprt(elo0, elo1) if name == "raw" else stats.AdjustedSprt(elo0, elo1)
        for name in names
    }
    controls = {"normal": None, "adjusted": control, "adjusted_wluck": worm}
    done: dict[str, tuple[str, int]] = {}
    deals = 0
    while len(done) < len(tests) and deals < max_deals:
        rows = rng.integers(0, len(score), CHECK_DEALS)
        s = score[rows]
        for name, test in tests.items():
            if name in done:
                continue
            if name == "raw":
                for x in s:
                    test.add(float(x))
            elif controls[name] is None:
                for x in s:
                    test.add(float(x), None)
            else:
                for x, y in zip(s, controls[name][rows], strict=True):
                    test.add(float(x), float(y))
        deals += CHECK_DEALS
        for name, test in tests.items():
            if name not in done and test.status != "continue":
                done[name] = (test.status, deals)
    for name in tests:
        done.setdefault(name, ("undecided", deals))
    return done


def world(score, control, elo0, elo1, truth_h, args, worm=None) -> dict[str, Any]:
    """The runs of one world and their tallies per test."""
    names = tests_of(args, worm is not None)
    runs = [
        one_run(score, control, elo0, elo1, seed, args.max_deals, names, worm)
        for seed in range(args.runs)
    ]
    wrong = "H0" if truth_h == "H1" else "H1"
    out: dict[str, Any] = {"truth": truth_h, "elo0": elo0, "elo1": elo1, "tests": {}}
    for name in names:
        verdicts = [r[name][0] for r in runs]
        deals = np.array([r[name][1] for r in runs], dtype=float)
        errors = sum(v == wrong for v in verdicts)
        lo, hi = stats.wilson(errors, len(runs))
        out["tests"][name] = {
            "error_rate": errors / len(runs),
            "error_low": lo,
            "error_high": hi,
            "undecided": sum(v == "undecided" for v in verdicts),
            "mean_deals": float(deals.mean()),
            "median_deals": float(np.median(deals)),
            "mean_games": float(deals.mean()) * 2,
        }
    t = out["tests"]
    out["games_ratio"] = t["raw"]["mean_deals"] / t["adjusted"]["mean_deals"]
    out["median_ratio"] = t["raw"]["median_deals"] / t["adjusted"]["median_deals"]
    for name in ("normal", "adjusted_wluck"):
        if name in t:
            out[f"games_ratio_{name}"] = t[name]["mean_deals"] / t["adjusted"]["mean_deals"]
    return out


def tests_of(args: argparse.Namespace, worm: bool = False) -> tuple[str, ...]:
    """The tests to run, in :data:`TESTS`'s order (raw and adjusted always;
    ``adjusted_wluck`` only where the control is winluck, ``worm`` True)."""
    default = "raw,normal,adjusted"
    asked = {"raw", "adjusted", *(getattr(args, "tests", default) or "").split(",")} - {""}
    unknown = asked - set(TESTS)
    if unknown:
        raise SystemExit(f"--tests: unknown {', '.join(sorted(unknown))}; known: {TESTS}")
    if not worm:
        asked.discard("adjusted_wluck")
    return tuple(t for t in TESTS if t in asked)


def measure(pairing: str, args: argparse.Namespace, say: Any) -> dict[str, Any]:
    field = tuple(pairing.split(","))
    control_name = getattr(args, "control", "wluck")
    luck = "on" if control_name == "wluck" else "win"
    p = pool(field, 2, args.pool_deals, args.seed, args.workers, args.cache, say, luck)
    y, m, c = deal_totals(p.controlled_by(control_name), "h2h", 0, 1)
    score, control = y / m, centred(y, m, c) / m
    mean = float(score.mean())
    elo_true = stats.score_to_elo(mean)
    cm = stats.ControlMoments.of(y, centred(y, m, c), m)
    worm, worm_ratio = None, None
    if control_name != "wluck":  # the same deals' win-weighted worm luck, beside it
        _, _, cw = deal_totals(p, "h2h", 0, 1)
        worm = centred(y, m, cw) / m
        worm_ratio = stats.ControlMoments.of(y, centred(y, m, cw), m).gain()
    return {
        "pairing": list(field),
        "control": control_name,
        "pool_deals": p.deals,
        "score": mean,
        "elo_true": elo_true,
        "gap": args.gap,
        "variance_ratio": cm.gain(),
        "variance_ratio_wluck": worm_ratio,
        "coef": cm.coef,
        "worlds": [
            world(score, control, elo_true, elo_true + args.gap, "H0", args, worm),
            world(score, control, elo_true - args.gap, elo_true, "H1", args, worm),
        ],
    }


def print_result(r: dict[str, Any]) -> None:
    print(
        f"\n{' v '.join(r['pairing'])}: pool of {r['pool_deals']:,} deals, truth "
        f"{r['score']:.4f} ({r['elo_true']:+.1f} Elo); per-deal variance raw/adjusted "
        f"{r['variance_ratio']:.2f} (coef {r['coef']:.2f}; control {r.get('control', 'wluck')})"
    )
    if r.get("variance_ratio_wluck") is not None:
        print(f"  per-deal variance raw/adjusted by wluck: {r['variance_ratio_wluck']:.2f}")
    for w in r["worlds"]:
        others = "".join(
            f", {name}/adjusted {w[f'games_ratio_{name}']:.2f}"
            for name in ("normal", "adjusted_wluck")
            if f"games_ratio_{name}" in w
        )
        print(
            f"  {w['truth']} true (elo0 {w['elo0']:+.1f}, elo1 {w['elo1']:+.1f}): games "
            f"raw/adjusted {w['games_ratio']:.2f} (medians {w['median_ratio']:.2f}){others}"
        )
        for name, t in w["tests"].items():
            print(
                f"    {name:<14} error {t['error_rate']:6.1%} [{t['error_low']:5.1%}, "
                f"{t['error_high']:5.1%}]  deals mean {t['mean_deals']:8.0f} median "
                f"{t['median_deals']:7.0f}  undecided {t['undecided']}"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="runs per world")
    ap.add_argument("--gap", type=float, default=10.0, help="elo1 - elo0")
    ap.add_argument("--pool-deals", type=int, default=20000)
    ap.add_argument("--max-deals", type=int, default=200_000, help="a run's limit")
    ap.add_argument("--pairing", action="append", help=f"(repeatable; default {PAIRINGS})")
    ap.add_argument("--seed", type=int, default=1, help="the pools' seed")
    ap.add_argument("--workers", type=int, default=1, help="processes to play pools with")
    ap.add_argument("--cache", type=Path, default=None, help="folder of played pools")
    ap.add_argument(
        "--control", choices=CONTROLS, default="wluck", help="the adjusted test's control"
    )
    ap.add_argument(
        "--tests",
        default="raw,normal,adjusted",
        help=f"which of {', '.join(TESTS)} (comma-separated; adjusted_wluck: with "
        "--control winluck, the same deals adjusted by wluck)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    tests_of(args)  # an unknown test: one line, before any pool is played
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    results = []
    for pairing in args.pairing or PAIRINGS:
        results.append(measure(pairing, args, say))
        if not args.json:
            print_result(results[-1])
    if args.json:
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
