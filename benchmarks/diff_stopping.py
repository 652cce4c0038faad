"""The diff's sequential rule (harness.coach.stopping): its error rates, checked by simulation.

    python benchmarks/diff_stopping.py [--deals 500] [--runs 4000] [--seed 1] [--json]

Without ``--deals``, ``harness diff`` looks at B's gain per game at 20, 40, 80, 160, 320
and 500 deals and stops at the first look where the interval at the level 1 - 0.05 / 6
excludes 0 (*separated*) or lies within +-0.05 worms per game (*equivalent*). The
docstring of harness/coach/stopping.py states its error rates; this script checks them:

1. For each pair of bots below, a real diff of ``--deals`` deals (seed ``--seed``) gives
   each deal's B's gain and completed games (both sides' games): the *population*.
2. **False separation** (the true gain 0): each parting's gain is moved by the same
   amount so that the population's gain per game is 0 (a deal where the bots never part
   keeps its 0, as it would whatever the true gain), then ``--runs`` sequences of
   ``--deals`` deals are drawn from it with replacement and the rule is run on each. The
   share that end *separated* must be at most 5% (and each side's at most 2.5%).
3. **False equivalence** (the true gain +-DELTA): the same with the population shifted to
   a gain of +DELTA and of -DELTA per game: the share that end *equivalent* must be at
   most 2.5% each way.
4. **As played** (the population as it is): the share of runs whose answer agrees with
   the full sample's (its 95% interval at ``--deals`` deals: separated one way, or not;
   where the full sample's gain is within DELTA of 0, "equivalent" agrees too), and the
   deals the rule took (median, 90th percentile), against ``--deals`` always.

Draws keep each deal whole (its games and gains together), as the intervals cluster by
deal. The pairs: large differences (greedy / tactician, threshold 26 / 27 against
greedy, the example plugin at two targets: examples/my_bot.py), close ones (tactician
at two cautions; optimal with its end game from 4 tiles or from 3) and a bot against
itself.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from functools import cache
from typing import Any

from harness.coach import stopping
from harness.coach.differ import deal_gains, diff
from harness.stats import Moments
from harness.stats.intervals import t_quantile

PAIRS = [
    ("greedy", "tactician", ["simple"]),
    ("threshold(target=26)", "threshold(target=27)", ["greedy"]),
    ("tactician", "tactician(caution=1.7)", ["simple"]),
    ("optimal", "optimal(endgame=3)", ["tactician"]),
    ("examples/my_bot.py:WormHunter", "examples/my_bot.py:WormHunter(target=28)", ["simple"]),
    ("greedy", "greedy", ["simple"]),
]


def population(a: str, b: str, opponents: list[str], deals: int, seed: int) -> dict[str, Any]:
    """Each deal's B's gain, completed games and partings, over both sides, from a diff."""
    started = time.process_time()
    # in worms: the rule's DELTA below is the worm unit's (its figures in docs/coach.md
    # were measured in worms; the win unit's zone is stopping.WIN_DELTA)
    d = diff(a, b, opponents=opponents, deals=deals, seed=seed, examples=0, unit="worms")
    gains, games, parted = deal_gains(list(d.sides.values()))
    full = Moments.of(gains, games)
    low, high = full.interval()
    says = "separated" if low > 0 or high < 0 else "not separated"
    if not any(parted):
        says = "identical"
    return {
        "pair": f"{a} / {b}",
        "gains": gains,
        "games": games,
        "parted": parted,
        "gain_per_game": full.estimate,
        "full_95": [low, high],
        "full_says": says,
        "full_sign": 0 if says != "separated" else (1 if low > 0 else -1),
        "cpu_seconds": time.process_time() - started + d.cpu,
    }


@cache
def _t(level: float, df: float) -> float:
    return t_quantile(level, df)


def run_rule(
    gains: list[float], games: list[float], parted: list[float], looks: list[int]
) -> tuple[str, int, int]:
    """The rule on one sequence of deals: its answer, the deals it took, and the sign of
    a separation (0 otherwise). Equal to :func:`harness.coach.stopping.look` at each look
    (checked on the first runs), faster: running sums."""
    sy = sm = syy = smm = sym = 0.0
    k = with_partings = 0
    count = len(looks)
    at = 0
    for i, (y, m, p) in enumerate(zip(gains, games, parted, strict=True), 1):
        sy += y
        sm += m
        syy += y * y
        smm += m * m
        sym += y * m
        k += m > 0
        with_partings += p > 0
        if i != looks[at]:
            continue
        last = at == count - 1
        at += 1
        if not last and with_partings < stopping.MIN_PARTED:
            continue
        if with_partings == 0:
            return "identical", i, 0
        if k < 2 or sm <= 0:
            return "not separated", i, 0
        r = sy / sm
        ss = max(syy - 2 * r * sym + r * r * smm, 0.0)
        se = math.sqrt(ss * k / (k - 1)) / sm
        t = _t(1 - stopping.ALPHA / count, k - 1)
        low, high = r - t * se, r + t * se
        if low > 0 or high < 0:
            return "separated", i, 1 if low > 0 else -1
        if low > -stopping.DELTA and high < stopping.DELTA:
            return "equivalent", i, 0
        if last:
            return "not separated", i, 0
    raise AssertionError("the last look is the last deal")


def shifted(pop: dict[str, Any], target: float) -> list[float]:
    """The population's gains with its gain per game moved to ``target``: each parting's
    gain moved by the same amount (a deal where the bots never part keeps its 0)."""
    gains, games, parted = pop["gains"], pop["games"], pop["parted"]
    move = (sum(gains) - target * sum(games)) / sum(parted)
    return [g - move * p for g, p in zip(gains, parted, strict=True)]


def simulate(
    pop: dict[str, Any], gains: list[float], deals: int, runs: int, rng: random.Random
) -> list[tuple[str, int, int]]:
    """The rule on ``runs`` sequences of ``deals`` deals drawn from the population (with
    ``gains`` for its gains), each deal whole."""
    looks = stopping.looks(deals)
    games, parted = pop["games"], pop["parted"]
    n = len(gains)
    found = []
    for _ in range(runs):
        picks = [rng.randrange(n) for _ in range(deals)]
        found.append(
            run_rule(
                [gains[p] for p in picks],
                [games[p] for p in picks],
                [parted[p] for p in picks],
                looks,
            )
        )
    return found


def check_against_the_rule(pop: dict[str, Any], deals: int, rng: random.Random) -> None:
    """The fast rule here gives harness's own answers (stopping.look) on a few runs."""
    looks = stopping.looks(deals)
    for _ in range(20):
        picks = [rng.randrange(len(pop["gains"])) for _ in range(deals)]
        gains = [pop["gains"][p] for p in picks]
        games = [pop["games"][p] for p in picks]
        parted = [pop["parted"][p] for p in picks]
        mine = run_rule(gains, games, parted, looks)
        theirs = None
        for j, n in enumerate(looks):
            with_partings = sum(p > 0 for p in parted[:n])
            last = j == len(looks) - 1
            found = stopping.look(gains[:n], games[:n], len(looks), last, with_partings)
            if found.settled is not None:
                theirs = (found.settled, n)
                break
        assert theirs == mine[:2], (theirs, mine)


