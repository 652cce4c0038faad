"""A worker process of the process backend: its shared-memory watch, its pipe, and the
loop that plays the jobs it is sent (:func:`worker_main`)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from harness.errors import GameError, safe_text, type_name
from harness.game.rules import MAX_PLAYERS
from harness.interrupts import plugin_interrupts_only
from harness.runfolder.timing import ChunkTimes
from harness.seats import Beacon
from harness.seats.output import (
    OUTPUT_LOGGER,
    FdCapture,
    Lines,
    PluginOutput,
    PluginRecords,
)
from harness.tourney import chunks
from harness.tourney.backends.base import (
    PUBLISH_EVERY,
)
from harness.tourney.chunks import (
    WORKER_LOGGER,
    ChunkResult,
    Playing,
    rows_of,
)
from harness.tourney.groups import Chunk, play

# -- the worker process ---------------------------------------------------------------------
# The watch: a few doubles of shared memory per worker, written by the worker, read by
# the parent (an aligned 8-byte store is atomic; no lock on the hot path). From W_TIMES
# on, per table entrant: its timed decisions so far in the chunk and their seconds.
W_ROW, W_SEAT, W_TURN, W_DEADLINE, W_ENTERED, W_INSIDE, W_METHOD = range(7)
W_TIMES = 8
WATCH_SLOTS = W_TIMES + 2 * MAX_PLAYERS
NAN = float("nan")


class Watch(Beacon):
    """The worker's side of its shared memory: the row it plays (once per game; the
    native engine writes it into :attr:`progress` itself, game by game), the chunk's
    decision times so far (:attr:`times`, published at most every
    :data:`PUBLISH_EVERY` seconds), and, under limits or tracing, the seat, turn,
    deadline and method of each decision. The parent's watchdog reads it (``watched``):
    it ends a call past its deadline."""

    watched = True

    def __init__(self, shm: Any) -> None:
        self.shm = shm
        self.progress = memoryview(shm)[W_ROW : W_ROW + 1]
        self.times: ChunkTimes | None = None
        self.published = 0.0

    def game(self, row: int) -> None:
        shm = self.shm
        shm[W_INSIDE] = 0.0
        shm[W_ROW] = row
        if self.times is not None:
            now = time.monotonic()
            if now - self.published >= PUBLISH_EVERY:
                self.publish(now)

    def publish(self, now: float | None = None) -> None:
        """The chunk's decision times so far into the shared memory."""
        times, shm = self.times, self.shm
        if times is None:
            return
        self.published = time.monotonic() if now is None else now
        for e, (decisions, seconds) in enumerate(times.totals()[:MAX_PLAYERS]):
            shm[W_TIMES + 2 * e] = decisions
            shm[W_TIMES + 2 * e + 1] = seconds

    def enter(self, seat: int, turn: int, deadline: float | None) -> None:
        shm = self.shm
        shm[W_SEAT] = seat
        shm[W_TURN] = turn
        shm[W_ENTERED] = time.monotonic()
        shm[W_DEADLINE] = NAN if deadline is None else deadline
        shm[W_INSIDE] = 1.0

    def leave(self) -> None:
        shm = self.shm
        shm[W_INSIDE] = 0.0
        shm[W_DEADLINE] = NAN

    def trace(self, seat: int, turn: int, method: int) -> None:
        shm = self.shm
        shm[W_SEAT] = seat
        shm[W_TURN] = turn
        shm[W_METHOD] = method
        shm[W_INSIDE] = 1.0


@dataclass
class Job:
    """What a worker is asked to play: a chunk from ``start`` (rows before it are in the
    parent), the games the parent decided, and tracing from ``trace_from`` on."""

    spec: Chunk
    start: int = 0
    decided: dict[int, GameError] = field(default_factory=dict)
    trace_from: int | None = None
    setup: Any = None  # a picklable callable(spec) -> spec, run first (Dask: install, check)
    report: bool = True  # log one record per chunk


class ChunkRefused(Exception):
    """Raised by a job's setup: this worker must not play the chunk (other code)."""


def _prctl(option: int, value: Any) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError, TypeError):
        return False


def die_with_parent(lifeline: Any, parent: int) -> None:
    """Make this process end when its parent does: the kernel's parent-death signal
    (Linux), and a thread that exits once the lifeline pipe reaches end of file (the
    parent held its only write end)."""
    if sys.platform.startswith("linux"):
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG; the parent may be gone already:
    if lifeline is None:
        return

    def watch() -> None:
        with contextlib.suppress(Exception):
            lifeline.recv_bytes()
        os._exit(1)  # EOF: the parent is gone (or sent something: it never does)

    threading.Thread(target=watch, name="harness-lifeline", daemon=True).start()
    try:
        alive = os.getppid() != 1 and (parent <= 0 or _exists(parent))
    except OSError:
        alive = False
    if not alive:
        os._exit(1)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Sender:
    """The worker's end of its pipe, shared by the main thread and the output reader."""

    def __init__(self, conn: Any, name: str) -> None:
        self.conn = conn
        self.name = name
        self.lock = threading.Lock()

    def send(self, message: tuple) -> None:
        with self.lock:
            self.conn.send(message)

    def record(self, logger: str, level: int, text: str) -> None:
        data = {
            "name": logger,
            "levelno": level,
            "levelname": logging.getLevelName(level),
            "msg": text,
            "created": time.time(),
            "process": os.getpid(),
            "processName": self.name,
        }
        with contextlib.suppress(Exception):
            self.send(("log", [data]))


