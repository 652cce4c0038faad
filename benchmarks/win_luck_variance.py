"""Win luck (the win-unit account's luck, stored as ``winluck``, and its vector, ``winvec``)
against win-weighted worm luck (``wluck``) as the control of luck-adjusted win shares: the
variance per deal, raw over adjusted, side by side, and that no adjustment moves the
estimate.

    python benchmarks/win_luck_variance.py [--deals 20000] [--seed 1] [--only 2p]
                                           [--field A,B ...] [--workers 1] [--engine auto]
                                           [--rules PRESET] [--json]

Pools as luck_pool.py's (one table of a field, every cyclic seat rotation, duplicate
dice, ``luck: on``), played by the runner's chunk function (``--engine``: auto, the native
engine where it plays, or python: both keep the win account beside the worm one, bit for
bit), so each game stores both controls.

Per target (a field member's win share; at 3-4 players also each pair's head to head):
raw estimate, adjusted by wluck, by winluck and by winvec (the product's control where
stored: each roll's luck in every seat's chance; at 2 players the same as winluck's;
coefficient cross-fitted on two folds of deals, harness.stats.ControlMoments), z =
(adjusted - raw) / its standard error, and gain = (raw se / adjusted se)^2 with a
jackknife standard error (luck_variance.py).

The evaluator behind winluck is harness.winprob's for the rules (``--rules``, a preset):
the shipped model where one is installed (a preset's own where it has one), the normal
approximation elsewhere (printed per pool).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from multiprocessing import Pool
from typing import Any

import numpy as np
from luck_pool import DealPool, deal_totals
from luck_variance import jackknife_gain, moments

from harness.errors import HarnessError
from harness.game.rules import PRESETS
from harness.play.building import build_strategies
from harness.runfolder.schema import OVER
from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk

FIELDS = ("rank", "worms", "luck", "wluck", "winluck", "winvec")
GROUPS = {
    "2p": [("greedy", "worm-first"), ("optimal", "simple")],
    "3p": [("greedy", "worm-first", "tactician")],
    "4p": [("greedy", "worm-first", "tactician", "simple")],
}
CHUNK_DEALS = 500
CONTROLS = ("wluck", "winluck", "winvec")  # the win share's controls set side by side


def _play(job: tuple[Any, dict[str, int]]) -> tuple[dict[str, np.ndarray], float, str]:
    spec, index = job
    result = play_chunk(spec)
    n, k = spec.rules.players, len(spec.orders)
    deals = spec.stop - spec.first

    def column(name: str) -> np.ndarray:
        seats = [np.asarray(result.seats[i][name], dtype=float) for i in range(n)]
        return np.stack(seats, axis=-1).reshape(deals, k, n)

    out = {name: column(name) for name in FIELDS}
    seating = np.asarray(result.games["seating"]).reshape(deals, k)
    of_entrant = np.array([index[e.name] for e in spec.entrants])
    out["strat"] = of_entrant[np.asarray(spec.orders)[seating]]
    out["over"] = np.asarray(result.games["status"]).reshape(deals, k) == OVER
    return out, result.cpu, result.engine


def play(
    field: tuple[str, ...],
    deals: int,
    seed: int,
    workers: int,
    engine: str = "auto",
    rules: str = "official",
) -> DealPool:
    """The pool of ``field`` on ``deals`` deals under the preset ``rules``, both controls
    kept."""
    config = load_config(
        {
            "name": "win-luck-pool",
            "rules": rules,
            "players": len(field),
            "entrants": list(field),
            "deals": deals,
            "seed": seed,
            "seating": "cyclic",
            "luck": "win",
            "engine": engine,
            "chunk": min(deals, CHUNK_DEALS),
        }
    )
    index = {e.name: i for i, e in enumerate(config.entrants)}
    jobs = [(spec, index) for spec in plan.chunks(config)]
    if workers > 1:
        with Pool(workers) as pool:
            parts = pool.map(_play, jobs)
    else:
        parts = [_play(job) for job in jobs]
    data = {k: np.concatenate([p[0][k] for p in parts]) for k in (*FIELDS, "strat", "over")}
    data["strat"] = data["strat"].astype(np.int64)
    data["rank"] = data["rank"].astype(np.int64)
    engines = ",".join(sorted({p[2] for p in parts}))
    return DealPool(field, len(field), seed, data, sum(p[1] for p in parts), engines)


def _row(y: np.ndarray, m: np.ndarray, c: np.ndarray) -> dict[str, float]:
    cm = moments(y, m, c)
    raw, adj, corr = cm.raw, cm.adjusted(), cm.correction()
    return {
        "raw": raw.estimate,
        "raw_se": raw.se,
        "adjusted": adj.estimate,
        "adjusted_se": adj.se,
        "z": corr.estimate / corr.se if corr.se > 0 else float("nan"),  # a pool too small
        "coef": cm.coef,
        "gain": cm.gain(),
        "gain_se": jackknife_gain(y, m, c),
    }


def least_squares_gain(y: np.ndarray, m: np.ndarray, *controls: np.ndarray) -> float:
    """Variance of the per-deal means over that of their residual after a least-squares
    fit on the controls' per-deal means (in sample, no folds: a bound on what a
    combination of the controls could take out, not an estimator)."""
    target = y / m
    x = np.column_stack([np.ones_like(target), *(c / m for c in controls)])
    coef, *_ = np.linalg.lstsq(x, target, rcond=None)
    with np.errstate(invalid="ignore", divide="ignore"):  # a pool with no spread: nan
        return float(np.var(target) / np.var(target - x @ coef))


def with_control(p: DealPool, field: str) -> DealPool:
    """The pool with ``field``'s values where deal_totals reads the win share's control."""
    return replace(p, data={**p.data, "wluck": p.data[field]})


def targets(p: DealPool) -> list[tuple[str, int, int | None, str]]:
    """(kind, a, b, name) of every target: each member's win share (at 2 players the
    first's: the other's is its complement) and, at 3 players or more, each pair's head
    to head."""
    kinds = [("win", a, None) for a in range(1 if p.players == 2 else p.players)]
    if p.players > 2:
        kinds += [("h2h", a, b) for a in range(p.players) for b in range(a + 1, p.players)]
    return [
        (kind, a, b, p.field[a] if b is None else f"{p.field[a]} v {p.field[b]}")
        for kind, a, b in kinds
    ]


def measure(p: DealPool) -> dict[str, Any]:
    """Every target of the pool with each control; also what the win control and the
    other stored controls together could take out (:func:`least_squares_gain`): at 2
    players win luck with a second control, at 3-4 the vector with all of them."""
    by_win, by_luck = with_control(p, "winluck"), with_control(p, "luck")
    by_vector = with_control(p, "winvec")
    rows = []
    for kind, a, b, name in targets(p):
        y, m, c = deal_totals(p, kind, a, b)
        _, _, cw = deal_totals(by_win, kind, a, b)
        _, _, cv = deal_totals(by_vector, kind, a, b)
        row = {"kind": kind, "target": name, "wluck": _row(y, m, c), "winluck": _row(y, m, cw),
               "winvec": _row(y, m, cv)}  # fmt: skip
        _, _, cl = deal_totals(by_luck, kind, a, b)
        if p.players == 2:
            row["least_squares"] = {
                "winluck": least_squares_gain(y, m, cw),
                "winluck+wluck": least_squares_gain(y, m, cw, c),
                "winluck+luck": least_squares_gain(y, m, cw, cl),
            }
        else:  # the vector, then every stored control beside it
            row["least_squares"] = {
                "winvec": least_squares_gain(y, m, cv),
                "winvec+winluck+wluck+luck": least_squares_gain(y, m, cv, cw, c, cl),
            }
        rows.append(row)
    return {
        "field": list(p.field),
        "players": p.players,
        "deals": p.deals,
        "games": p.games,
        "cpu_ms_per_game": 1000 * p.cpu / max(p.games, 1),
        "engine": p.engine,
        "rows": rows,
    }


def evaluator_of(players: int, rules: str = "official") -> str:
    """What the win account's evaluator is at ``players`` under the preset ``rules`` (a
    model, the preset's own or the official rules', or the approximation)."""
    from harness.game.rules import Rules
    from harness.winprob import evaluator

    return evaluator(Rules.preset(rules, players)).describe()


def print_result(r: dict[str, Any]) -> None:
    print(
        f"\n{', '.join(r['field'])} ({r['players']} players): {r['deals']:,} deals, "
        f"{r['games']:,} games, {r['cpu_ms_per_game']:.2f} ms CPU a game ({r['engine']})"
    )
    print(
        f"  {'target':<34} {'raw':>16} | {'wluck: gain':>14} {'z':>6} | "
        f"{'winluck: gain':>15} {'z':>6} | {'winvec: gain':>14} {'z':>6}"
    )
    for row in r["rows"]:
        w, v, x = row["wluck"], row["winluck"], row["winvec"]
        print(
            f"  {row['kind'] + ' ' + row['target']:<34} {w['raw']:8.4f} +-{w['raw_se']:.4f} | "
            f"{w['gain']:6.2f} +-{w['gain_se']:.2f} {w['z']:+6.2f} | "
            f"{v['gain']:7.2f} +-{v['gain_se']:.2f} {v['z']:+6.2f} | "
            f"{x['gain']:6.2f} +-{x['gain_se']:.2f} {x['z']:+6.2f}"
        )
        if "least_squares" in row:
            ls = row["least_squares"]
            print("    in-sample least squares on deal means: " + ", ".join(
                f"{k} {g:.2f}" for k, g in ls.items()))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=20000, help="deals per pool")
    ap.add_argument("--engine", default="auto", choices=("auto", "python"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--only", action="append", choices=tuple(GROUPS), help="(repeatable)")
    ap.add_argument(
        "--field",
        action="append",
        default=[],
        help="a pool of its own instead, e.g. win-optimal,optimal (repeatable)",
    )
    ap.add_argument("--rules", default="official", choices=tuple(PRESETS),
                    help="the preset the pools are played under")  # fmt: skip
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.field and args.only:
        ap.error("--field or --only, not both")
    own = [tuple(f.split(",")) for f in args.field]
    for field in own:  # a name the runner does not know: one line, before any game
        try:
            build_strategies(field)
        except HarnessError as exc:
            ap.error(f"--field {','.join(field)}: {exc}")
    results = []
    for fields in [own] if own else [GROUPS[g] for g in args.only or GROUPS]:
        for field in fields:
            started = time.monotonic()
            pool = play(field, args.deals, args.seed, args.workers, args.engine, args.rules)
            result = measure(pool)
            result["rules"] = args.rules
            result["evaluator"] = evaluator_of(len(field), args.rules)
            result["wall_s"] = time.monotonic() - started
            results.append(result)
            if not args.json:
                print_result(result)
                print(f"  (win account's evaluator: {result['evaluator']})")
                sys.stdout.flush()
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        zs = [row[c]["z"] for r in results for row in r["rows"] for c in CONTROLS]
        print(f"\n{len(zs)} adjusted estimates: |z| max {max(abs(z) for z in zs):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
