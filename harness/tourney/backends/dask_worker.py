"""What runs on a Dask worker: one task per chunk, checked, played and sent back whole.

:func:`play_task` is the task. It refuses to play for a parent whose harness differs
(version, engine digest, or an entrant's code digest as this worker computes it), loads
the file plugins shipped with the task (a worker on another machine has no such file),
plays the chunk with :func:`~harness.tourney.chunks.play_chunk`, and returns a
:class:`Reply`: the result or the reason it failed, with the log records the task made.
Nothing is written anywhere: the parent stores results and log (run.log).

A Dask worker process is long-lived and plays every table, so it never loads user code
itself: a chunk with a user entrant (or with seat limits, which need the watchdog) is
played in a clean child process of the Dask worker, by the local backend
(:class:`~harness.tourney.backends.process.ProcessBackend` with one worker, forked from its fork
server): the shipped files are installed, the code checked and the chunk played there,
with all the local backend contains (a plugin that kills its process, loops in C code
or prints) and the same rows. Chunks of built-ins alone, without limits, are played in
the Dask worker itself, as fast as before.

:func:`dask_setup` is a worker preload for the local cluster (see DaskBackend): its
workers share the terminal, whose Ctrl-C is the parent's to handle.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import platform
import signal
import sys
import threading
import time
import traceback
import types
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.errors import PluginError
from harness.plugins import resolve, run_plugin_source
from harness.seats import Beacon
from harness.tourney.backends.base import Done, Failed, is_builtin_ref
from harness.tourney.backends.process import ProcessBackend
from harness.tourney.backends.worker import ChunkRefused
from harness.tourney.chunks import WORKER_LOGGER, ChunkResult
from harness.tourney.groups import Chunk, play
from harness.tourney.plan import EntrantRef, engine_digest


@dataclass(frozen=True)
class Shipped:
    """A file plugin's source, so that a worker can load it without the file."""

    module: str  # the module name the parent loaded it under (its code digest covers it)
    path: str  # where the file is on the parent's machine (for messages)
    source: bytes


@dataclass(frozen=True)
class Task:
    """One chunk as a worker plays it, with what it needs to check and load the code."""

    spec: Chunk  # file plugins point at their shipped module
    shipped: tuple[Shipped, ...]
    version: str  # the parent's harness version
    engine: str  # the parent's engine digest
    codes: tuple[str, ...]  # per entrant, its code digest as the parent computes it now
    key: str = ""  # the task's key: the progress it reports is filed under it


@dataclass
class Reply:
    """What a task sends back: the result or why not, and the log records it made."""

    status: str  # ok | error (playing raised) | refused (other code than the parent's)
    result: ChunkResult | None
    reason: str
    worker: str
    records: list[dict[str, Any]] = field(default_factory=list)


# -- the code identity ----------------------------------------------------------------------
def identity() -> dict[str, Any]:
    """This process's harness: version, engine digest, Python (checked against the parent)."""
    import harness

    return {
        "version": harness.__version__,
        "engine": engine_digest(),
        "python": platform.python_version(),
        "pid": os.getpid(),
    }


def mismatch(found: dict[str, Any], version: str, engine: str, worker: str) -> str | None:
    """Why a worker whose :func:`identity` is ``found`` must not play for a parent with
    harness ``version`` and ``engine`` digest (one line), or None."""
    if found["version"] != version:
        return (
            f"Dask worker {worker} has harness {found['version']}, this machine has "
            f"{version}: install the same harness on every worker "
            f"(pip install 'pickomino-harness=={version}', or the same source)"
        )
    if found["engine"] != engine:
        return (
            f"Dask worker {worker} has harness {version} with other engine code (digest "
            f"{found['engine']}, this machine {engine}): install the same source on every "
            "worker"
        )
    return None


_CODES: dict[tuple[str, tuple], str] = {}  # (load, params) -> code digest, per process


def code_of(ref: EntrantRef) -> str:
    """The code digest of an entrant as this process resolves it (cached)."""
    key = (ref.load, ref.params)
    if key not in _CODES:
        _CODES[key] = resolve(ref.load, dict(ref.params) or None).identity()["code"]
    return _CODES[key]


_INSTALLING = threading.Lock()  # a worker with several threads installs a module once


def install(shipped: Shipped) -> None:
    """Execute a shipped plugin file as module ``shipped.module`` (once per process)."""
    with _INSTALLING:
        _install(shipped)


def _install(shipped: Shipped) -> None:
    if shipped.module in sys.modules:
        return
    module = types.ModuleType(shipped.module)
    module.__file__ = shipped.path
    # As harness.plugins marks a plugin file: its code digest is that of this source.
    module.__harness_code__ = hashlib.sha256(shipped.source).hexdigest()[:16]  # type: ignore[attr-defined]
    sys.modules[shipped.module] = module  # before executing it: dataclasses look it up
    try:
        run_plugin_source(module, shipped.source, shipped.path)
    except Exception as exc:
        del sys.modules[shipped.module]
        raise PluginError(
            f"{shipped.path}: loading the shipped plugin failed: {type(exc).__name__}: {exc} "
            "(a plugin file is shipped alone: install the modules it imports on every worker)"
        ) from exc


