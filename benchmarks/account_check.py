"""The stored account's identity check: what it costs, and that it never refuses an
honest account.

    python benchmarks/account_check.py [--games 100000] [--repeats 5] [--sweep-deals 120]

Two parts:

* **Cost.** A real ``luck: on`` run of ``--games`` games (2 players, greedy against
  simple, played by the runner in this process, natively where the engine is built) is
  opened as ``harness report`` opens it (:func:`harness.runfolder.reader.open_run`:
  every chunk's size, sha256 and rows, and its account), with the identity check and
  without it
  (the same calls with :func:`harness.runfolder.parts.check_account` and the extra
  columns switched off), interleaved, medians of ``--repeats``, CPU seconds of this
  process; and the check alone (:func:`harness.runfolder.identities.account_problem`
  on every chunk's columns, already read), and the whole report's count
  (:func:`harness.report.api.summarise_run`) for scale.
* **No false refusal.** Chunks played through the runner's chunk function at 2-5
  players, every preset, both engines, turn caps of 9 and 200, and (on the Python
  engine) a plugin that forfeits in the middle of its turns: every chunk keeps every
  identity, and the largest swing residual is reported as a fraction of its tolerance
  (:func:`harness.runfolder.identities.tolerance`; the check refuses above 1).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from harness.runfolder import identities, parts, reader
from harness.runfolder.schema import seat_column

FLAKY = """
from harness.strategy import Strategy


class Flaky(Strategy):
    name = "flaky"

    def pick(self, view):
        if view.turn > 6 and view.total == 13:
            raise ValueError("flaky")
        if view.turn > 8 and view.total == 17:
            return 99
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25 + view.turn % 5
"""


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def cost(games: int, repeats: int, root: Path) -> None:
    from harness.report.api import summarise_run
    from harness.tourney import run_tournament

    deals = games // 2
    config = {
        "name": "acct",
        "entrants": ["greedy", "simple"],
        "deals": deals,
        "seed": 1,
        "luck": "on",
    }
    started = time.perf_counter()
    run = run_tournament(config, out=root, workers=0)
    print(f"played {run.stored:,} games with the account in {time.perf_counter() - started:.1f} s")
    folder = run.run_dir

    real_check, real_columns = parts.check_account, identities.identity_columns

    def without() -> None:
        parts.check_account = lambda *a, **k: None
        identities.identity_columns = lambda players: []
        try:
            reader.open_run(folder)
        finally:
            parts.check_account, identities.identity_columns = real_check, real_columns

    def with_() -> None:
        reader.open_run(folder)

    info = reader.open_run(folder)
    import pyarrow.parquet as pq

    cols = ["deal", "seating", *identities.identity_columns(2)]
    tables = [pq.read_table(p, columns=cols) for p in info.parts]

    def check_alone() -> None:
        for table in tables:
            assert identities.account_problem(table, 2, True) is None

    cases = {"open_run without the check": without, "open_run with the check": with_}
    cases["the check alone (columns read)"] = check_alone
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, fn in cases.items():
            times[name].append(cpu(fn))
    report = cpu(lambda: summarise_run(folder))
    print(f"{len(info.parts)} chunks; CPU seconds, medians of {repeats} (interleaved):")
    for name, runs in times.items():
        print(f"  {name:<34} {statistics.median(runs):8.4f}")
    extra = statistics.median(times["open_run with the check"]) - statistics.median(
        times["open_run without the check"]
    )
    print(f"  {'the check adds':<34} {extra:8.4f}  ({extra * 1e6 / run.stored:.3f} us a game)")
    print(f"  {'the whole report count, once':<34} {report:8.4f}")


def sweep(deals: int, tmp: Path) -> None:
    from harness.rules import PRESETS
    from harness.tourney import load_config, plan
    from harness.tourney.chunks import play_chunk
    from harness.tourney.storage import to_arrow

    (tmp / "flaky.py").write_text(FLAKY)
    pool = ["greedy", "threshold", "worm-first", "simple", "env-heuristic", "tactician"]
    pool += ["random", "optimal"]
    rng = np.random.default_rng(1)
    worst, rows, statuses = 0.0, 0, Counter()
    started = time.process_time()
    for players in (2, 3, 4, 5):
        for preset in PRESETS:
            for engine in ("python", "native"):
                for cap in (200, 9):
                    names = [str(n) for n in rng.choice(pool, size=players, replace=False)]
                    if engine == "python" and cap == 9:
                        names[-1] = f"{tmp / 'flaky.py'}:Flaky"
                    config = load_config(
                        {
                            "name": "sweep",
                            "players": players,
                            "format": "gauntlet",
                            "challenger": names[0],
                            "entrants": names[1:],
                            "deals": deals,
                            "seed": int(rng.integers(1 << 30)),
                            "luck": "on",
                            "engine": engine,
                            "max_turns": cap,
                            "rules": {"preset": preset},
                        }
                    )
                    for spec in list(plan.Plan(config).specs())[:3]:
                        table = to_arrow(spec, play_chunk(spec))
                        problem = identities.account_problem(table, players, True)
                        if problem is not None:
                            print(f"REFUSED: {players} players, {preset}, {engine}: {problem}")
                        worst = max(worst, ratio(table, players))
                        rows += table.num_rows
                        statuses.update(table.column("status").to_pylist())
    print(
        f"{rows:,} games ({dict(statuses)}), {time.process_time() - started:.0f} CPU-s: "
        f"largest swing residual / tolerance {worst:.2g}"
    )


def ratio(table, players: int) -> float:
    def field(name: str) -> np.ndarray:
        return np.stack(
            [
                table.column(seat_column(i, name)).to_numpy(zero_copy_only=False).astype(float)
                for i in range(players)
            ],
            axis=1,
        )

    swing = field("par") + field("luck")
    for name in ("regret_pick", "regret_stop", "regret_claim"):
        swing -= field(name)
    stolen = (players - 1) * (swing - field("worms"))
    terms = 2 * field("rolls") + field("picks") + field("stops") + field("claims")
    return float((np.abs(stolen - np.rint(stolen)) / identities.tolerance(terms, players)).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sweep-deals", type=int, default=120, help="0: no sweep")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="account-check-") as tmp:
        cost(args.games, args.repeats, Path(tmp))
        if args.sweep_deals:
            sweep(args.sweep_deals, Path(tmp))


if __name__ == "__main__":
    main()
