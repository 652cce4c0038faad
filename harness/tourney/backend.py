"""Backends: where chunks are played. A backend turns chunk specs into outcomes.

Every backend shows the same small face, :class:`Backend`: ``backend.results(specs)``
is a generator of :class:`Done` and :class:`Failed` outcomes (and ``None`` now and
then, so the caller can refresh its progress while nothing finishes), ``describe()``
says where it plays and ``stats()`` how it went; closing the generator stops the work
at once. Backends know nothing of storage: the caller stores each outcome. A chunk
that raises is retried by one account of retries for all of them (:class:`Retries`).

:class:`ProcessBackend` runs worker processes of its own, each with a pipe and one
chunk at a time; the parent watches pipes and process sentinels together, so a death
is noticed at once. What it guarantees, whatever a plugin does:

* **Clean workers.** Workers are forked from a fork server that is a fresh interpreter
  (it imports harness and its built-ins, never user code), not from the parent, which
  imported every plugin when it read the config. A worker is replaced by a fresh one
  before it plays a table whose entrants do not cover the user code it has loaded
  (chunks are handed out table by table, so that is rare), so a plugin that patches
  other strategies when imported changes only its own games. Each result says which
  user code its process had loaded (``ChunkResult.loaded``).
* **A death costs one game, stored as a forfeit.** A worker streams its rows to the
  parent every :data:`~.chunks.FLUSH_EVERY` seconds and writes the row it plays to a
  little shared memory once per game. When it dies, a fresh worker goes on from the
  first row not received, tracing every decision (which seat, turn and method it
  is in) from the row it died in; if it dies there again, that game is stored as a
  forfeit of that seat at that turn ("its worker process died (exit code 3) in
  pick()", error kind "crash") and the next worker goes on from the next game. A death
  that does not happen again (the OOM killer, a kill from outside) costs nothing.
* **The watchdog.** Under time limits the seats report each decision and its deadline
  to the same shared memory (a :class:`~harness.seats.Beacon`); the parent kills a
  worker still in a decision past its deadline plus a grace, stores a time forfeit for
  that seat at that turn and goes on from the next game: a loop in C code that ignores
  signals cannot hang the run. Without limits, a game that makes no progress for
  :data:`STUCK_AFTER` seconds gets one warning in run.log that names it.
* **Output is contained.** A worker's stdout and stderr (``sys.stdout``, ``logging``
  and file descriptors 1 and 2, for C code) go to run.log, labelled with the game and,
  when it can be told, the seat and strategy that wrote it; at most
  :data:`OUTPUT_LIMIT` characters per chunk, then one "output truncated" line.
* **Workers die with their parent**: on Linux the kernel kills them when the parent
  dies (``PR_SET_PDEATHSIG``), and a thread watching a lifeline pipe does it elsewhere.

A chunk whose playing raises (a plugin file edited mid-run, say) is retried once, then
reported as failed; the run goes on. :class:`SerialBackend` plays in this process
(``workers: 0``, for debuggers and profilers): it contains what a process can (output,
exceptions, a plugin's ``sys.exit``), but not a plugin that kills the process or
patches other strategies, and it says so once.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any, Protocol, runtime_checkable

from harness.errors import MESSAGE_LIMIT, GameError, SeatCrashed, TimeForfeit, safe_text, type_name
from harness.game.rules import MAX_PLAYERS
from harness.interrupts import plugin_interrupts_only, reraise_if_user
from harness.plugins import builtin_strategies, is_own_module, names_a_file, parse_reference
from harness.runfolder.manifest import OUTPUT_KEPT, UNLABELLED
from harness.runfolder.timing import ChunkTimes
from harness.runfolder.timing import merge as merge_times
from harness.seats import Beacon
from harness.tourney import chunks
from harness.tourney.chunks import (
    METHODS,
    NOW,
    WORKER_LOGGER,
    ChunkResult,
    empty_result,
    extend,
    finish,
    play_chunk,
    rows_of,
)
from harness.tourney.plan import ChunkSpec, EntrantRef

log = logging.getLogger("harness.tourney")
ATTEMPTS = 2  # a chunk that raises is tried once more, then reported
POLL = 0.25  # seconds between progress refreshes (and watchdog looks) while nothing lands
GRACE = 0.5  # seconds past a deadline before the watchdog kills: GRACE + GRACE_SHARE x limit
GRACE_SHARE = 0.1
STUCK_AFTER = 60.0  # seconds without a finished game (no limits) before a warning
OUTPUT_LIMIT = OUTPUT_KEPT  # characters of plugin output stored per chunk
OUTPUT_LOGGER = "harness.tourney.output"
START_FAILURES = 3  # workers in a row that die before they are ready: the run stops


@dataclass
class Done:
    spec: ChunkSpec
    result: ChunkResult


@dataclass
class Failed:
    spec: ChunkSpec
    reason: str
    refused: bool = False  # the worker refused to play it (other code than the parent's)


Outcome = Done | Failed | None


@dataclass(frozen=True)
class BackendStats:
    """What a backend tells the run about how it went: the share of time its workers
    waited for work (``Run.worker_wait``), and lines for run.log."""

    worker_wait: float = 0.0
    lines: tuple[str, ...] = ()


@runtime_checkable
class Backend(Protocol):
    """Where chunks are played: the one face every backend shows the runner (and sprt).

    ``results(specs)`` is a generator of outcomes (see the module docstring); closing it
    stops the work at once and frees what the backend started (processes, a cluster),
    so a backend needs no close of its own. ``workers`` is how many play (0: this
    process), ``describe()`` says where, in words, and ``stats()`` how it went.
    ``in_flight()`` is how many games of chunks not yet handed over have been played
    already (what the progress bar adds to the stored ones; 0 when it cannot tell).
    """

    workers: int

    def results(self, specs: Iterable[ChunkSpec]) -> Iterator[Outcome]: ...

    def describe(self) -> str: ...

    def stats(self) -> BackendStats: ...

    def in_flight(self) -> int: ...


class Retries:
    """The one account of chunks whose playing raised: each is played again, up to
    ``attempts`` times in all, then reported; run.log says which happened."""

    def __init__(self, attempts: int = ATTEMPTS) -> None:
        self.attempts = attempts
        self.failures: dict[str, int] = {}  # chunk key -> attempts that raised so far

    def attempt(self, spec: ChunkSpec) -> int:
        """The number of the chunk's next attempt (1 for the first)."""
        return self.failures.get(spec.key, 0) + 1

    def failed(self, spec: ChunkSpec, reason: str) -> Failed | None:
        """One attempt raised: None to play it again, or the Failed outcome to report."""
        tried = self.attempt(spec)
        if tried < self.attempts:
            self.failures[spec.key] = tried
            log.warning("chunk %s failed: %s; retrying it once", spec.describe(), reason)
            return None
        self.failures.pop(spec.key, None)
        log.error("chunk %s failed again: %s; giving up", spec.describe(), reason)
        return Failed(spec, reason)