class _SendRecords(logging.Handler):
    """harness's own worker records (a forfeit's traceback, the chunk's summary)."""

    def __init__(self, sender: _Sender) -> None:
        super().__init__(logging.INFO)
        self.sender = sender

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            text = safe_text(record.msg)
        self.sender.record(record.name, record.levelno, text)


def worker_main(
    conn: Any, lifeline: Any, shm: Any, index: int, parent: int, name: str | None = None
) -> None:
    """A worker: receive a job, play it (streaming rows), until told to stop."""
    die_with_parent(lifeline, parent)
    plugin_interrupts_only()  # SIGINT ignored: the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    process_name = name or f"harness-worker-{index}"
    if sys.platform.startswith("linux"):
        _prctl(15, ctypes.c_char_p(process_name[:15].encode()))  # PR_SET_NAME: for ps, tests
    sender = _Sender(conn, process_name)
    # The game in play: the chunk writes it, the output's labels read it.
    output = PluginOutput(lambda text: sender.record(OUTPUT_LOGGER, logging.INFO, text), Playing())
    fds: FdCapture | None = None
    with contextlib.suppress(OSError):
        fds = FdCapture(output)
    sys.stdout, sys.stderr = Lines(output, "<stdout>"), Lines(output, "<stderr>")
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(PluginRecords(output))
    wlog = logging.getLogger(WORKER_LOGGER)
    for old in list(wlog.handlers):
        wlog.removeHandler(old)
    wlog.addHandler(_SendRecords(sender))
    wlog.setLevel(logging.INFO)
    wlog.propagate = False
    watch = Watch(shm)
    try:
        sender.send(("ready", os.getpid(), chunks.loaded_code()))
    except OSError:
        return
    sent_at: float | None = None  # when the last job ended: the wait for the next starts
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if job is None:
            return
        waited = time.perf_counter() - sent_at if sent_at is not None else 0.0
        try:
            _play_job(job, sender, watch, output, index, waited, fds)
        except OSError:  # the parent is gone (a send failed)
            return
        sent_at = time.perf_counter()


def _play_job(
    job: Job,
    sender: _Sender,
    watch: Watch,
    output: PluginOutput,
    index: int,
    waited: float,
    fds: FdCapture | None = None,
) -> None:
    started = time.perf_counter()
    spec = job.spec
    sent = job.start  # rows up to here are the parent's
    times = watch.times = ChunkTimes(len(spec.entrants))

    def sink(result: ChunkResult, stop: int) -> None:
        nonlocal sent
        part = rows_of(result, sent - job.start, stop - job.start, job.start)
        sender.send(("rows", sent, part))
        sent = stop

    output.begin()
    try:
        if job.setup is not None:
            spec = job.setup(spec)
        result = play(
            spec,
            start=job.start,
            decided=job.decided,
            watch=watch,
            trace_from=job.trace_from,
            sink=sink,
            times=times,
            now=output.now,
        )
    except ChunkRefused as exc:
        sender.send(("refused", safe_text(exc), waited))
        return
    except OSError:
        raise
    except BaseException as exc:  # every KeyboardInterrupt here is a plugin's
        with contextlib.suppress(Exception):
            text = bounded(traceback.format_exc())
            logging.getLogger(WORKER_LOGGER).error("%s raised:\n%s", spec.describe(), text)
        sender.send(("error", f"{type_name(exc)}: {safe_text(exc)}", waited))
        return
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        if fds is not None:
            fds.sync()  # the chunk's output (C code's too) before its end
    if job.report:  # before "done": the parent reads no further once a chunk is done
        logging.getLogger(WORKER_LOGGER).info(
            "worker %d (pid %d): %s: %d games in %.2f CPU-s",
            index,
            os.getpid(),
            spec.describe(),
            result.rows + job.start,
            result.cpu,
        )
    tail = rows_of(result, sent - job.start, result.rows, job.start)
    tail.times, tail.output = result.times, dict(output.written)
    busy = time.perf_counter() - started
    sender.send(("done", sent, tail, result.cpu, result.loaded, waited, busy, result.engine))


def bounded(text: str, limit: int = chunks.TRACEBACK_LIMIT) -> str:
    return text if len(text) <= limit else "...\n" + text[-limit:]