# -- log records ------------------------------------------------------------------------------
class _Capture(logging.Handler):
    """Keeps the records this thread makes while a task runs, to send them back."""

    def __init__(self, worker: str) -> None:
        super().__init__(logging.INFO)
        self.worker = worker
        self.thread = threading.get_ident()
        self.records: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:
            return  # another task's thread (a worker with several), or Dask's own
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        self.records.append(_as_dict(record, text, self.worker))


def _as_dict(record: logging.LogRecord, text: str, worker: str) -> dict[str, Any]:
    """A record as the parent rebuilds it (its text given), labelled with the worker."""
    return {
        "name": record.name,
        "levelno": record.levelno,
        "levelname": record.levelname,
        "msg": text,
        "created": record.created,
        "msecs": record.msecs,
        "process": record.process,
        "processName": f"dask-worker {worker}",
    }


@contextlib.contextmanager
def _captured(worker: str) -> Iterator[_Capture]:
    """Capture what this thread logs: the harness worker records (INFO and up, as the
    local workers send) and any logger's warnings and errors (a strategy's, say)."""
    capture = _Capture(worker)
    logging.getLogger(WORKER_LOGGER).setLevel(logging.INFO)
    root = logging.getLogger()
    root.addHandler(capture)  # records propagate to it; no other logger is touched
    try:
        yield capture
    finally:
        root.removeHandler(capture)


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):  # not in a Dask worker (called directly)
        return f"pid {os.getpid()}"


def _unship(text: str, shipped: tuple[Shipped, ...]) -> str:
    """Messages name a shipped plugin by its file, as they do locally."""
    for item in shipped:
        text = text.replace(item.module, item.path)
    return text


# -- the task -----------------------------------------------------------------------------------
def needs_child(spec: Chunk) -> bool:
    """A chunk with user code or seat limits: played in a clean child process."""
    return spec.limited or not all(is_builtin_ref(ref) for ref in spec.entrants)


def _other_code(spec: Chunk, codes: tuple[str, ...], worker: str) -> str | None:
    """Why this process must not play ``spec`` (an entrant's code differs), or None."""
    for ref, expected in zip(spec.entrants, codes, strict=True):
        here = code_of(ref)
        if here != expected:
            return (
                f"Dask worker {worker} has other code for strategy {ref.name} "
                f"(digest {here}, this machine {expected}): install the same "
                "harness and strategy packages on every worker, the same way (an "
                "editable install on one side and a regular one on the other differ)"
            )
    return None


@dataclass(frozen=True)
class _Prepare:
    """Run in the child before it plays: install the shipped files, check the code."""

    shipped: tuple[Shipped, ...]
    codes: tuple[str, ...]
    worker: str

    def __call__(self, spec: Chunk) -> Chunk:
        for item in self.shipped:
            install(item)
        refusal = _other_code(spec, self.codes, self.worker)
        if refusal is not None:
            raise ChunkRefused(refusal)
        return spec


class _ToReply(logging.Handler):
    """The child's log records (and its plugins' output), kept for the reply."""

    def __init__(self, capture: _Capture) -> None:
        super().__init__(logging.DEBUG)
        self.capture = capture

    def emit(self, record: logging.LogRecord) -> None:
        self.capture.records.append(_as_dict(record, record.getMessage(), self.capture.worker))


def _local_temp() -> None:
    """multiprocessing's temp folder (its fork server's socket) in the Dask worker's own
    local directory, not the system's, where the path is short enough: a local
    cluster's scratch space is the run folder's, removed at the end. Once per process."""
    import multiprocessing.process
    import multiprocessing.util
    import shutil
    import tempfile

    config = multiprocessing.process.current_process()._config  # type: ignore[attr-defined]
    if config.get("tempdir") is not None:
        return
    try:
        from distributed import get_worker

        where = get_worker().local_directory
    except (ImportError, ValueError, AttributeError):  # not in a Dask worker
        return
    # The fork server listens on a socket in that folder: a Unix socket's path has at
    # most 107 bytes; in a deeper folder, the system's temp folder it is.
    if len(os.fsencode(os.path.join(where, "pymp-xxxxxxxx", "listener-xxxxxxxx"))) > 100:
        return
    tempdir = tempfile.mkdtemp(prefix="pymp-", dir=where)
    multiprocessing.util.Finalize(None, shutil.rmtree, args=(tempdir, True), exitpriority=-100)
    config["tempdir"] = tempdir


PROGRESS_TOPIC = "harness-progress"  # the Dask event topic of the chunks' progress
REPORT_EVERY = 0.5  # seconds between two progress events of a task


