"""How soon the tournament's watchdog ends a decision stuck in C code.

    python benchmarks/watchdog.py [--move-time 0.2] [--repeats 5]

A seat blocks SIGALRM and sleeps in C (tests/fixtures/hostile/workers_hang.py, CLoop), so
only the parent's watchdog can stop it: it kills the worker GRACE + GRACE_SHARE x limit
after the deadline, stores a time forfeit ("was stopped after X s in one call") and goes
on. Each repeat is a run of two such games at one worker; the median of X (seconds from
the decision's start to the kill) is printed beside what the rule gives.
(tests/tourney/test_tourney_watchdog.py only checks that it happens, against a hang.)
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from pathlib import Path

from harness.tourney import run_tournament
from harness.tourney.backends.process import GRACE, GRACE_SHARE, POLL

HANG = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "hostile" / "workers_hang.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--move-time", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    stopped: list[float] = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            config = {
                "name": "w",
                "entrants": ["greedy", {"strategy": f"{HANG}:CLoop", "name": "c-loop"}],
                "deals": 1,
            }
            run = run_tournament(config, out=tmp, workers=1, move_time=args.move_time)
            for error in run.games["error"].dropna():
                found = re.search(r"was stopped after ([0-9.]+) s in one call", error)
                if found:
                    stopped.append(float(found.group(1)))
    rule = args.move_time + GRACE + GRACE_SHARE * args.move_time
    print(
        f"move_time {args.move_time:g} s: the worker was killed {statistics.median(stopped):.2f} s "
        f"(median of {len(stopped)}; {min(stopped):.2f}-{max(stopped):.2f}) after the decision "
        f"began; the rule gives {rule:.2f} s plus up to one look ({POLL:g} s apart)"
    )


if __name__ == "__main__":
    main()