def local_backend(
    workers: int, log_to: logging.Handler | None = None, echo: Callable[[str], None] | None = None
) -> Backend:
    """Worker processes of our own (``workers`` >= 1), or this process (0)."""
    if workers > 0:
        return ProcessBackend(workers, log_to)
    return SerialBackend(echo=echo)


class WorkersCannotStart(RuntimeError):
    """Worker processes die before they are ready (one line, for the run to stop)."""


def describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


# -- user code ----------------------------------------------------------------------------
def is_builtin_ref(ref: EntrantRef) -> bool:
    """An entrant whose code is harness's own (a built-in name, or a module reference into
    harness's packages); anything else (files, other modules, entry points) is user code."""
    name = parse_reference(ref.load)[0]
    where, sep, _ = name.rpartition(":")
    if not sep:
        return name in builtin_strategies()
    if names_a_file(where):
        return False
    return is_own_module(where)


def user_codes(spec: ChunkSpec) -> set[str]:
    """The code digests of a chunk's user entrants: the user code it may have loaded."""
    return {ref.code for ref in spec.entrants if not is_builtin_ref(ref)}


# -- plugin output ----------------------------------------------------------------------------
class PluginOutput:
    """What plugins write, as labelled lines for run.log, at most :data:`OUTPUT_LIMIT`
    characters per chunk (then one "output truncated" line); each line at most
    :data:`~harness.errors.MESSAGE_LIMIT` characters.

    A line is labelled with the game being played (:data:`~.chunks.NOW`) and, found at
    write time from the writer's stack, the seat whose strategy wrote it.
    """

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.emit = emit
        self.used = 0
        self.truncated = False
        self.lock = threading.Lock()
        self.written: dict[str, int] = {}  # characters written this chunk, by strategy

    def begin(self) -> None:
        """A new chunk: a new allowance, and nothing written yet."""
        with self.lock:
            self.used, self.truncated = 0, False
            self.written = {}

    def count(self, chars: int, frame: Any = None) -> None:
        """``chars`` written by the strategy running in ``frame`` (its seat's strategy;
        UNLABELLED when no seat's code wrote it), kept or not: what the run tells at its
        end (the chunk's ``output``)."""
        if chars <= 0:
            return
        seat = seat_of(frame) if frame is not None else None
        who = NOW.names[seat] if seat is not None and seat < len(NOW.names) else UNLABELLED
        with self.lock:
            self.written[who] = self.written.get(who, 0) + chars

    def line(self, text: str, frame: Any = None, *, raw: bool = False) -> None:
        """One line; ``raw``: written to a file descriptor, read a moment later (so
        labelled with the table only: the game may have moved on)."""
        with self.lock:
            if self.truncated:
                return
            text = text.rstrip("\r")
            if len(text) > MESSAGE_LIMIT:
                text = text[:MESSAGE_LIMIT] + f"... ({len(text) - MESSAGE_LIMIT} more characters)"
            if self.used + len(text) > OUTPUT_LIMIT:
                self.truncated = True
                where = label(None)
                self.emit(f"{where}: ... output truncated (more than {OUTPUT_LIMIT:,} characters)")
                return
            self.used += len(text)
            where = label(frame) if not raw else raw_label()
            self.emit(f"{where}: {safe_text(text, MESSAGE_LIMIT + 40)}")


def seat_of(frame: Any) -> int | None:
    """The seat whose strategy instance is running in ``frame`` or a caller of it."""
    seats = NOW.seats
    depth = 0
    while frame is not None and seats and depth < 40:
        try:
            owner = frame.f_locals.get("self")
        except Exception:
            owner = None
        for i, instance in enumerate(seats):
            if owner is instance:
                return i
        frame, depth = frame.f_back, depth + 1
    return None


def raw_label() -> str:
    spec = NOW.spec
    where = f", table {spec.table}" if spec is not None else ""
    return f"plugin output (file descriptor 1 or 2){where}"


def label(frame: Any) -> str:
    """How a line of plugin output is labelled: strategy, seat, table, deal."""
    spec = NOW.spec
    if spec is None:
        return "plugin output"
    if NOW.deal < 0:
        return f"plugin output, table {spec.table} (loading its strategies)"
    where = f"table {spec.table} deal {NOW.deal} seating {NOW.order}"
    seat = seat_of(frame) if frame is not None else None
    if seat is None:
        return f"plugin output, {where}"
    return f"output of {NOW.names[seat]} (seat {seat}), {where}"


class _Lines(io.TextIOBase):
    """A text stream (sys.stdout, sys.stderr) whose lines go to a :class:`PluginOutput`."""

    def __init__(self, output: PluginOutput, name: str) -> None:
        super().__init__()
        self.output = output
        self.name = name
        self.buffer_text = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: Any) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type_name(text)}")
        self.output.count(len(text), sys._getframe(1))
        if self.output.truncated:
            return len(text)
        pending = self.buffer_text + text
        if "\n" not in pending:
            # One unending line: keep what a stored line may hold, and no more.
            self.buffer_text = pending[: MESSAGE_LIMIT + 100]
            return len(text)
        *lines, rest = pending.split("\n")
        self.buffer_text = rest[: MESSAGE_LIMIT + 100]
        frame = sys._getframe(1)
        for line in lines:
            self.output.line(line, frame)
            if self.output.truncated:
                break
        return len(text)

    def flush(self) -> None:
        if self.buffer_text:
            text, self.buffer_text = self.buffer_text, ""
            self.output.line(text, sys._getframe(1))


