"""Backends: where chunks are played. A backend turns chunk specs into outcomes.

``backend.results(specs)`` is a generator of :class:`Done` and :class:`Failed`
outcomes (and ``None`` now and then, so the caller can refresh its progress while
nothing finishes). Closing the generator stops the work at once. A chunk that fails
(its worker dies, or playing it raises) is retried once, then reported as failed; the
run goes on. Backends know nothing of storage: the caller stores each outcome.

:class:`ProcessBackend` runs worker processes of its own rather than a
``multiprocessing.Pool`` (which hangs forever when a worker dies with ``os._exit``) or a
``ProcessPoolExecutor`` (which breaks for good and never retries): each worker has a
pipe and holds one chunk at a time, and the parent watches pipes and process sentinels
together, so a death is noticed at once and only that chunk is lost.

Workers' log records reach the parent's handlers through multiprocessing-logging,
one :class:`~multiprocessing_logging.MultiProcessingHandler` (one queue) per worker:
a worker killed while its queue's feeder thread holds the queue's shared write lock
leaves that lock held for good, and with one queue for all, every other process's
records would be stuck behind it. Per worker, a death costs only that worker's last
records. (This needs the fork start method; elsewhere workers' records are dropped.)
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from harness.tourney.chunks import ChunkResult, play_chunk
from harness.tourney.plan import ChunkSpec

log = logging.getLogger("harness.tourney")
ATTEMPTS = 2  # a failed chunk is tried once more, then reported
POLL = 0.25  # seconds between progress refreshes while no chunk finishes


@dataclass
class Done:
    spec: ChunkSpec
    result: ChunkResult


@dataclass
class Failed:
    spec: ChunkSpec
    reason: str


Outcome = Done | Failed | None


def start_method() -> str:
    """fork where there is one: multiprocessing-logging needs it (records are lost or
    refused under spawn and forkserver)."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


class SerialBackend:
    """Plays every chunk in this process (``workers: 0``): for debuggers and profilers."""

    workers = 0

    def results(self, specs: Iterable[ChunkSpec]) -> Iterator[Outcome]:
        for spec in specs:
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    result = play_chunk(spec)
                except Exception as exc:
                    reason = f"{type(exc).__name__}: {exc}"
                    log.warning(
                        "chunk %s failed (attempt %d): %s", spec.describe(), attempt, reason
                    )
                    if attempt == ATTEMPTS:
                        yield Failed(spec, reason)
                    continue
                yield Done(spec, result)
                break


WORKER_LOGGER = "harness.tourney.worker"


class _Forward(logging.Handler):
    """Hands records to the run's handler through its handle() (which takes its lock:
    several receiving threads share the file)."""

    def __init__(self, target: logging.Handler) -> None:
        super().__init__()
        self.target = target

    def emit(self, record: logging.LogRecord) -> None:
        self.target.handle(record)

    def close(self) -> None:  # the run's handler is closed by its owner
        super().close()


def _worker_log(index: int, target: logging.Handler | None) -> Any:
    """A worker's own multiprocessing-logging handler (made in the parent, before fork)."""
    if target is None or start_method() != "fork":
        return None
    from multiprocessing_logging import MultiProcessingHandler

    return MultiProcessingHandler(f"harness-worker-{index}-log", sub_handler=_Forward(target))


def _close_log(handler: Any, clean: bool) -> threading.Thread | None:
    """Close a worker's log handler in a thread; the thread to wait for, if any.

    After a clean exit the queue is drained (a process joins its queue feeder threads
    as it exits) and closing takes a moment: wait for it. After a death, records the
    worker counted but never sent keep the handler waiting (up to 5 s) for them: let it
    finish on its own.
    """
    if handler is None:
        return None
    thread = threading.Thread(target=handler.close, name="harness-log-close", daemon=True)
    thread.start()
    return thread if clean else None


