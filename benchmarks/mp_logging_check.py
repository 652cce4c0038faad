"""Why harness does not use multiprocessing-logging: its records under each start method.

    python -m venv /tmp/mpl && /tmp/mpl/bin/pip install multiprocessing-logging
    /tmp/mpl/bin/python benchmarks/mp_logging_check.py

The project brief named multiprocessing-logging for the workers' log. It is not a
dependency of harness, and this is the measurement behind that (README, Dependencies).
Two worker processes log 1,000 records each after ``install_mp_handler()`` in the parent;
counted: the records that reach the parent's log file, and the parent's threads before
and after. Run it in a scratch environment: the package is not installed with harness.
harness's workers start from a fork server (a fresh interpreter, never a fork of the
parent that loaded the users' plugins) and send their records over their own pipes.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

RECORDS = 1000
WORKERS = 2


def work(n: int) -> None:
    log = logging.getLogger("worker")
    for i in range(n):
        log.info("record %d from pid %d", i, os.getpid())


def check(method: str, folder: Path) -> str:
    import multiprocessing_logging

    path = folder / f"{method}.log"
    root = logging.getLogger()
    root.handlers.clear()
    root.setLevel(logging.INFO)
    handler = logging.FileHandler(path)
    root.addHandler(handler)
    before = threading.active_count()
    multiprocessing_logging.install_mp_handler()
    after = threading.active_count()
    ctx = multiprocessing.get_context(method)
    procs = [ctx.Process(target=work, args=(RECORDS,)) for _ in range(WORKERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    time.sleep(0.5)  # the receiving thread's last records
    multiprocessing_logging.uninstall_mp_handler()
    handler.flush()
    got = sum(1 for _ in path.open())
    total = RECORDS * WORKERS
    return (
        f"{method:>10}: {got:5,} of {total:,} worker records reached the parent's log; "
        f"threads in the parent {before} -> {after}"
    )


def main() -> None:
    try:
        import multiprocessing_logging  # noqa: F401
    except ImportError:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        sys.exit("mp_logging_check: multiprocessing-logging is not installed here (see above)")
    print(f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        for method in ("fork", "forkserver", "spawn"):
            if method in multiprocessing.get_all_start_methods():
                print(check(method, Path(tmp)))


if __name__ == "__main__":
    main()