class _PluginRecords(logging.Handler):
    """Log records of anyone but harness (a plugin's logging) become plugin output."""

    def __init__(self, output: PluginOutput) -> None:
        super().__init__(logging.DEBUG)
        self.output = output

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.split(".")[0] == "harness":
            return
        try:
            text = f"{record.levelname} {record.name}: {safe_text(record.getMessage())}"
        except Exception:
            text = f"{record.levelname} {record.name}: <unprintable log record>"
        self.output.count(len(text) + 1, sys._getframe(1))
        self.output.line(text, sys._getframe(1))


class _Outside:
    """While serial play has file descriptors 1 and 2 in a pipe (plugin output), a way
    out for harness's own writes: :meth:`outside` puts them back for a moment."""

    def __init__(self, kept: tuple[int, int] | None = None) -> None:
        self.kept = kept

    @contextlib.contextmanager
    def outside(self) -> Iterator[None]:
        """File descriptors 1 and 2 as they were before the block, for the block."""
        if self.kept is None:
            yield
            return
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                stream and stream.flush()  # what plugin code left there goes to the pipe
        pipe = os.dup(1)
        try:
            os.dup2(self.kept[0], 1)
            os.dup2(self.kept[1], 2)
            yield
        finally:
            for stream in (sys.__stdout__, sys.__stderr__):
                with contextlib.suppress(Exception):
                    stream and stream.flush()
            os.dup2(pipe, 1)
            os.dup2(pipe, 2)
            os.close(pipe)


@contextlib.contextmanager
def contained(output: PluginOutput) -> Iterator[_Outside]:
    """Within the block (serial play), sys.stdout, sys.stderr, file descriptors 1 and 2
    and log records of non-harness loggers go to ``output``; the block gets an
    :class:`_Outside` (harness's own progress line writes through it).

    ``breakpoint()`` still reaches the terminal: serial play is for debuggers, so the
    debugger is given the real stdout (on a copy of the original descriptor).
    """
    saved = sys.stdout, sys.stderr
    saved_hook = sys.breakpointhook
    handler = _PluginRecords(output)
    root = logging.getLogger()
    with contextlib.ExitStack() as stack:
        terminal, way_out = stack.enter_context(_fds_to(output))

        def debugger(*args: Any, **kwargs: Any) -> Any:
            inner = sys.stdout
            sys.stdout = terminal or saved[0]
            try:
                return saved_hook(*args, **kwargs)
            finally:
                sys.stdout = inner

        sys.stdout, sys.stderr = _Lines(output, "<stdout>"), _Lines(output, "<stderr>")
        sys.breakpointhook = debugger
        root.addHandler(handler)
        try:
            yield way_out
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            sys.stdout, sys.stderr = saved
            sys.breakpointhook = saved_hook
            root.removeHandler(handler)