def _worker_main(conn: Any, index: int, handler: Any = None) -> None:
    """A worker: receive a spec, play it, send the compact result; until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    wlog = logging.getLogger(WORKER_LOGGER)
    # Only this worker's own handler: the handlers of workers forked earlier are
    # inherited too, and must not be written to from here.
    for old in list(wlog.handlers):
        wlog.removeHandler(old)
    if handler is not None:
        wlog.addHandler(handler)
    wlog.setLevel(logging.INFO)
    wlog.propagate = False
    sent = None  # when the last result was sent: the wait for the next chunk starts
    while True:
        try:
            spec = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if spec is None:
            return
        # Time spent waiting for work after a result: how well the parent keeps
        # workers fed (it bounds the scaling whatever the machine's load).
        waited = time.perf_counter() - sent if sent is not None else 0.0
        started = time.perf_counter()
        try:
            result = play_chunk(spec)
            message: tuple = ("ok", result, waited, time.perf_counter() - started)
            wlog.info(
                "worker %d (pid %d): %s: %d games in %.2f CPU-s",
                index,
                os.getpid(),
                spec.describe(),
                result.rows,
                result.cpu,
            )
        except Exception as exc:
            wlog.error("worker %d: %s raised:\n%s", index, spec.describe(), traceback.format_exc())
            message = ("error", f"{type(exc).__name__}: {exc}", waited, 0.0)
        try:
            conn.send(message)
            sent = time.perf_counter()
        except (BrokenPipeError, OSError):  # the parent is gone
            return


class _Worker:
    def __init__(self, ctx: Any, index: int, log_to: logging.Handler | None) -> None:
        self.index = index
        parent_end, child_end = ctx.Pipe(duplex=True)
        self.conn = parent_end
        self.log = _worker_log(index, log_to)
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child_end, index, self.log),
            name=f"harness-worker-{index}",
        )
        self.proc.daemon = True  # never outlive the parent's normal exit
        self.proc.start()
        child_end.close()
        self.spec: ChunkSpec | None = None

    def stop(self, now: bool) -> None:
        if self.proc.is_alive():
            if now:
                self.proc.terminate()
            else:
                try:
                    self.conn.send(None)
                except OSError:
                    self.proc.terminate()
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()

    def close_log(self) -> threading.Thread | None:
        """Start closing this worker's log handler; the thread to join (None if none)."""
        log, self.log = self.log, None
        return _close_log(log, clean=self.proc.exitcode == 0)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class ProcessBackend:
    """Plays chunks in ``workers`` processes of its own (see the module docstring)."""

    def __init__(self, workers: int, log_to: logging.Handler | None = None) -> None:
        if workers < 1:
            raise ValueError("a process backend needs at least one worker")
        self.workers = workers
        self.log_to = log_to  # the handler workers' records go to (run.log)
        self.waited = 0.0  # seconds workers spent waiting for their next chunk
        self.busy = 0.0  # seconds workers spent playing chunks (wall clock)
        self.ctx = multiprocessing.get_context(start_method())

    def _replace(self, workers: list[_Worker], dead: _Worker) -> _Worker:
        """Put a fresh worker in a dead one's place."""
        dead.stop(now=True)
        dead.close_log()
        fresh = _Worker(self.ctx, dead.index, self.log_to)
        workers[workers.index(dead)] = fresh
        return fresh

    def _hand_out(
        self, workers: list[_Worker], pending: Iterator[ChunkSpec], retry: deque[ChunkSpec]
    ) -> None:
        """Give every idle worker its next chunk (retries first)."""
        for w in list(workers):
            if w.spec is not None:
                continue
            spec = retry.popleft() if retry else next(pending, None)
            if spec is None:
                return
            try:
                w.conn.send(spec)
            except OSError:  # it died while idle: the chunk never started; a fresh worker
                w.proc.join(timeout=5)
                log.warning(
                    "worker %d died between chunks (%s); starting a new one",
                    w.index,
                    describe_exit(w.proc.exitcode),
                )
                w = self._replace(workers, w)
                w.conn.send(spec)
            w.spec = spec

    def results(self, specs: Iterable[ChunkSpec]) -> Iterator[Outcome]:
        pending = iter(specs)
        retry: deque[ChunkSpec] = deque()
        failures: dict[str, int] = {}
        workers = [_Worker(self.ctx, i, self.log_to) for i in range(self.workers)]
        finished = False
        try:
            while True:
                self._hand_out(workers, pending, retry)
                busy = [w for w in workers if w.spec is not None]
                if not busy:
                    finished = True
                    return
                ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], POLL))
                if not ready:
                    yield None
                    continue
                outcomes: list[Outcome] = []
                for w in busy:
                    if w.conn not in ready and w.proc.sentinel not in ready:
                        continue
                    spec = w.spec
                    assert spec is not None
                    try:
                        if not w.conn.poll():
                            raise EOFError
                        message = w.conn.recv()
                    except Exception:  # EOF, a torn message: the worker died mid-send
                        w.proc.join(timeout=5)
                        reason = f"its worker process died ({describe_exit(w.proc.exitcode)})"
                        w.spec = None
                        self._replace(workers, w)
                    else:
                        w.spec = None
                        self.waited += message[2]
                        self.busy += message[3]
                        if message[0] == "ok":
                            outcomes.append(Done(spec, message[1]))
                            continue
                        reason = f"playing it raised {message[1]}"
                    failures[spec.key] = failures.get(spec.key, 0) + 1
                    if failures[spec.key] < ATTEMPTS:
                        log.warning(
                            "chunk %s failed: %s; retrying it once", spec.describe(), reason
                        )
                        retry.append(spec)
                    else:
                        log.error("chunk %s failed again: %s; giving up", spec.describe(), reason)
                        outcomes.append(Failed(spec, reason))
                # Refill idle workers before the caller gets (and stores) the outcomes:
                # a worker that just finished starts its next chunk at once.
                self._hand_out(workers, pending, retry)
                yield from outcomes
        finally:
            for w in workers:
                w.stop(now=not finished)
            for thread in [w.close_log() for w in workers]:
                if thread is not None:
                    thread.join()