def measure(pop: dict[str, Any], deals: int, runs: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    check_against_the_rule(pop, deals, rng)
    out: dict[str, Any] = {k: v for k, v in pop.items() if k not in ("gains", "games", "parted")}
    if pop["full_says"] == "identical":  # not one parting: no null to shift
        out["as_played"] = _as_played(simulate(pop, pop["gains"], deals, runs, rng), pop)
        return out
    null = simulate(pop, shifted(pop, 0.0), deals, runs, rng)
    out["true_gain_0"] = {
        "separated": _share(null, lambda r: r[0] == "separated"),
        "says_b_better": _share(null, lambda r: r[2] > 0),
        "says_a_better": _share(null, lambda r: r[2] < 0),
    }
    for sign in (1, -1):
        near = simulate(pop, shifted(pop, sign * stopping.DELTA), deals, runs, rng)
        out[f"true_gain_{sign * stopping.DELTA:+g}"] = {
            "equivalent": _share(near, lambda r: r[0] == "equivalent"),
            "separated_wrong_way": _share(near, lambda r, s=sign: r[2] == -s),
        }
    out["as_played"] = _as_played(simulate(pop, pop["gains"], deals, runs, rng), pop)
    return out


def _share(results: list[tuple[str, int, int]], test: Any) -> float:
    return sum(1 for r in results if test(r)) / len(results)


def _as_played(results: list[tuple[str, int, int]], pop: dict[str, Any]) -> dict[str, Any]:
    taken = sorted(r[1] for r in results)
    small = abs(pop["gain_per_game"]) < stopping.DELTA  # "alike" is a right answer too
    if pop["full_says"] == "identical":
        agree = _share(results, lambda r: r[0] == "identical")
    elif pop["full_says"] == "separated":
        agree = _share(
            results, lambda r: r[2] == pop["full_sign"] or (small and r[0] == "equivalent")
        )
    else:
        agree = _share(results, lambda r: r[0] != "separated")
    return {
        "agrees_with_the_full_sample": agree,
        "answers": {
            a: _share(results, lambda r, a=a: r[0] == a)
            for a in ("separated", "equivalent", "not separated", "identical")
        },
        "deals_median": statistics.median(taken),
        "deals_p90": taken[int(0.9 * (len(taken) - 1))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=stopping.MAX_DEALS)
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for a, b, opponents in PAIRS:
        pop = population(a, b, opponents, args.deals, args.seed)
        results.append(measure(pop, args.deals, args.runs, args.seed))
    if args.json:
        print(json.dumps(results, indent=1))
        return
    print(f"looks at {stopping.looks(args.deals)} deals; {args.runs:,} runs a case; "
          f"ALPHA {stopping.ALPHA}, DELTA {stopping.DELTA}")  # fmt: skip
    for r in results:
        print(f"\n{r['pair']}: {r['gain_per_game']:+.3f} worms/game at {args.deals} deals "
              f"(95% CI {r['full_95'][0]:+.3f} to {r['full_95'][1]:+.3f}: {r['full_says']}), "
              f"{r['cpu_seconds']:.1f} CPU-s")  # fmt: skip
        for key in ("true_gain_0", f"true_gain_{stopping.DELTA:+g}",
                    f"true_gain_{-stopping.DELTA:+g}"):  # fmt: skip
            if key in r:
                shares = ", ".join(f"{k} {v:.2%}" for k, v in r[key].items())
                print(f"  {key.replace('_', ' ')}: {shares}")
        p = r["as_played"]
        answers = ", ".join(f"{k} {v:.1%}" for k, v in p["answers"].items())
        agree = p["agrees_with_the_full_sample"]
        print(f"  as played: agrees with the full sample {agree:.1%} ({answers}); "
              f"deals: median {p['deals_median']:g}, 90% {p['deals_p90']}")  # fmt: skip


if __name__ == "__main__":
    main()