class _Reporter:
    """A task's progress, game by game, as Dask events (:data:`PROGRESS_TOPIC`): the
    games played of its chunk and the decision times so far, at most every
    :data:`REPORT_EVERY` seconds; the parent (DaskBackend) shows them before the chunk's
    result comes back whole."""

    def __init__(self, task: Task) -> None:
        self.key = task.key
        self.sent = 0.0
        try:
            from distributed import get_worker

            self.worker: Any = get_worker() if task.key else None
        except (ImportError, ValueError):  # not in a Dask worker (tests call play_task)
            self.worker = None

    def tell(self, rows: int, times: dict[str, tuple[int, float]], force: bool = False) -> None:
        now = time.monotonic()
        if self.worker is None or (not force and now - self.sent < REPORT_EVERY):
            return
        self.sent = now
        msg = {"key": self.key, "rows": int(rows), "times": {k: list(v) for k, v in times.items()}}
        with contextlib.suppress(Exception):  # a closing worker: the result still comes
            self.worker.log_event(PROGRESS_TOPIC, msg)


class _Playing(Beacon):
    """The watch of a chunk played in the task's own thread: the row of the game in play
    (the native engine writes it into :attr:`progress` itself), read by a thread that
    reports it."""

    def __init__(self) -> None:
        self.progress = array("d", [-1.0])

    def game(self, row: int) -> None:
        self.progress[0] = row


def _reported(reporter: _Reporter, watch: _Playing, play: Any) -> Any:
    """``play()`` while a thread reports ``watch``'s row every REPORT_EVERY seconds."""
    if reporter.worker is None:
        return play()
    done = threading.Event()

    def report() -> None:
        while not done.wait(REPORT_EVERY):
            reporter.tell(max(0, int(watch.progress[0])), {}, force=True)

    thread = threading.Thread(target=report, name="harness-progress", daemon=True)
    thread.start()
    try:
        return play()
    finally:
        done.set()
        thread.join(timeout=5)


def _in_child(task: Task, worker: str, capture: _Capture) -> Reply:
    """Play the task's chunk in a clean child process (see the module docstring)."""
    _local_temp()
    backend = ProcessBackend(
        1,
        _ToReply(capture),
        setup=_Prepare(task.shipped, task.codes, worker),
        report=False,  # play_task logs the chunk's one record
        attempts=1,  # the parent retries a chunk that raises
        prefix="harness-dask-child",
    )
    reporter = _Reporter(task)
    outcome: Done | Failed | None = None
    for item in backend.results([task.spec]):
        if item is not None:
            outcome = item
        else:
            reporter.tell(backend.in_flight(), backend.decision_times())
    if isinstance(outcome, Done):
        return Reply("ok", outcome.result, "", worker, capture.records)
    assert isinstance(outcome, Failed)
    reason = _unship(outcome.reason.removeprefix("playing it raised "), task.shipped)
    return Reply("refused" if outcome.refused else "error", None, reason, worker, capture.records)


def play_task(task: Task) -> Reply:
    """Check the code is the parent's, load shipped plugins, play the chunk.

    Never raises for a chunk that fails: the reason and the records come back in the
    reply, and the parent decides on retries.
    """
    worker = _worker_address()
    wlog = logging.getLogger(WORKER_LOGGER)
    with _captured(worker) as capture:
        refusal = mismatch(identity(), task.version, task.engine, worker)
        if refusal is not None:
            return Reply("refused", None, refusal, worker, capture.records)
        started = time.perf_counter()
        if needs_child(task.spec):
            reply = _in_child(task, worker, capture)
            if reply.status == "ok":
                assert reply.result is not None
                wlog.info(
                    "pid %d (a child of its own): %s: %d games in %.2f CPU-s (%.2f s)",
                    os.getpid(),
                    task.spec.describe(),
                    reply.result.rows,
                    reply.result.cpu,
                    time.perf_counter() - started,
                )
            return reply
        try:
            refusal = _other_code(task.spec, task.codes, worker)
            if refusal is not None:
                return Reply("refused", None, refusal, worker, capture.records)
            watch = _Playing()
            result = _reported(_Reporter(task), watch, lambda: play(task.spec, watch=watch))
        except Exception as exc:
            wlog.error(
                "%s raised:\n%s",
                task.spec.describe(),
                _unship(traceback.format_exc().rstrip(), task.shipped),
            )
            reason = _unship(f"{type(exc).__name__}: {exc}", task.shipped)
            return Reply("error", None, reason, worker, capture.records)
        wlog.info(
            "pid %d: %s: %d games in %.2f CPU-s (%.2f s)",
            os.getpid(),
            task.spec.describe(),
            result.rows,
            result.cpu,
            time.perf_counter() - started,
        )
    return Reply("ok", result, "", worker, capture.records)


def dask_setup(worker: Any) -> None:
    """Preload of the local cluster's workers: Ctrl-C in the terminal they share with the
    parent is the parent's to handle (it cancels the tasks and closes the cluster), so
    they ignore SIGINT instead of dying with a traceback each."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
