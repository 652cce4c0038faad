"""run.log: the ``harness.tourney`` log of a run sent to its folder (one phase of a run:
the runner opens it before status and closes it after the sum-up).

A write that fails is said once and the run goes on without the log (:class:`RunLogHandler`).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from harness.runfolder.layout import describe_os_error
from harness.tourney.progress import console_handlers


class RunLogHandler(logging.FileHandler):
    """run.log's handler. A write that fails (a full disk, a folder gone read-only) is
    said once, in one line naming the file (``warn``), and the log is left off: the run
    goes on, and a run that completes is reported complete. Never a "Logging error"
    traceback per record, never an exception out of ``close``."""

    def __init__(self, path: Path, warn: Callable[[str], None] | None = None) -> None:
        self.failed = False
        self._warn = warn
        super().__init__(path, encoding="utf-8", delay=True)

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)  # a failure reaches handleError

    def handleError(self, record: logging.LogRecord | None) -> None:  # noqa: N802 - logging's
        self._give_up(sys.exc_info()[1])

    def flush(self) -> None:
        if self.failed:
            return
        try:
            super().flush()
        except OSError as exc:
            self._give_up(exc)

    def close(self) -> None:
        try:
            super().close()
        except OSError as exc:
            self._give_up(exc)
            with contextlib.suppress(Exception):
                logging.StreamHandler.close(self)

    def _give_up(self, exc: BaseException | None) -> None:
        if self.failed:
            return
        self.failed = True
        stream, self.stream = self.stream, None  # type: ignore[assignment]
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.close()
        why = (
            describe_os_error(exc, self.baseFilename, "write the log")
            if isinstance(exc, OSError)
            else f"{self.baseFilename}: cannot write the log ({type(exc).__name__})"
        )
        if self._warn is not None:
            self._warn(f"Warning: {why}; the run goes on without it.")


@contextlib.contextmanager
def run_log(path: Path, warn: Callable[[str], None] | None = None) -> Iterator[logging.Handler]:
    """Send the ``harness.tourney`` log to ``path`` for the run; yields the file handler
    (:class:`RunLogHandler`: ``warn`` gets one line if the file cannot be written).

    Workers send their records over their own pipes, as messages the parent hands to
    this handler (see backend: ``_SendRecords``, ``ProcessBackend._forward``), so
    workers' records land in the same file with no logging thread and no queue: the
    parent never forks (workers come from a single-threaded fork server), and Python
    3.12+'s "multi-threaded, use of fork() may lead to deadlocks" cannot apply. The
    stderr handlers of ``-v`` (:func:`harness.tourney.progress.console_handlers`) get the
    run's records too, since this log does not propagate.
    """
    logger = logging.getLogger("harness.tourney")
    handler = RunLogHandler(path, warn)
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
    handler.setLevel(logging.INFO)  # -vv's debug records are for the terminal only
    old_level, old_propagate = logger.level, logger.propagate
    console = [h for h in console_handlers() if h not in logger.handlers]
    logger.addHandler(handler)
    for extra in console:
        logger.addHandler(extra)
    logger.setLevel(min([logging.INFO, *(h.level for h in console)]))
    logger.propagate = False
    try:
        yield handler
    finally:
        for extra in console:
            logger.removeHandler(extra)
        logger.removeHandler(handler)
        handler.close()
        logger.setLevel(old_level)
        logger.propagate = old_propagate


__all__ = ["RunLogHandler", "run_log"]