@contextlib.contextmanager
def _fds_to(output: PluginOutput) -> Iterator[tuple[Any, _Outside]]:
    """File descriptors 1 and 2 into ``output`` for the block, then back as they were;
    yields a text stream on a copy of the original stdout (None if fds cannot be moved)
    and the way out for harness's own writes."""
    try:
        sys.__stdout__ and sys.__stdout__.flush()
        sys.__stderr__ and sys.__stderr__.flush()
        kept = os.dup(1), os.dup(2)
    except (OSError, ValueError):
        yield None, _Outside()
        return
    capture = _FdCapture(output)
    terminal = open(os.dup(kept[0]), "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    try:
        yield terminal, _Outside(kept)
    finally:
        with contextlib.suppress(OSError, ValueError):
            terminal.close()
        os.dup2(kept[0], 1)  # the pipe's last write end closes: its reader ends
        os.dup2(kept[1], 2)
        os.close(kept[0])
        os.close(kept[1])
        capture.thread.join(timeout=5)


# -- serial ---------------------------------------------------------------------------------
class SerialBackend:
    """Plays every chunk in this process (``workers: 0``): for debuggers and profilers.

    A plugin's exceptions (SystemExit and its KeyboardInterrupt too) and output are
    contained; what one process cannot contain (a plugin that kills it, loops in C
    code, or patches other strategies when imported) is said once, in one line.
    """

    workers = 0

    def __init__(self, echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo or (lambda text: None)
        self.output = PluginOutput(lambda text: logging.getLogger(OUTPUT_LOGGER).info("%s", text))
        self.warned: set[str] = set()
        self.retries = Retries()
        self.watch = _SerialWatch()
        # Called between two games: results() cannot yield while a chunk plays here, so
        # the caller refreshes its progress from here (the runner sets it).
        self.refresh: Callable[[], None] | None = None

    def in_flight(self) -> int:
        """Games played of the chunk in play (told game by game by its watch)."""
        return max(0, self.watch.row)

    def decision_times(self) -> dict[str, tuple[int, float]]:
        """The timed decisions of the chunk in play so far, by strategy."""
        return self.watch.decision_times()

    def describe(self) -> str:
        return "in-process"

    def stats(self) -> BackendStats:
        return BackendStats()

    def _warn_once(self, what: str, text: str, tell: bool = True) -> None:
        if what not in self.warned:
            self.warned.add(what)
            log.warning("%s", text)
            if tell:
                self.echo(f"Note: {text}")

    def results(self, specs: Iterable[ChunkSpec]) -> Iterator[Outcome]:
        for spec in specs:
            if spec.limited and spec.isolation == "none" and user_codes(spec):
                self._warn_once(
                    "limits",
                    "workers: 0 plays in harness's own process, where a plugin could catch "
                    "or disarm the timer, or loop in C code, and never return: plugin seats "
                    "under time limits play in processes of their own",
                )
            while True:
                self.output.begin()
                times = self.watch.start(spec, self.refresh)
                try:
                    with contained(self.output) as way_out:
                        self.watch.way_out = way_out
                        result = play_chunk(spec, watch=self.watch, times=times)
                except BaseException as exc:
                    self.watch.stop()
                    if isinstance(exc, GeneratorExit):
                        raise
                    reraise_if_user(exc)  # the user's Ctrl-C stops the run; a plugin's not
                    failed = self.retries.failed(spec, f"{type_name(exc)}: {safe_text(exc)}")
                    if failed is None:
                        continue
                    yield failed
                    break
                self.watch.stop()
                result.output = dict(self.output.written)
                if not set(result.loaded) <= user_codes(spec):
                    self._warn_once(
                        "loaded",
                        "workers: 0 plays every table in this one process, with every "
                        "plugin loaded: a plugin that patches other strategies would change "
                        "their games too, so later runs will not reuse these chunks; use "
                        "workers: 1 or more to play each table with its own code only",
                        tell=False,  # run.log only: common in notebooks, and harmless there
                    )
                yield Done(spec, result)
                break


class _SerialWatch(Beacon):
    """Serial play's watch: the row of the game in play, and a call to the runner's
    refresh after each game (the only moment it can show progress)."""

    def __init__(self) -> None:
        self.row = -1
        self.names: list[str] = []
        self.times: ChunkTimes | None = None
        self.refresh: Callable[[], None] | None = None
        self.way_out = _Outside()
        self.told = 0.0

    def start(self, spec: ChunkSpec, refresh: Callable[[], None] | None) -> ChunkTimes:
        """A chunk begins: its decision times, counted from nothing."""
        self.row, self.refresh = -1, refresh
        self.names = [e.name for e in spec.entrants]
        self.times = ChunkTimes(len(spec.entrants))
        return self.times

    def stop(self) -> None:
        self.row, self.times, self.refresh = -1, None, None
        self.way_out = _Outside()

    def game(self, row: int) -> None:
        self.row = row
        if self.refresh is None:
            return
        now = time.monotonic()
        if now - self.told >= PUBLISH_EVERY:  # the bar redraws a few times a second at most
            self.told = now
            with self.way_out.outside():  # the progress line to the terminal, not run.log
                self.refresh()

    def decision_times(self) -> dict[str, tuple[int, float]]:
        if self.times is None:
            return {}
        totals = zip(self.names, self.times.totals(), strict=True)
        return {name: t for name, t in totals if t[0]}


# -- the worker process ---------------------------------------------------------------------
# The watch: a few doubles of shared memory per worker, written by the worker, read by
# the parent (an aligned 8-byte store is atomic; no lock on the hot path). From W_TIMES
# on, per table entrant: its timed decisions so far in the chunk and their seconds.
W_ROW, W_SEAT, W_TURN, W_DEADLINE, W_ENTERED, W_INSIDE, W_METHOD = range(7)
W_TIMES = 8
WATCH_SLOTS = W_TIMES + 2 * MAX_PLAYERS
PUBLISH_EVERY = 0.25  # seconds between two publications of the decision times
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

    spec: ChunkSpec
    start: int = 0
    decided: dict[int, GameError] = field(default_factory=dict)
    trace_from: int | None = None
    setup: Any = None  # a picklable callable(spec) -> spec, run first (Dask: install, check)
    report: bool = True  # log one record per chunk


class Refused(Exception):
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


_SYNC = b"\x00harness-output-sync "


class _FdCapture:
    """File descriptors 1 and 2 into a pipe whose lines become plugin output (C code,
    subprocesses, whatever bypasses sys.stdout), read by a thread of its own."""

    def __init__(self, output: PluginOutput) -> None:
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        os.close(write_end)
        self.output = output
        self.synced = threading.Condition()
        self.seen = 0
        self.thread = threading.Thread(
            target=self._read, args=(read_end,), name="harness-output", daemon=True
        )
        self.thread.start()

    def _read(self, read_end: int) -> None:
        output, pending = self.output, b""
        with open(read_end, "rb", buffering=0) as pipe:
            while True:
                data = pipe.read(65536)
                if not data:
                    break
                pending += data
                *lines, pending = pending.split(b"\n")
                pending = pending[: MESSAGE_LIMIT * 4]
                for line in lines:
                    if line.startswith(_SYNC):
                        with self.synced:
                            self.seen = int(line[len(_SYNC) :] or 0)
                            self.synced.notify_all()
                        continue
                    output.count(len(line) + 1)  # below Python: no seat to tell
                    if not output.truncated:
                        output.line(line.decode("utf-8", "replace"), raw=True)
        if pending:
            output.count(len(pending))
            if not output.truncated:
                output.line(pending.decode("utf-8", "replace"), raw=True)

    def sync(self, timeout: float = 2.0) -> None:
        """Wait until everything written to fds 1 and 2 so far has been read (so that a
        chunk's output is sent before the chunk's end)."""
        with self.synced:
            token = self.seen + 1
        try:
            os.write(1, _SYNC + str(token).encode() + b"\n")
        except OSError:  # a plugin closed fd 1
            return
        with self.synced:
            self.synced.wait_for(lambda: self.seen >= token, timeout)


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
    output = PluginOutput(lambda text: sender.record(OUTPUT_LOGGER, logging.INFO, text))
    fds: _FdCapture | None = None
    with contextlib.suppress(OSError):
        fds = _FdCapture(output)
    sys.stdout, sys.stderr = _Lines(output, "<stdout>"), _Lines(output, "<stderr>")
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(_PluginRecords(output))
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
    fds: _FdCapture | None = None,
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
        result = play_chunk(
            spec,
            start=job.start,
            decided=job.decided,
            watch=watch,
            trace_from=job.trace_from,
            sink=sink,
            times=times,
        )
    except Refused as exc:
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


# -- the parent's side ------------------------------------------------------------------------
def context() -> Any:
    """Where workers come from: a fork server (a fresh interpreter that imported harness
    and its built-ins, never user code), or spawn where there is none."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(fork_server_preload())
        return ctx
    return multiprocessing.get_context("spawn")


def fork_server_preload() -> list[str]:
    """What the fork server imports, in order: the prelude first (it keeps the fork
    server single-threaded: see fork_prelude), then harness and the built-ins. No
    ``"__main__"``: a user's script is user code."""
    builtins = [f"harness.strategies.{m}" for m in _builtin_modules()]
    return ["harness.tourney.fork_prelude", "harness.tourney.backend", *builtins]


def _builtin_modules() -> list[str]:
    import pkgutil

    import harness.strategies

    return [m.name for m in pkgutil.iter_modules(harness.strategies.__path__)]


class _Chunk:
    """A chunk in play: the rows received so far and how its workers fared."""

    def __init__(self, spec: ChunkSpec) -> None:
        self.spec = spec
        self.result = empty_result(spec)
        self.decided: dict[int, GameError] = {}
        self.trace_from: int | None = None
        self.cpu = 0.0
        self.loaded: set[str] = set()
        self.deaths = 0
        self.unexplained: dict[int, int] = {}  # row -> deaths there outside any decision
        self.stalls: dict[int, int] = {}  # rows received -> deaths before the next game
        self.engines: set[str] = set()  # the engines that played its parts
        self.times: dict[str, Any] = {}  # decision times of its parts that ended
        self.output: dict[str, int] = {}  # characters of plugin output, by strategy

    @property
    def received(self) -> int:
        return self.result.rows

    def add(self, offset: int, part: ChunkResult) -> None:
        if offset != self.received:  # cannot happen: a worker starts where rows end
            raise RuntimeError(f"rows from {offset}, expected {self.received}")
        extend(self.result, part)

    def job(self, setup: Any, report: bool) -> Job:
        return Job(self.spec, self.received, dict(self.decided), self.trace_from, setup, report)

    def whole(self) -> ChunkResult:
        result = finish(self.spec, self.result)
        result.cpu = self.cpu
        result.loaded = sorted(self.loaded)
        result.times, result.output = self.times, self.output
        # Native only if every part was (a part after a worker died is played in Python).
        result.engine = "native" if self.engines == {"native"} else "python"
        return result


class _Worker:
    def __init__(self, backend: ProcessBackend, index: int) -> None:
        ctx = backend.ctx
        self.index = index
        self.conn, child_end = ctx.Pipe(duplex=True)
        life_read, self.lifeline = ctx.Pipe(duplex=False)
        self.shm = ctx.RawArray("d", WATCH_SLOTS)
        self.shm[W_ROW] = -1
        self.shm[W_DEADLINE] = NAN
        self.proc = ctx.Process(
            target=worker_main,
            args=(child_end, life_read, self.shm, index, os.getpid(), backend.name(index)),
            name=backend.name(index),
        )
        self.proc.daemon = True  # never outlive the parent's normal exit
        with _children_allowed(), _without_main():
            _start(self.proc)
        child_end.close()
        life_read.close()
        self.chunk: _Chunk | None = None
        self.ready = False
        self.fresh = True  # has played nothing yet: as clean as a worker gets
        self.loaded: set[str] = set()
        self.seen_row = -1.0
        self.seen_at = time.monotonic()
        self.warned_row = -1.0

    def send(self, job: Job) -> None:
        self.shm[W_ROW] = -1
        self.shm[W_INSIDE] = 0
        self.shm[W_DEADLINE] = NAN
        for slot in range(W_TIMES, WATCH_SLOTS):
            self.shm[slot] = 0.0
        self.seen_row, self.seen_at = -1.0, time.monotonic()
        self.conn.send(job)

    def stop(self, now: bool, forward: Any = None) -> None:
        """End the worker (at once, or when it has read the stop); ``forward`` gets the
        log records it sent meanwhile."""
        if self.proc.is_alive():
            if now:
                self.proc.kill()
            else:
                try:
                    self.conn.send(None)
                except OSError:
                    self.proc.kill()
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        while forward is not None:
            try:
                if not self.conn.poll():
                    break
                message = self.conn.recv()
            except Exception:
                break
            if message[0] == "log":
                forward(message[1])
        for end in (self.conn, self.lifeline):
            with contextlib.suppress(OSError):
                end.close()


_STARTING = threading.Lock()
FORK_SERVER_RESTARTS = 2  # new fork servers started in a row before the run stops


def _start(proc: Any) -> None:
    """Start a worker; if the fork server that forks workers has died (killed, say), start
    a new one and try again: the stored games are good, the run goes on. WorkersCannotStart
    (one line) when a new one cannot start either."""
    for attempt in range(FORK_SERVER_RESTARTS + 1):
        try:
            proc.start()
            return
        except (OSError, EOFError) as exc:  # refused, reset, or the server died mid-fork
            why = f"{type(exc).__name__}: {safe_text(exc, 200)}"
            if attempt == FORK_SERVER_RESTARTS or not _end_fork_server():
                raise WorkersCannotStart(
                    f"the fork server that starts worker processes died and a new one could "
                    f"not start ({why})"
                ) from None
            log.warning(
                "the fork server that starts worker processes died (%s); starting a new one", why
            )


def _end_fork_server() -> bool:
    """Forget (and end, if anything is left of it) this process's fork server, so that the
    next start launches a new one. False where multiprocessing keeps no such server here.

    multiprocessing notices a dead fork server only once it can reap it; a start in the
    moment between its death and then fails ("Connection refused"), and one that is alive
    but broken would fail for ever: so it is ended and forgotten here, under its own lock.
    """
    from multiprocessing import forkserver, util

    server = getattr(forkserver, "_forkserver", None)
    lock = getattr(server, "_lock", None)
    if server is None or lock is None or not hasattr(server, "_forkserver_pid"):
        return False
    with lock:
        pid = server._forkserver_pid
        if pid is None:
            return True
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        with contextlib.suppress(OSError, TypeError):
            os.close(server._forkserver_alive_fd)
        address = server._forkserver_address
        if address and not util.is_abstract_socket_namespace(address):
            with contextlib.suppress(OSError):
                os.unlink(address)
        server._forkserver_pid = None
        server._forkserver_alive_fd = None
        server._forkserver_address = None
    return True


@contextlib.contextmanager
def _without_main() -> Iterator[None]:
    """While a worker starts: leave the parent's ``__main__`` out of what it prepares.

    multiprocessing has every child import the parent's main script or module first;
    a worker needs nothing from it (jobs are harness objects), and a user's script is
    user code (and slow to import, and must otherwise guard its run under ``if __name__
    == "__main__":``). Only while this process starts a worker, under a lock.
    """
    from multiprocessing import spawn

    real = getattr(spawn, "get_preparation_data", None)
    if real is None:  # pragma: no cover - another multiprocessing
        yield
        return

    def prepared(name: str) -> dict[str, Any]:
        data = real(name)
        data.pop("init_main_from_name", None)
        data.pop("init_main_from_path", None)
        return data

    with _STARTING:
        spawn.get_preparation_data = prepared
        try:
            yield
        finally:
            spawn.get_preparation_data = real


@contextlib.contextmanager
def _children_allowed() -> Iterator[None]:
    """Let a daemonic process (a Dask worker is one) start workers of its own: they die
    with it anyway (see :func:`die_with_parent`)."""
    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    daemon = config.get("daemon")
    if daemon:
        config["daemon"] = False
    try:
        yield
    finally:
        if daemon:
            config["daemon"] = daemon


class ProcessBackend:
    """Plays chunks in ``workers`` processes of its own (see the module docstring).

    ``log_to`` gets the workers' log records and their plugins' output (run.log's
    handler); ``setup`` (picklable) is run by a worker on each spec before playing it
    (it may raise :class:`Refused`); ``report=False`` leaves out the one record per
    chunk; a chunk that raises is played ``attempts`` times in all.
    """

    def __init__(
        self,
        workers: int,
        log_to: logging.Handler | None = None,
        *,
        setup: Any = None,
        report: bool = True,
        attempts: int = ATTEMPTS,
        prefix: str = "harness-worker",
    ) -> None:
        if workers < 1:
            raise ValueError("a process backend needs at least one worker")
        self.workers = workers
        self.log_to = log_to  # the handler workers' records go to (run.log)
        self.setup = setup
        self.report = report
        self.retries = Retries(attempts)
        self.prefix = prefix
        self.waited = 0.0  # seconds workers spent waiting for their next chunk
        self.busy = 0.0  # seconds workers spent playing chunks (wall clock)
        self.replaced = 0  # workers replaced for a table with other user code
        self.restarted = 0  # workers that died and were replaced
        self.ctx = context()
        self._start_failures = 0
        self._in_play: tuple[list[_Worker], deque[_Chunk]] = ([], deque())

    def name(self, index: int) -> str:
        return f"{self.prefix}-{index}"

    def describe(self) -> str:
        return f"{self.workers} worker{'s' if self.workers > 1 else ''}"

    def in_flight(self) -> int:
        """Games played of the chunks in play, game by game: the rows a worker streamed
        (every :data:`~.chunks.FLUSH_EVERY` seconds), or the row it is playing now (its
        watch: the Python engine and the native engine both write it before each game),
        whichever is further."""
        workers, resume = self._in_play
        done = sum(c.received for c in resume)
        for w in workers:
            if w.chunk is not None:
                row = w.shm[W_ROW]
                done += max(w.chunk.received, int(row) if row == row and row > 0 else 0)
        return done

    def decision_times(self) -> dict[str, tuple[int, float]]:
        """The timed decisions of the chunks in play so far, by strategy: (decisions,
        seconds), as the workers publish them (see :class:`Watch`)."""
        out: dict[str, tuple[int, float]] = {}
        for w in self._in_play[0]:
            if w.chunk is None:
                continue
            for e, entrant in enumerate(w.chunk.spec.entrants[:MAX_PLAYERS]):
                decisions, seconds = w.shm[W_TIMES + 2 * e], w.shm[W_TIMES + 2 * e + 1]
                if decisions > 0:
                    n, t = out.get(entrant.name, (0, 0.0))
                    out[entrant.name] = (n + int(decisions), t + seconds)
        return out

    def stats(self) -> BackendStats:
        lines: list[str] = []
        wait = 0.0
        if self.busy > 0:
            wait = self.waited / (self.busy + self.waited)
            lines.append(
                f"workers played for {self.busy:.1f} s and waited {self.waited:.3f} s for "
                f"work between chunks ({100 * wait:.2f}%)"
            )
        if self.replaced or self.restarted:
            lines.append(
                f"workers started afresh: {self.replaced} for tables with other plugins, "
                f"{self.restarted} after a death"
            )
        return BackendStats(wait, tuple(lines))

    # -- log records --------------------------------------------------------------------
    def _forward(self, records: list[dict[str, Any]]) -> None:
        if self.log_to is None:
            return
        for data in records:
            record = logging.makeLogRecord({**data, "args": None})
            with contextlib.suppress(Exception):
                self.log_to.handle(record)

    # -- handing out ----------------------------------------------------------------------
    def _fresh(self, workers: list[_Worker], old: _Worker) -> _Worker:
        old.stop(now=True)
        fresh = _Worker(self, old.index)
        workers[workers.index(old)] = fresh
        return fresh

    def _fits(self, worker: _Worker, spec: ChunkSpec) -> bool:
        return worker.fresh or worker.loaded <= user_codes(spec)

    def _hand_out(
        self,
        workers: list[_Worker],
        ahead: deque[ChunkSpec],
        pending: Iterator[ChunkSpec | None],
        resume: deque[_Chunk],
    ) -> None:
        """Give every idle worker its next job: chunks to go on with first, then the next
        chunks in plan order (table by table), a chunk its loaded code fits first."""
        for i in range(len(workers)):
            w = workers[i]
            if w.chunk is not None:
                continue
            chunk: _Chunk | None = None
            for candidate in list(resume):
                if self._fits(w, candidate.spec):
                    chunk = candidate
                    resume.remove(candidate)
                    break
            if chunk is None and resume:
                chunk = resume.popleft()
            if chunk is None:
                while len(ahead) < 2 * len(workers) + 2:
                    spec = next(pending, None)
                    if spec is None:
                        break
                    ahead.append(spec)
                if not ahead:
                    return
                spec = next((s for s in ahead if self._fits(w, s)), ahead[0])
                ahead.remove(spec)
                chunk = _Chunk(spec)
            if not self._fits(w, chunk.spec):
                # Its loaded plugins are not this table's: a fresh worker plays it.
                self.replaced += 1
                log.info(
                    "a fresh worker for %s: worker %d has other plugins loaded",
                    chunk.spec.describe(),
                    w.index,
                )
                w = self._fresh(workers, w)
            self._send(workers, w, chunk)

    def _send(self, workers: list[_Worker], w: _Worker, chunk: _Chunk) -> None:
        w.chunk = chunk
        w.fresh = False
        w.loaded |= user_codes(chunk.spec)  # what it will load: assume the worst
        try:
            w.send(chunk.job(self.setup, self.report))
        except OSError:  # it died while idle: a fresh one
            w.proc.join(timeout=5)
            log.warning(
                "worker %d died between chunks (%s); starting a new one",
                w.index,
                describe_exit(w.proc.exitcode),
            )
            fresh = self._fresh(workers, w)
            fresh.chunk, fresh.fresh = chunk, False
            fresh.loaded = set(user_codes(chunk.spec))
            fresh.send(chunk.job(self.setup, self.report))

    # -- the loop -------------------------------------------------------------------------
    def results(self, specs: Iterable[ChunkSpec]) -> Iterator[Outcome]:
        pending = iter(specs)
        ahead: deque[ChunkSpec] = deque()
        resume: deque[_Chunk] = deque()
        workers = [_Worker(self, i) for i in range(self.workers)]
        self._in_play = (workers, resume)
        finished = False
        try:
            while True:
                self._hand_out(workers, ahead, pending, resume)
                busy = [w for w in workers if w.chunk is not None]
                if not busy:
                    finished = True
                    return
                handles = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
                ready = set(wait(handles, POLL))
                outcomes: list[Outcome] = []
                for w in busy:
                    dead = w.proc.sentinel in ready
                    if dead or w.conn in ready:
                        outcomes.extend(self._serve(workers, w, resume, dead))
                for w in [w for w in workers if w.chunk is not None]:
                    outcomes.extend(self._watchdog(workers, w, resume))
                # Refill idle workers before the caller gets (and stores) the outcomes:
                # a worker that just finished starts its next chunk at once.
                self._hand_out(workers, ahead, pending, resume)
                if not outcomes:
                    yield None
                yield from outcomes
        finally:
            for w in workers:
                w.stop(now=not finished, forward=self._forward)

    def _serve(
        self, workers: list[_Worker], w: _Worker, resume: deque[_Chunk], dead: bool
    ) -> list[Outcome]:
        """Read what a worker sent; handle its death if it died."""
        chunk = w.chunk
        assert chunk is not None
        outcomes, broken = self._read(w, chunk, resume)
        if w.chunk is None:  # the chunk ended (done, raised or refused)
            return outcomes
        if not (dead or broken):
            return outcomes
        w.proc.join(timeout=5)
        if w.proc.is_alive():  # its pipe broke but it lives on (a plugin closed it)
            w.proc.kill()
            w.proc.join(timeout=5)
        return outcomes + self._died(workers, w, chunk, resume)

    def _read(self, w: _Worker, chunk: _Chunk, resume: deque[_Chunk]) -> tuple[list, bool]:
        """Every message waiting in a worker's pipe: (outcomes, whether the pipe broke)."""
        outcomes: list[Outcome] = []
        while True:
            try:
                if not w.conn.poll():
                    return outcomes, False
                message = w.conn.recv()
            except Exception:  # EOF, a torn message: it died (mid-send)
                return outcomes, True
            kind = message[0]
            if kind == "log":
                self._forward(message[1])
            elif kind == "ready":
                w.ready = True
                self._start_failures = 0
                w.loaded |= set(message[2])
            elif kind == "rows":
                chunk.add(message[1], message[2])
            elif kind == "done":
                _, offset, tail, cpu, loaded, waited, busy, engine = message
                chunk.add(offset, tail)
                merge_times(chunk.times, tail.times)
                for who, chars in tail.output.items():
                    chunk.output[who] = chunk.output.get(who, 0) + chars
                chunk.engines.add(engine)
                chunk.cpu += cpu
                chunk.loaded |= set(loaded)
                w.loaded |= set(loaded)
                self.waited += waited
                self.busy += busy
                w.chunk = None
                outcomes.append(Done(chunk.spec, chunk.whole()))
                return outcomes, False
            elif kind in ("error", "refused"):
                w.chunk = None
                self.waited += message[2]
                outcomes.extend(self._raised(chunk, message[1], kind == "refused", resume))
                return outcomes, False

    def _raised(
        self, chunk: _Chunk, reason: str, refused: bool, resume: deque[_Chunk]
    ) -> list[Outcome]:
        spec = chunk.spec
        if refused:
            log.error("chunk %s refused: %s", spec.describe(), reason)
            return [Failed(spec, reason, refused=True)]
        failed = self.retries.failed(spec, f"playing it raised {reason}")
        if failed is not None:
            return [failed]
        resume.append(_Chunk(spec))  # from the start: nothing of a failed attempt is kept
        return []

    def _died(
        self, workers: list[_Worker], w: _Worker, chunk: _Chunk, resume: deque[_Chunk]
    ) -> list[Outcome]:
        """A worker died mid-chunk: find the game, decide it if it is the second death
        there, go on from the first row not received (in a fresh worker)."""
        spec, shm = chunk.spec, w.shm
        how = describe_exit(w.proc.exitcode)
        row, inside = int(shm[W_ROW]), shm[W_INSIDE] == 1
        w.chunk = None
        chunk.loaded |= w.loaded  # rows it sent were played with what it had loaded
        self.restarted += 1
        if not w.ready:
            self._start_failures += 1
            if self._start_failures >= START_FAILURES:
                raise WorkersCannotStart(
                    f"worker processes die before they start ({how}); see run.log"
                )
        self._fresh(workers, w)
        chunk.deaths += 1
        if row >= chunk.received:
            deal, k = spec.game_at(row)
            where = f"deal {deal} seating {k}"
            traced = chunk.trace_from is not None and row >= chunk.trace_from
            if traced and inside and row not in chunk.decided:
                seat, turn = int(shm[W_SEAT]), int(shm[W_TURN])
                method = METHODS[int(shm[W_METHOD])]
                name = spec.entrant_in(seat, k).name
                detail = f"its worker process died ({how}) in {method}()"
                chunk.decided[row] = SeatCrashed(turn, seat, name, detail)
                log.warning(
                    "chunk %s: %s: seat %d (%s) %s at turn %d; stored as its forfeit, going on",
                    spec.describe(),
                    where,
                    seat,
                    name,
                    detail,
                    turn,
                )
            elif traced:
                chunk.unexplained[row] = chunk.unexplained.get(row, 0) + 1
                if chunk.unexplained[row] >= ATTEMPTS:
                    reason = (
                        f"its worker process died ({how}) in {where} each time, outside any "
                        "strategy call"
                    )
                    log.error("chunk %s failed: %s; giving up", spec.describe(), reason)
                    return [Failed(spec, reason)]
            else:
                chunk.trace_from = row
                log.warning(
                    "chunk %s: its worker process died (%s); retrying it once from %s, "
                    "tracing each decision",
                    spec.describe(),
                    how,
                    where,
                )
        else:
            # Before its first game, or between two: nothing to decide. Twice in the
            # same place (a plugin that kills its process when imported, say): give up.
            chunk.stalls[chunk.received] = chunk.stalls.get(chunk.received, 0) + 1
            if chunk.stalls[chunk.received] > ATTEMPTS:
                reason = f"its worker process died ({how}) each time before it played a game"
                log.error("chunk %s failed: %s; giving up", spec.describe(), reason)
                return [Failed(spec, reason)]
            log.warning(
                "chunk %s: its worker process died (%s) between games; going on",
                spec.describe(),
                how,
            )
        if chunk.deaths > 2 * spec.games + ATTEMPTS:  # cannot happen: each death decides
            return [Failed(spec, f"its worker process died ({how}) {chunk.deaths} times")]
        resume.appendleft(chunk)
        return []

    def _watchdog(self, workers: list[_Worker], w: _Worker, resume: deque[_Chunk]) -> list[Outcome]:
        """Kill a worker stuck in a decision past its deadline (a time forfeit); warn
        once about a game without progress when there are no limits."""
        chunk = w.chunk
        assert chunk is not None
        spec, shm, now = chunk.spec, w.shm, time.monotonic()
        row = shm[W_ROW]
        if row != w.seen_row:
            w.seen_row, w.seen_at = row, now
        deadline = shm[W_DEADLINE]
        if shm[W_INSIDE] == 1 and not math.isnan(deadline):
            limit = spec.move_time or spec.game_time or 0.0
            if now > deadline + GRACE + GRACE_SHARE * limit:
                return self._overtime(workers, w, chunk, resume)
        elif not spec.limited and now - w.seen_at > STUCK_AFTER and w.warned_row != row:
            w.warned_row = row
            deal, k = spec.game_at(int(row) if row >= 0 else chunk.received)
            log.warning(
                "table %s (%s) deal %d seating %d: no game finished for %.0f s in worker "
                "%d; a strategy may be stuck: set move_time (--move-time SECONDS) to make "
                "it forfeit",
                spec.table,
                " v ".join(e.name for e in spec.entrants),
                deal,
                k,
                now - w.seen_at,
                w.index,
            )
        return []

    def _overtime(
        self, workers: list[_Worker], w: _Worker, chunk: _Chunk, resume: deque[_Chunk]
    ) -> list[Outcome]:
        """Kill a worker whose decision ran past its deadline; the game is that seat's
        time forfeit (state at the start of the turn), and the chunk goes on after it."""
        spec, shm = chunk.spec, w.shm
        w.proc.kill()
        w.proc.join(timeout=5)
        outcomes, _ = self._read(w, chunk, resume)  # rows it sent before it was killed
        row, seat, turn = int(shm[W_ROW]), int(shm[W_SEAT]), int(shm[W_TURN])
        entered, deadline, inside = shm[W_ENTERED], shm[W_DEADLINE], shm[W_INSIDE] == 1
        chunk.loaded |= w.loaded
        self.restarted += 1
        self._fresh(workers, w)
        if w.chunk is None:  # it finished the chunk just before the kill
            return outcomes
        w.chunk = None
        if row >= chunk.received and inside and not math.isnan(deadline):
            deal, k = spec.game_at(row)
            name = spec.entrant_in(seat, k).name
            if spec.move_time is not None and abs(entered + spec.move_time - deadline) < 1e-3:
                over = f"move_time {spec.move_time:g} s"
            elif spec.game_time is not None:
                over = f"game_time {spec.game_time:g} s"
            else:
                over = "its time limit"
            detail = (
                f"was stopped after {time.monotonic() - entered:.2f} s in one call, over "
                f"{over} (it did not return: its worker process was killed)"
            )
            chunk.decided[row] = TimeForfeit(turn, seat, name, detail)
            log.warning(
                "chunk %s: deal %d seating %d: seat %d (%s) %s; stored as its forfeit, "
                "going on from the next game",
                spec.describe(),
                deal,
                k,
                seat,
                name,
                detail,
            )
        resume.appendleft(chunk)
        return outcomes
