"""Time to an SPRT verdict with and without the luck account: the figure users feel.

    python benchmarks/luck_verdict.py [--pair optimal-simple] [--seeds 20] [--width 20]
                                      [--pilot 20000] [--modes raw,adjusted] [--json]

For a pair of strategies, ``harness sprt``'s own experiment (harness.sprt.experiment,
in-process: the CPU is this process's) is run on ``--seeds`` seeds twice: with the luck
account (``luck="on"``: the test runs on luck-adjusted deal scores) and without it (the
raw pentanomial test). Both tests get the same hypotheses, set around the pair's true
Elo difference (a pilot run of ``--pilot`` deals with the account estimates it; the
bounds are truth -/+ ``--width``/2, the hardest place for a test: its expected length
is longest there), so each is made to decide between two close values. Reported per
mode: the median games and CPU seconds to a verdict, the verdicts, and the ratio
adjusted / raw (the issue's targets: CPU <= 0.5x for optimal v simple, < 1x for a
Python plugin v native simple).

``--modes`` adds ``win`` (``luck="win"``: the adjusted test with the stored win luck as
its control, the win account kept at every game beside the worm one), run on the same
seeds, interleaved; its ratios are to raw, as adjusted's.

Pairs (``--pair``): ``optimal-simple`` (both native), ``plugin-simple`` (greedy's code
loaded from a file, a plugin at a native table: called back from C) and
``greedy-wormfirst`` (both native, the cheapest).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.sprt.experiment import make_setup, run_sprt

GREEDY = '''
from harness.strategy import Strategy


class FileGreedy(Strategy):
    """greedy's rule, as a user would write it in a file."""

    name = "file-greedy"

    def pick(self, view):
        points = (0, 1, 2, 3, 4, 5, 5)  # a worm counts 5 (R2)
        return max(view.choices, key=lambda f: (view.counts[f] * points[f], f))

    def stop(self, view):
        return True
'''


def _pair(name: str, folder: Path) -> tuple[str, str]:
    if name == "optimal-simple":
        return "optimal", "simple"
    if name == "greedy-wormfirst":
        return "greedy", "worm-first"
    if name == "plugin-simple":
        path = folder / "file_greedy.py"
        path.write_text(GREEDY)
        return f"{path}:FileGreedy", "simple"
    raise SystemExit(f"--pair: {name!r}: one of optimal-simple, plugin-simple, greedy-wormfirst")


def pilot(a: str, b: str, deals: int, seed: int) -> float:
    """The pair's Elo difference from a long luck-adjusted run (never stopped early: its
    hypotheses 0.02 Elo apart move the log-likelihood ratio far too little to end it)."""
    setup = make_setup(a, b, seed=seed, luck="on", elo0=-0.01, elo1=0.01, max_games=2 * deals)
    result = run_sprt(setup, workers=0)
    if result.verdict != "inconclusive":  # a very lopsided pair can still end it: say so
        raise SystemExit(
            f"the pilot stopped early ({result.verdict} after {result.tally.games:,} games), "
            "so its Elo rests on fewer deals than asked: give --truth, or fewer --pilot deals"
        )
    return result.tally.elo()[0]


def one(a: str, b: str, seed: int, luck: str, elo0: float, elo1: float) -> dict[str, Any]:
    setup = make_setup(a, b, seed=seed, luck=luck, elo0=elo0, elo1=elo1, max_games=400_000)
    started = time.process_time()
    result = run_sprt(setup, workers=0)
    return {
        "verdict": result.verdict,
        "games": result.tally.games,
        "cpu_s": time.process_time() - started,
        "adjusted": result.tally.adjusted is not None,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pair", default="optimal-simple")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--width", type=float, default=20.0, help="elo1 - elo0")
    parser.add_argument("--pilot", type=int, default=20_000, help="deals of the pilot run")
    parser.add_argument("--truth", type=float, default=None, help="skip the pilot: this Elo")
    parser.add_argument("--modes", default="raw,adjusted", help="of raw, adjusted, win")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    lucks = {"raw": "off", "adjusted": "on", "win": "win"}
    modes = [m for m in args.modes.split(",") if m]
    if not set(modes) <= set(lucks) or "raw" not in modes:
        raise SystemExit(f"--modes: {args.modes!r}; raw and any of adjusted, win")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = _pair(args.pair, Path(tmp))
        truth = args.truth if args.truth is not None else pilot(a, b, args.pilot, 10**6)
        elo0, elo1 = truth - args.width / 2, truth + args.width / 2
        runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
        for seed in range(1, args.seeds + 1):  # interleaved: the machine's load hits all
            for mode in modes:
                runs[mode].append(one(a, b, seed, lucks[mode], elo0, elo1))
            print(
                f"  seed {seed}: "
                + ", ".join(
                    f"{mode} {runs[mode][-1]['games']:,} games {runs[mode][-1]['cpu_s']:.1f} s"
                    for mode in modes
                ),
                file=sys.stderr,
            )
    out: dict[str, Any] = {"pair": args.pair, "truth_elo": truth, "elo0": elo0, "elo1": elo1}
    for mode, found in runs.items():
        out[mode] = {
            "median_games": statistics.median(r["games"] for r in found),
            "mean_games": statistics.fmean(r["games"] for r in found),
            "median_cpu_s": statistics.median(r["cpu_s"] for r in found),
            "mean_cpu_s": statistics.fmean(r["cpu_s"] for r in found),
            "cpu_per_game_ms": 1000
            * sum(r["cpu_s"] for r in found)
            / max(1, sum(r["games"] for r in found)),
            "verdicts": {v: sum(r["verdict"] == v for r in found) for v in ("H0", "H1")},
            "runs": found,
        }
    for mode in modes[1:]:
        key = "" if mode == "adjusted" else f"_{mode}"
        out[f"games_ratio{key}"] = out[mode]["mean_games"] / out["raw"]["mean_games"]
        out[f"cpu_ratio{key}"] = out[mode]["mean_cpu_s"] / out["raw"]["mean_cpu_s"]
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{args.pair}: true Elo about {truth:+.1f}; H0 <= {elo0:+.1f}, H1 >= {elo1:+.1f}")
    for mode in modes:
        r = out[mode]
        print(
            f"  {mode:<9} median {r['median_games']:>9,.0f} games, {r['median_cpu_s']:6.1f} CPU-s"
            f" (mean {r['mean_games']:,.0f} games, {r['mean_cpu_s']:.1f} s; "
            f"{r['cpu_per_game_ms']:.3f} ms a game); verdicts {r['verdicts']}"
        )
    for mode in modes[1:]:
        key = "" if mode == "adjusted" else f"_{mode}"
        print(
            f"  {mode} / raw: games x{out[f'games_ratio{key}']:.2f}, "
            f"CPU x{out[f'cpu_ratio{key}']:.2f} (means)"
        )


if __name__ == "__main__":
    main()
