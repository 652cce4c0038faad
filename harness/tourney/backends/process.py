"""The process backend: chunks played by worker processes of its own (see
:mod:`harness.tourney.backends` for what every backend shares).

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
import logging
import math
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait
from typing import Any

from harness.errors import GameError, SeatCrashed, TimeForfeit, plural, safe_text
from harness.game.rules import MAX_PLAYERS
from harness.runfolder.timing import merge as merge_times
from harness.tourney.backends.base import (
    ATTEMPTS,
    POLL,
    BackendStats,
    Done,
    Failed,
    Outcome,
    Retries,
    WorkersCannotStart,
    describe_exit,
    log,
    user_codes,
)
from harness.tourney.backends.worker import (
    NAN,
    W_DEADLINE,
    W_ENTERED,
    W_INSIDE,
    W_METHOD,
    W_ROW,
    W_SEAT,
    W_TIMES,
    W_TURN,
    WATCH_SLOTS,
    Job,
    worker_main,
)
from harness.tourney.chunks import (
    METHODS,
    ChunkResult,
    empty_result,
    extend,
)
from harness.tourney.groups import Chunk, at, finish

GRACE = 0.5  # seconds past a deadline before the watchdog kills: GRACE + GRACE_SHARE x limit
GRACE_SHARE = 0.1
STUCK_AFTER = 60.0  # seconds without a finished game (no limits) before a warning
START_FAILURES = 3  # workers in a row that die before they are ready: the run stops


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
    return ["harness.tourney.backends.fork_prelude", "harness.tourney.backends.process", *builtins]


def _builtin_modules() -> list[str]:
    import pkgutil

    import harness.strategies

    return [m.name for m in pkgutil.iter_modules(harness.strategies.__path__)]


class _Chunk:
    """A chunk in play: the rows received so far and how its workers fared."""

    def __init__(self, spec: Chunk) -> None:
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
    (it may raise :class:`ChunkRefused`); ``report=False`` leaves out the one record per
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
        return plural(self.workers, "worker")

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

    def _fits(self, worker: _Worker, spec: Chunk) -> bool:
        return worker.fresh or worker.loaded <= user_codes(spec)

    def _hand_out(
        self,
        workers: list[_Worker],
        ahead: deque[Chunk],
        pending: Iterator[Chunk | None],
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
    def results(self, specs: Iterable[Chunk]) -> Iterator[Outcome]:
        pending = iter(specs)
        ahead: deque[Chunk] = deque()
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
            table, local = at(spec, row)
            deal, k = table.game_at(local)
            where = f"deal {deal} seating {k}" + (
                f" of table {table.table}" if table is not spec else ""
            )
            traced = chunk.trace_from is not None and row >= chunk.trace_from
            if traced and inside and row not in chunk.decided:
                seat, turn = int(shm[W_SEAT]), int(shm[W_TURN])
                method = METHODS[int(shm[W_METHOD])]
                name = table.entrant_in(seat, k).name
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
            limit = spec.settings.move_time or spec.settings.game_time or 0.0
            if now > deadline + GRACE + GRACE_SHARE * limit:
                return self._overtime(workers, w, chunk, resume)
        elif not spec.limited and now - w.seen_at > STUCK_AFTER and w.warned_row != row:
            w.warned_row = row
            table, local = at(spec, min(int(row) if row >= 0 else chunk.received, spec.games - 1))
            deal, k = table.game_at(local)
            log.warning(
                "table %s (%s) deal %d seating %d: no game finished for %.0f s in worker "
                "%d; a strategy may be stuck: set move_time (--move-time SECONDS) to make "
                "it forfeit",
                table.table,
                " v ".join(e.name for e in table.entrants),
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
            table, local = at(spec, row)
            deal, k = table.game_at(local)
            name = table.entrant_in(seat, k).name
            move_time, game_time = spec.settings.move_time, spec.settings.game_time
            if move_time is not None and abs(entered + move_time - deadline) < 1e-3:
                over = f"move_time {move_time:g} s"
            elif game_time is not None:
                over = f"game_time {game_time:g} s"
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
                table.describe(),
                deal,
                k,
                seat,
                name,
                detail,
            )
        resume.appendleft(chunk)
        return outcomes
