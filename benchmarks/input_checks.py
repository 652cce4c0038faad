"""How long harness takes to refuse hostile inputs: configs, records, run folders.

    python benchmarks/input_checks.py [--repeats 7]

The tests only bound these against a hang (tests/helpers.HANG_GUARD); the figures live
here: for each hostile input, the median wall and CPU milliseconds from reading it to its
one-line error, the built-in strategies imported beforehand (as a command has them).
The inputs are the tests' own: the YAML alias bombs of tests/fixtures/hostile, documents
nested or sized past the bounds, and records and run.json files built to break the
readers.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.errors import HarnessError
from harness.game.record import load_record
from harness.plugins import builtin_strategies
from harness.runfolder.reader import open_run as load_run
from harness.tourney import run_tournament
from harness.tourney.config import load_config

HOSTILE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "hostile"
TWO = "entrants: [greedy, random]\n"


def cases(tmp: Path) -> dict[str, Callable[[], object]]:
    """name -> a call that must raise a one-line HarnessError."""
    files: dict[str, str] = {
        "config: 1 kB billion laughs (games)": (HOSTILE / "inputs_bomb_games.yaml").read_text(),
        "config: alias bomb in params": (HOSTILE / "inputs_bomb_params.yaml").read_text(),
        "config: 100,000 nested lists": TWO + "games: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "config: 900 kB scalar": TWO + "games: " + "x" * 900_000 + "\n",
        "config: over 1 MB": TWO + "# " + "x" * 2_000_000 + "\n",
    }
    made: dict[str, Callable[[], object]] = {}
    for i, (name, text) in enumerate(files.items()):
        path = tmp / f"c{i}.yaml"
        path.write_text(text)
        made[name] = lambda path=path: load_config(path)
    records = {
        "record: 100,000 nested lists": "[" * 100_000 + "]" * 100_000,
        "record: a 5,000-digit number": '{"format": "pickomino-record/1", "seats": ["a", "b"], '
        '"turns": [{"seat": ' + "7" * 5000 + "}]}",
        "record: 50 MB": '{"format": "pickomino-record/1", "pad": "' + "x" * 50 * 2**20 + '"}',
    }
    for i, (name, text) in enumerate(records.items()):
        path = tmp / f"r{i}.json"
        path.write_text(text)
        made[name] = lambda path=path: load_record(path)
    run = run_tournament(
        {"name": "b", "entrants": ["greedy", "random"], "deals": 2}, out=tmp / "out", workers=0
    ).run_dir
    config = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(
        json.dumps(config)[:-1] + ', "x": ' + "[" * 50_000 + "]" * 50_000 + "}"
    )
    made["run.json: 50,000 nested lists"] = lambda: load_run(run)
    return made


def measure(call: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        call()
    except HarnessError as exc:
        assert "\n" not in str(exc)
    else:
        raise AssertionError("the input was accepted")
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="repeats; medians are shown")
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    builtin_strategies()
    with tempfile.TemporaryDirectory() as tmp:
        made = cases(Path(tmp))
        runs = {name: [measure(call) for _ in range(args.repeats)] for name, call in made.items()}
    print(f"median of {args.repeats}: wall ms, CPU ms, from reading the input to its one line")
    for name, measured in runs.items():
        wall = statistics.median(m[0] for m in measured) * 1e3
        cpu = statistics.median(m[1] for m in measured) * 1e3
        print(f"  {name:<36} {wall:8.1f} ms wall {cpu:8.1f} ms CPU")


if __name__ == "__main__":
    main()
