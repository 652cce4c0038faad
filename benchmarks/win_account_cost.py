"""The win account's cost: CPU per game natively with ``luck: on`` (the worm account) and
``luck: win`` (the win account too, with its vector at 3 players or more), side by side.

    python benchmarks/win_account_cost.py [--players 2,3,4] [--deals 100] [--repeats 3]
                                          [--seed 3] [--json]

Each player count plays one table of ``greedy, worm-first, tactician, simple`` (the first
P), every deal in every cyclic rotation on duplicate dice, through the runner's chunk
function (``harness.tourney.chunks.play_chunk``), once per mode and round, the modes
interleaved round by round, each round on deals of its own (seed + round: a round does
not find the one before's boards in the engine's caches); CPU per game is the process's
own (time.process_time), medians over the rounds. To compare two versions of the
engine, run it in each tree (docs/luck.md: "Win luck as a vector", its cost).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk

FIELD = ("greedy", "worm-first", "tactician", "simple")
MODES = ("on", "win")


def cpu_per_game(players: int, luck: str, deals: int, seed: int) -> tuple[float, str]:
    """Milliseconds of CPU a game for one table under ``luck``, and the engine that played."""
    config = load_config(
        {
            "name": "win-account-cost",
            "players": players,
            "entrants": list(FIELD[:players]),
            "deals": deals,
            "seed": seed,
            "seating": "cyclic",
            "luck": luck,
            "engine": "native",
        }
    )
    started, games, engines = time.process_time(), 0, set()
    for spec in plan.chunks(config):
        result = play_chunk(spec)
        games += result.rows
        engines.add(result.engine)
    return 1000 * (time.process_time() - started) / games, ",".join(sorted(engines))


def measure(players: list[int], deals: int, repeats: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for p in players:
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        engine = ""
        for round_ in range(repeats):  # fresh deals each round, the same for both modes
            for mode in MODES:
                ms, engine = cpu_per_game(p, mode, deals, seed + round_)
                times[mode].append(ms)
        on, win = (statistics.median(times[m]) for m in MODES)
        rows.append({"players": p, "ms_on": on, "ms_win": win, "ratio": win / on,
                     "rounds": times, "engine": engine})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default="2,3,4", help="player counts, e.g. 3,4")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    try:
        players = [int(p) for p in a.players.split(",")]
    except ValueError:
        ap.error(f"--players {a.players}: player counts, e.g. 3,4")
    rows = measure(players, a.deals, a.repeats, a.seed)
    if a.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        print(
            f"{r['players']} players ({r['engine']}): luck on {r['ms_on']:.2f} ms a game, "
            f"luck win {r['ms_win']:.2f} ms ({r['ratio']:.2f}x), medians of {a.repeats}"
        )
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
