"""Does the diff judge as the games do? Its estimate in chances to win against a paired compare.

    python benchmarks/diff_judgement.py [--deals 200] [--compare-deals 2000] [--workers 2]
                                        [--seed 1] [--pairs 1,2,...] [--json] [--save F]
                                        [--calibration 300] [--pair-calibration N]

For each pair of versions (A, B) below, against the same opponents at two-player tables:

* **the diff** (``harness diff A B --unit win --deals D``): B's gain per game over A in
  chances to win, an estimate of B's win share minus A's (docs/coach.md says what it
  estimates exactly), with its 95% interval clustered by deal; beside it the same diff
  in worms of swing (``--unit worms``), for its sign only;
* **the paired compare**: two tournaments of ``--compare-deals`` duplicate deals on other
  dice (seed ``--seed`` + 1000), one with A and one with B under the one display name
  ``x`` against the opponents, every seat order; ``harness compare`` of the two runs
  pairs every game of ``x`` with its twin (same deal, dice, seat, opponents) and gives
  the difference of its win share (B - A) with a 95% interval clustered by deal.

Printed per pair: both estimates and intervals; whether the compare decides (its interval
excludes 0) and, where it does, whether the diff's sign agrees; whether the two estimates
lie within their combined 95% interval (|d - c| <= 1.96 sqrt(se_d^2 + se_c^2): the two
are independent, played on different dice). Issue 32 asks: sign agreement wherever the
compare decides, and within the combined interval on at least 5 of 6 pairs.

The pairs: ``optimal`` against ``optimal(endgame=0)`` (the worm diff's wrong verdict, issue
32), two thresholds, greedy against tactician, the example file plugin
(examples/my_bot.py) at two targets, ``win-optimal`` against ``optimal`` and tactician at
two cautions. Runs go to a temporary folder.

``--calibration N`` (default 300; 0: none) plays N games among the pairs' bots (Python
engine, the same dice seeds each run) and sets the evaluator's prediction at every turn's
start, for both seats, beside the result: the mean predicted and realised chance in ten
bins of the prediction, and the calibration slope (least squares of the result on the
prediction: 1 for a calibrated evaluator, below 1 for one that is too sure). Where the
evaluator is too sure, a difference of positions is worth too much in its chances, and the
diff's figure overshoots the games' by about as much.

Under each pair: the diff's two halves, B's gain per game over A in A's games (B the
shadow) and in B's games (A the shadow), which the figure averages. With one W that is
each side's true chance they agree (the performance difference identity holds along
either side's games with the other's values); where they part, W is not the chance under
the play that follows for at least one of them.

``--pair-calibration N`` (a diagnostic; default 0: none): N games of each pair's own bots
(A and B each against the opponent, both seats; Python engine, dice seeds 0 to N - 1) and
the evaluator's calibration slope on their turn starts, as ``--calibration`` measures it
on the mixed field: below 1 where the evaluator is too sure for these players; and per
bot, the mean chance it predicts for the bot's seat at every turn start against the
bot's realised result (above it: the evaluator rates the bot's positions too high, as
if a better player held them), and the slope within the bot's seat (below 1: a difference
of the evaluator's chances is worth less to this bot than the evaluator says).

``--spread S`` (a diagnostic): the normal approximation's spread (sigma^2 per worm on the
grill, 2.5 as shipped) set to S in this process and its workers before anything is
valued, to see how the diff's figures and the calibration move with the evaluator's
confidence. It changes nothing where a trained model answers.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.coach.differ import diff
from harness.report import cached_summary
from harness.report.comparisons.compare import compare
from harness.stats import Z95
from harness.tourney import run_tournament

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = str(ROOT / "examples" / "my_bot.py")

#: (A, B, opponents, how the tournament names the entrant: a dict for the config)
PAIRS: list[tuple[str, str, list[str]]] = [
    ("optimal", "optimal(endgame=0)", ["simple"]),
    ("threshold(target=26)", "threshold(target=28)", ["greedy"]),
    ("greedy", "tactician", ["simple"]),
    (f"{PLUGIN}:WormHunter(target=25)", f"{PLUGIN}:WormHunter(target=28)", ["simple"]),
    ("optimal", "win-optimal", ["simple"]),
    ("tactician(caution=0.5)", "tactician(caution=1.5)", ["simple"]),
]


def entrant(ref: str) -> dict[str, Any]:
    """A tournament entrant named ``x`` from a strategy reference ``name(k=v, ...)``."""
    from harness.plugins import parse_reference

    name, params = parse_reference(ref)
    return {"strategy": name, "params": dict(params), "name": "x"}


def compare_pair(a: str, b: str, opponents: list[str], args: argparse.Namespace, out: Path) -> dict:
    runs = []
    for ref in (a, b):
        config = {
            "name": "diff_judgement",
            "players": 2,
            "entrants": [entrant(ref), *opponents],
            "deals": args.compare_deals,
            "seed": args.seed + 1000,
            "dice": "duplicate",
            "workers": args.workers,
        }
        runs.append(run_tournament(config, out=out).run_dir)
    result = compare([cached_summary(r) for r in runs], paired=True)
    row = next(s for s in result["strategies"] if s["strategy"] == "x")
    cell = row["diffs"][0]["win_share"]
    return {
        "estimate": cell["diff"],
        "low": cell["low"],
        "high": cell["high"],
        "se": (cell["high"] - cell["low"]) / (2 * Z95),
        "paired": row["diffs"][0]["paired"],
    }


def diff_pair(a: str, b: str, opponents: list[str], args: argparse.Namespace, unit: str) -> dict:
    found = diff(a, b, opponents=opponents, deals=args.deals, seed=args.seed, unit=unit,
                 workers=args.workers, examples=0, situations=0)  # fmt: skip
    v = found.verdict
    low, high = v["low"], v["high"]
    se = (high - low) / (2 * Z95) if low is not None and high is not None else math.nan
    # B's gain over A per game in A's games (B the shadow) and in B's games (A the shadow):
    # the two halves the figure averages (module docstring, --pair-calibration)
    halves = {
        r["games"]: r["gain_per_game"]
        for r in found.gain_rows()
        if r["kind"] == "all" and r["games"] != "both"
    }
    return {"estimate": v["estimate"], "low": low, "high": high, "se": se, "says": v["says"],
            "halves": halves}  # fmt: skip


CALIBRATION_BOTS = ["greedy", "simple", "threshold(target=26)", "tactician", "optimal"]


def calibration(games: int, matchups: list[tuple[str, str]] | None = None) -> dict:
    """The evaluator's predictions at turn starts against the games' results (docstring):
    game k between the bots of ``matchups[k % len(matchups)]`` (None: pairs of
    :data:`CALIBRATION_BOTS`), on the dice of seed k."""
    import statistics

    from harness.game.dice import DuplicateDice
    from harness.game.engine import Game, GameObserver
    from harness.plugins import resolve
    from harness.rules import Rules
    from harness.winprob import Position, evaluator, result_shares

    rules = Rules(players=2)
    judge_ = evaluator(rules)

    class Starts(GameObserver):
        def __init__(self) -> None:
            self.board: Any = None
            self.seen: list[Position] = []

        def handed(self, board: Any) -> None:
            self.board = board

        def turn_started(self, turn: int, seat: int) -> None:
            self.seen.append(Position.from_board(self.board, seat))

    pairs = []
    by_bot: dict[str, list[tuple[float, float]]] = {}  # a bot's seat at every turn start
    for k in range(games):
        if matchups is None:
            a = CALIBRATION_BOTS[k % len(CALIBRATION_BOTS)]
            b = CALIBRATION_BOTS[(k // len(CALIBRATION_BOTS) + 1 + k) % len(CALIBRATION_BOTS)]
        else:
            a, b = matchups[k % len(matchups)]
        starts = Starts()
        bots = [resolve(a).create(), resolve(b).create()]
        game = Game(bots, rules, DuplicateDice(k), observer=starts, seed=k)
        game.play()
        final = result_shares(Position.from_board(game.board, 0))
        for position in starts.seen:
            chances = judge_.chances(position)
            pairs += [(chances[s], final[s]) for s in (0, 1)]
            for s, name in enumerate((a, b)):
                by_bot.setdefault(name, []).append((chances[s], final[s]))
    bins = []
    for b in range(10):
        inside = [(x, y) for x, y in pairs if b / 10 <= x < (b + 1) / 10 or (b == 9 and x == 1)]
        if inside:
            bins.append({"from": b / 10, "count": len(inside),
                         "predicted": statistics.fmean(x for x, _ in inside),
                         "realised": statistics.fmean(y for _, y in inside)})  # fmt: skip
    mx = statistics.fmean(x for x, _ in pairs)
    my = statistics.fmean(y for _, y in pairs)
    slope = _slope(pairs)
    se = statistics.fmean(((y - my) - slope * (x - mx)) ** 2 for x, y in pairs) ** 0.5 / (
        sum((x - mx) ** 2 for x, _ in pairs) ** 0.5
    )  # turn starts of one game are not independent: a guide, not an interval
    bots = {
        short(name): {"predicted": statistics.fmean(x for x, _ in seen),
                      "realised": statistics.fmean(y for _, y in seen), "count": len(seen),
                      "slope": _slope(seen)}
        for name, seen in by_bot.items()
    }  # fmt: skip
    return {"games": games, "predictions": len(pairs), "slope": slope, "slope_se_naive": se,
            "bins": bins, "bots": bots, "evaluator": judge_.describe()}  # fmt: skip


def _slope(pairs: list[tuple[float, float]]) -> float:
    """Least squares slope of the result on the prediction."""
    import statistics

    mx = statistics.fmean(x for x, _ in pairs)
    my = statistics.fmean(y for _, y in pairs)
    return sum((x - mx) * (y - my) for x, y in pairs) / sum((x - mx) ** 2 for x, _ in pairs)


def pair_bots(a: str, b: str, opponents: list[str]) -> list[tuple[str, str]]:
    """The games of one pair: A and B each against the opponent, in both seats."""
    (o,) = opponents
    return [(a, o), (o, a), (b, o), (o, b)]


def judge(d: dict, c: dict) -> dict:
    decides = c["low"] > 0 or c["high"] < 0
    agree = (d["estimate"] > 0) == (c["estimate"] > 0) if decides else None
    z = abs(d["estimate"] - c["estimate"]) / math.sqrt(d["se"] ** 2 + c["se"] ** 2)
    return {"compare_decides": decides, "sign_agrees": agree, "z": z, "within": z <= Z95}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="the diff's deals (default 200)")
    parser.add_argument("--compare-deals", type=int, default=2000,
                        help="deals of each compared tournament (default 2000)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", default="", help="which pairs, 1-based (default: all)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save", type=Path, default=None, help="also write the JSON here")
    parser.add_argument("--calibration", type=int, default=300, help="games (0: none)")
    parser.add_argument("--spread", type=float, default=None, help="diagnostic: see above")
    parser.add_argument("--pair-calibration", type=int, default=0,
                        help="diagnostic: games of each pair's bots (see above)")  # fmt: skip
    args = parser.parse_args()
    chosen = [int(p) for p in args.pairs.split(",") if p] or list(range(1, len(PAIRS) + 1))
    if args.spread is not None:  # before any value: the workers are forked from here
        import sys

        import harness.winprob  # noqa: F401 (its module, not the function of that name)

        sys.modules["harness.winprob.evaluator"].SPREAD = args.spread
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for k in chosen:
            a, b, opponents = PAIRS[k - 1]
            t0 = time.perf_counter()
            d = diff_pair(a, b, opponents, args, "win")
            worms = diff_pair(a, b, opponents, args, "worms")
            t1 = time.perf_counter()
            c = compare_pair(a, b, opponents, args, Path(tmp))
            t2 = time.perf_counter()
            rows.append({"pair": k, "a": short(a), "b": short(b), "opponents": opponents,
                         "diff": d, "diff_worms": worms, "compare": c, **judge(d, c),
                         "diff_s": round(t1 - t0, 1), "compare_s": round(t2 - t1, 1)})  # fmt: skip
            if args.pair_calibration:
                rows[-1]["calibration"] = calibration(
                    args.pair_calibration, pair_bots(a, b, opponents)
                )
            if not args.json:
                print(line(rows[-1]), flush=True)
    decided = [r for r in rows if r["compare_decides"]]
    summary = {
        "pairs": len(rows),
        "compare_decides": len(decided),
        "signs_agree": sum(bool(r["sign_agrees"]) for r in decided),
        "within_combined_95": sum(r["within"] for r in rows),
        "deals": args.deals,
        "compare_deals": args.compare_deals,
        "seed": args.seed,
    }
    found = calibration(args.calibration) if args.calibration else None
    summary["wall_s"] = round(time.perf_counter() - started, 1)
    if args.save is not None:
        args.save.write_text(
            json.dumps({"rows": rows, "summary": summary, "calibration": found}, indent=1) + "\n"
        )
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary, "calibration": found}, indent=1))
        return
    if found is not None:
        print(f"\nThe evaluator ({found['evaluator']}) at {found['predictions']:,} turn starts "
              f"of {found['games']} games: calibration slope {found['slope']:.3f}")  # fmt: skip
        for b in found["bins"]:
            print(f"  predicted {b['from']:.1f}-{b['from'] + 0.1:.1f}: mean {b['predicted']:.3f}, "
                  f"realised {b['realised']:.3f} ({b['count']:,})")  # fmt: skip
    print(
        f"\nThe compare decides on {summary['compare_decides']} of {summary['pairs']} pairs; "
        f"the diff's sign agrees on {summary['signs_agree']} of them. Within the combined "
        f"95% interval: {summary['within_combined_95']} of {summary['pairs']}. "
        f"Wall {summary['wall_s']} s."
    )


def short(ref: str) -> str:
    return ref.replace(PLUGIN, "examples/my_bot.py")


def _cell(x: dict, scale: float = 100.0) -> str:
    if x["low"] is None or x["high"] is None:
        return f"{x['estimate'] * scale:+.2f}"
    return f"{x['estimate'] * scale:+.2f} ({x['low'] * scale:+.2f} to {x['high'] * scale:+.2f})"


def line(r: dict) -> str:
    """One row: points of win share (x100), the worm diff's figure in worms; under it the
    diff's halves and (``--pair-calibration``) the evaluator's slope on the pair's games."""
    sign = "-" if r["sign_agrees"] is None else ("yes" if r["sign_agrees"] else "NO")
    head = (
        f"{r['pair']}. B={r['b']} vs A={r['a']} (vs {', '.join(r['opponents'])}): "
        f"diff {_cell(r['diff'])} pts; compare {_cell(r['compare'])} pts; "
        f"worm diff {r['diff_worms']['estimate']:+.3f} worms; sign agrees: {sign}; "
        f"|z| {r['z']:.2f} ({'within' if r['within'] else 'OUTSIDE'}); "
        f"{r['diff_s']:.0f} s + {r['compare_s']:.0f} s"
    )
    halves = "; ".join(f"{k} {_cell(v)}" for k, v in r["diff"]["halves"].items())
    tail = f"   the diff over {halves} pts"
    if "calibration" in r:
        c = r["calibration"]
        tail += (f"; the evaluator's slope on {c['predictions']:,} turn starts of "
                 f"{c['games']} games of the pair's bots: {c['slope']:.3f}")  # fmt: skip
        for name, b in c["bots"].items():
            tail += (f"\n   {name}'s seat at its turn starts: predicted {b['predicted']:.3f}, "
                     f"realised {b['realised']:.3f}, slope {b['slope']:.3f}")  # fmt: skip
    return f"{head}\n{tail}"


if __name__ == "__main__":
    main()
