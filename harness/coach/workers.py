"""The coach's and the diff's worker processes: a bot is held as a tourney holds it.

Every part of the work (a block of deals of one side, :meth:`~.deals.Field.blocks`) is
played in a worker process forked from this one (the bots are already loaded: nothing
of a plugin runs twice at import), never in this process, so that whatever a bot does
costs at most its game:

* **A death is a forfeit.** A worker writes the game it plays (deal, table, seat order)
  to a few doubles of shared memory (:class:`Watch`). When it dies (``os._exit``, a
  segfault, the OOM killer), the block is played again deal by deal, each decision
  traced (which seat, turn and method); a second death in the same game decides it: a
  forfeit of the seat whose call it died in ("its process died (exit code 3) in
  pick()", kind ``crash``), or, in the diff, a failure of the shadow (the game is then
  played without it). The game is left out of the figures and counted with who and why;
  a death that does not happen again (a kill from outside) costs nothing.
* **The watchdog.** Under time limits the seats' guards report every call and its
  deadline to the same memory; a worker still in a call past its deadline (plus a
  grace) is killed and the game is that seat's time forfeit: a loop in C code that
  ignores signals cannot hang the coach. Without limits, a game that makes no progress
  for :data:`STUCK_AFTER` seconds gets one note naming it.
* **Output is contained** (:mod:`harness.seats.output`, as in a tourney's workers): what
  a bot writes (``print``, logging, file descriptors 1 and 2) becomes labelled, escaped
  lines (:class:`Output`), at most :data:`~harness.seats.output.OUTPUT_LIMIT` characters
  per part and :data:`OUTPUT_KEPT` in all; the coach writes them to its output.log and
  says who wrote how much. Nothing of a bot reaches this process's stdout or stderr.

Parts are merged in block order whatever the worker count and whatever died, so the
sums are the same to the last bit for any number of workers. Where the platform cannot
fork, the parts are played in this process (output contained, deaths not) and
:attr:`Played.notes` says so.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import multiprocessing
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

from harness.coach.deals import Decided, Field, Subject, play_part
from harness.coach.tally import Forfeit
from harness.errors import (
    HarnessError,
    RunFailed,
    SeatCrashed,
    TimeForfeit,
    describe_exit,
    plural,
    safe_text,
    type_name,
)
from harness.interrupts import plugin_interrupts_only
from harness.seats import Beacon
from harness.seats.output import (
    OUTPUT_LIMIT,
    FdCapture,
    Lines,
    Playing,
    PluginOutput,
    PluginRecords,
    contained,
)

# The watch: doubles of shared memory per worker, written by the worker, read here.
W_DEAL, W_TABLE, W_ORDER, W_SEAT, W_TURN, W_METHOD = range(6)
W_INSIDE, W_DEADLINE, W_ENTERED, W_ROLE, W_DONE = range(6, 11)
SLOTS = 11
NAN = float("nan")
METHODS = ("__init__", "new_game", "pick", "stop", "claim")
ATTEMPTS = 2  # deaths in one game before it is decided
GRACE = 0.5  # seconds past a deadline before the watchdog kills: GRACE + GRACE_SHARE x limit
GRACE_SHARE = 0.1
POLL = 0.25  # seconds between two looks at the workers while nothing arrives
STUCK_AFTER = 60.0  # seconds without a finished game (no limits) before a note
OUTPUT_KEPT = 16 * OUTPUT_LIMIT  # characters of plugin output kept in all (output.log)


class _Table:
    """What a plugin's output line names (``table``), as a tourney's chunk spec does."""

    __slots__ = ("table",)

    def __init__(self, table: int) -> None:
        self.table = table


class Watch(Beacon):
    """A worker's side of its shared memory (any list of :data:`SLOTS` floats in this
    process): the game it plays, the games it finished in its part, and the call it is
    in (a traced call, or a guarded one with its deadline), which seat and whose: the
    seat's own strategy, or (``shadow``, the diff) the shadow asked beside it. ``now``
    labels the bots' output."""

    watched = True  # the parent ends a call past its deadline

    def __init__(self, shm: Any = None) -> None:
        self.shm = shm if shm is not None else [NAN] * SLOTS
        self.now = Playing()
        self.shadow = _ShadowWatch(self)
        self.reset()

    def reset(self) -> None:
        shm = self.shm
        shm[W_DEAL] = shm[W_TABLE] = shm[W_ORDER] = -1
        shm[W_INSIDE] = shm[W_ROLE] = shm[W_DONE] = 0.0
        shm[W_DEADLINE] = NAN

    def game(self, deal: int, table: int, order: int) -> None:
        shm = self.shm
        shm[W_INSIDE] = 0.0
        shm[W_TABLE] = table
        shm[W_ORDER] = order
        shm[W_DEAL] = deal

    def playing(
        self,
        table: int,
        deal: int,
        order: int,
        names: list,
        instances: list,
        others: list | None = None,
    ) -> None:
        """The game's seats (and ``others``, (instance, name) asked beside them: the
        diff's shadow), for the labels of what they write."""
        now = self.now
        now.spec, now.deal, now.order = _Table(table), deal, order
        now.names, now.seats, now.others = list(names), list(instances), list(others or ())

    def idle(self) -> None:
        now = self.now
        now.deal, now.names, now.seats, now.others = -1, [], [], []

    def done(self, games: int) -> None:
        self.shm[W_DONE] += games

    def enter(self, seat: int, turn: int, deadline: float | None) -> None:
        self._inside(seat, turn, 0.0)
        shm = self.shm
        shm[W_ENTERED] = time.monotonic()
        shm[W_DEADLINE] = NAN if deadline is None else deadline

    def trace(self, seat: int, turn: int, method: int) -> None:
        self.shm[W_METHOD] = method
        self._inside(seat, turn, 0.0)

    def _inside(self, seat: int, turn: int, role: float) -> None:
        shm = self.shm
        shm[W_SEAT] = seat
        shm[W_TURN] = turn
        shm[W_ROLE] = role
        shm[W_INSIDE] = 1.0

    def leave(self) -> None:
        shm = self.shm
        shm[W_INSIDE] = 0.0
        shm[W_DEADLINE] = NAN
        shm[W_ROLE] = 0.0


class _ShadowWatch(Beacon):
    """The watch as the diff's shadow reports to it: its calls are the shadow's."""

    watched = True

    def __init__(self, watch: Watch) -> None:
        self.watch = watch

    def enter(self, seat: int, turn: int, deadline: float | None) -> None:
        self.watch.enter(seat, turn, deadline)
        self.watch.shm[W_ROLE] = 1.0

    def trace(self, seat: int, turn: int, method: int) -> None:
        self.watch.trace(seat, turn, method)
        self.watch.shm[W_ROLE] = 1.0

    def leave(self) -> None:
        self.watch.leave()


# -- what the parent keeps of the bots' output -------------------------------------------------
@dataclass
class Output:
    """The bots' output: labelled lines (at most :data:`OUTPUT_KEPT` characters, then one
    line saying so) and the characters each strategy wrote, kept or not."""

    lines: list[str] = field(default_factory=list)
    by_strategy: dict[str, int] = field(default_factory=dict)
    kept: int = 0
    cut: bool = False

    def add(self, line: str) -> None:
        if self.cut:
            return
        if self.kept + len(line) > OUTPUT_KEPT:
            self.cut = True
            self.lines.append(f"... output cut here (more than {OUTPUT_KEPT:,} characters kept)")
            return
        self.kept += len(line)
        self.lines.append(line)

    def count(self, written: dict[str, int]) -> None:
        for who, chars in written.items():
            self.by_strategy[who] = self.by_strategy.get(who, 0) + chars

    def to_json(self) -> dict[str, Any]:
        ordered = sorted(self.by_strategy.items(), key=lambda kv: (-kv[1], kv[0]))
        return {"by_strategy": dict(ordered), "lines": len(self.lines), "cut": self.cut}


@dataclass
class Played:
    """Every side's tally (merged in block order), the engine, the CPU seconds of the
    workers, the bots' output, the deals played (fewer than the field's when a rule
    said the answer was settled) and notes for people."""

    tallies: list[Any]
    engine: str
    cpu: float
    output: Output
    deals: int
    notes: list[str] = field(default_factory=list)


@dataclass
class _Part:
    """Deals ``first``..``stop - 1`` of one side's block, with the games decided so far;
    ``whole``: the block's first try (a death splits it into one part per deal)."""

    side: int
    block: int
    first: int
    stop: int
    decided: Decided = field(default_factory=dict)
    trace: bool = False
    whole: bool = True
    stalls: int = 0


# -- the worker process ---------------------------------------------------------------------------
# What the workers play: set before they are forked, read by them (never sent).
_JOB: tuple[Field, list[tuple[Subject, Callable[[], Any]]], str] | None = None


def _worker_main(conn: Any, shm: Any) -> None:
    """A worker: its output contained, it plays the parts it is sent until told to stop."""
    plugin_interrupts_only()  # Ctrl-C is the parent's
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent()
    lock = threading.Lock()

    def send(message: tuple) -> None:
        with lock:
            conn.send(message)

    watch = Watch(shm)
    output = PluginOutput(lambda text: send(("out", text)), watch.now)
    fds = None
    with contextlib.suppress(OSError):
        fds = FdCapture(output)
    sys.stdout, sys.stderr = Lines(output, "<stdout>"), Lines(output, "<stderr>")
    import logging

    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(PluginRecords(output))
    send(("ready",))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        output.begin()
        watch.reset()
        started = time.process_time()
        try:
            value = _run(job, watch)
        except BaseException as exc:  # a bug of the coach, or a seat that cannot start
            send(("error", f"{type_name(exc)}: {safe_text(exc)}", isinstance(exc, HarnessError)))
            continue
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            if fds is not None:
                fds.sync()
        try:
            send(("done", value, time.process_time() - started, dict(output.written)))
        except OSError:  # the parent is gone
            return
        except Exception as exc:  # a value that does not pickle: the coach's own bug
            send(("error", f"{type_name(exc)}: {safe_text(exc)}", False))


def _run(job: Any, watch: Watch) -> Any:
    """A part (its tally) or a call (its value), played with the job's context."""
    assert _JOB is not None
    field_, sides, engine = _JOB
    if isinstance(job, _Part):
        subject, new_tally = sides[job.side]
        tally = new_tally()
        play_part(field_, subject, tally, job.first, job.stop, engine,
                  decided=job.decided, watch=watch, trace=job.trace)  # fmt: skip
        return tally
    function, args = job
    return function(field_, sides, *args, watch=watch)


def _die_with_parent() -> None:
    """On Linux, the kernel kills this worker when its parent dies."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


class _Worker:
    def __init__(self, ctx: Any) -> None:
        self.conn, child_end = ctx.Pipe(duplex=True)
        self.shm = ctx.RawArray("d", SLOTS)
        Watch(self.shm)  # its slots as a fresh worker's
        self.proc = ctx.Process(target=_worker_main, args=(child_end, self.shm), daemon=True)
        self.proc.start()
        child_end.close()
        self.job: Any = None
        self.seen = (-1.0, time.monotonic())  # (games done, when that changed)
        self.warned = False

    def send(self, job: Any) -> None:
        self.job = job
        self.seen, self.warned = (-1.0, time.monotonic()), False
        self.conn.send(job)

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=5)
        with contextlib.suppress(OSError):
            self.conn.close()


def _context() -> Any:
    """The fork context, or None where this platform cannot fork."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    return multiprocessing.get_context("fork")


# -- the parent's side --------------------------------------------------------------------------
class _Pool:
    """The workers and what happens to them: deaths decided, overruns ended, output kept."""

    def __init__(self, ctx: Any, count: int, field_: Field, sides: Sequence[Any], note: Any):
        self.ctx = ctx
        self.field = field_
        self.sides = sides
        self.note = note
        self.workers = [_Worker(ctx) for _ in range(count)]
        self.output = Output()
        self.cpu = 0.0
        self.deaths: dict[tuple[int, int, tuple[int, int, int]], int] = {}

    def close(self) -> None:
        for w in self.workers:
            w.stop()

    def idle(self) -> list[_Worker]:
        return [w for w in self.workers if w.job is None]

    def busy(self) -> list[_Worker]:
        return [w for w in self.workers if w.job is not None]

    def replace(self, w: _Worker) -> _Worker:
        w.stop()
        fresh = _Worker(self.ctx)
        self.workers[self.workers.index(w)] = fresh
        return fresh

    def in_flight(self) -> int:
        return sum(int(w.shm[W_DONE]) for w in self.busy())

    def events(self) -> list[tuple[_Worker, Any]]:
        """What the busy workers sent or suffered since the last look: (worker, ("done",
        value) | ("died", job, how))."""
        busy = self.busy()
        if not busy:
            return []
        ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], POLL))
        found: list[tuple[_Worker, Any]] = []
        for w in busy:
            dead = w.proc.sentinel in ready
            if dead or w.conn in ready:
                found += self._read(w, dead)
        for w in self.busy():
            found += self._watchdog(w)
        return found

    def _drain(self, w: _Worker) -> tuple[Any, bool]:
        """Every message waiting from ``w``: its "done" event (or None) and whether its
        pipe broke."""
        while True:
            try:
                if not w.conn.poll():
                    return None, False
                message = w.conn.recv()
            except Exception:  # EOF, a torn message: it died
                return None, True
            kind = message[0]
            if kind == "out":
                self.output.add(message[1])
            elif kind == "done":
                job, (_, value, cpu, written) = w.job, message
                self.cpu += cpu
                self.output.count(written)
                w.job = None
                return ("done", job, value), False
            elif kind == "error":
                w.job = None
                text = message[1]
                raise HarnessError(text) if message[2] else RuntimeError(text)

    def _read(self, w: _Worker, dead: bool) -> list[tuple[_Worker, Any]]:
        done, broken = self._drain(w)
        if done is not None:
            return [(w, done)]
        if not (dead or broken):
            return []
        w.proc.join(timeout=5)
        if w.proc.is_alive():  # its pipe broke but it lives on (a bot closed it)
            w.proc.kill()
            w.proc.join(timeout=5)
        how = describe_exit(w.proc.exitcode)
        job, shm = w.job, list(w.shm)
        self.replace(w)
        return [(w, ("died", job, how, shm))]

    def _watchdog(self, w: _Worker) -> list[tuple[_Worker, Any]]:
        shm, now = w.shm, time.monotonic()
        settings = self.field.settings
        deadline = shm[W_DEADLINE]
        if shm[W_INSIDE] == 1 and not math.isnan(deadline):
            limit = settings.move_time or settings.game_time or 0.0
            if now > deadline + GRACE + GRACE_SHARE * limit:
                snapshot, job = list(shm), w.job
                w.proc.kill()
                w.proc.join(timeout=5)
                done, _ = self._drain(w)  # what it sent before it was killed
                self.replace(w)
                if done is not None:  # it finished just before the kill
                    return [(w, done)]
                took = now - snapshot[W_ENTERED]
                return [(w, ("overtime", job, "killed over its time limit", snapshot, took))]
            return []
        done = shm[W_DONE]
        if done != w.seen[0]:
            w.seen = (done, now)
        elif not settings.limited and not w.warned and now - w.seen[1] > STUCK_AFTER:
            w.warned = True
            deal, table, order = int(shm[W_DEAL]), int(shm[W_TABLE]), int(shm[W_ORDER])
            self.note(
                f"deal {deal}, table {table}, seat order {order}: no game finished for "
                f"{now - w.seen[1]:.0f} s; a strategy may be stuck: give --move-time SECONDS "
                "to make it forfeit"
            )
        return []

    # -- deciding a game ------------------------------------------------------------------------
    def decide(self, part: _Part, shm: list[float], why: str, overtime: float | None) -> _Part:
        """A part whose worker died (``overtime``: was killed past a deadline after that
        many seconds in one call): the part to play next (split deal by deal if it was
        a whole block, the game decided if it is the second death there)."""
        deal = int(shm[W_DEAL])
        if deal < 0 or not part.first <= deal < part.stop:  # before its first game
            part.stalls += 1
            if part.stalls > ATTEMPTS:
                raise HarnessError(
                    f"the coach's worker process died ({why}) each time before it played a game"
                )
            return part
        game = (deal, int(shm[W_TABLE]), int(shm[W_ORDER]))
        key = (part.side, part.block, game)
        self.deaths[key] = deaths = self.deaths.get(key, 0) + 1
        if overtime is not None or (part.trace and deaths >= ATTEMPTS) or deaths > ATTEMPTS:
            part.decided = {**part.decided, game: self._verdict(part, game, shm, why, overtime)}
        part.trace = True
        return part

    def _verdict(
        self,
        part: _Part,
        game: tuple[int, int, int],
        shm: list[float],
        why: str,
        overtime: float | None,
    ) -> Forfeit | str:
        """The forfeit (or the shadow's failure) of a game its process died in."""
        f = self.field
        subject = self.sides[part.side][0]
        deal, table, order = game
        names = f.game_names(subject.name, table, order)
        seat, turn = int(shm[W_SEAT]), int(shm[W_TURN])
        method = METHODS[int(shm[W_METHOD])] if 0 <= shm[W_METHOD] < len(METHODS) else "a call"
        if shm[W_INSIDE] != 1 or not 0 <= seat < len(names):
            # Twice outside any strategy's call: nothing to attribute it to (the tourney
            # gives up such a chunk too).
            raise RunFailed(
                f"the coach's worker process died ({why}) twice in deal {deal}, table "
                f"{table}, seat order {order}, outside any strategy call"
            )
        if overtime is not None:
            move_time, game_time = f.settings.move_time, f.settings.game_time
            if move_time is not None and abs(shm[W_ENTERED] + move_time - shm[W_DEADLINE]) < 1e-3:
                over = f"move_time {move_time:g} s"
            elif game_time is not None:
                over = f"game_time {game_time:g} s"
            else:
                over = "its time limit"
            detail = (
                f"was stopped after {overtime:.2f} s in one call, over {over} (it did not "
                "return: its process was killed)"
            )
            kind = "time"
        else:
            detail = f"its process died ({why}) in {method}()"
            kind = "crash"
        if shm[W_ROLE] == 1:  # the diff's shadow: it fails, the game goes on without it
            return f"turn {turn}: {detail}"
        error_type = TimeForfeit if kind == "time" else SeatCrashed
        error = error_type(turn, seat, names[seat], detail)
        role = "bot" if seat == f.seat_of_subject(order) else "opponent"
        return Forfeit(names[seat], role, kind, safe_text(error))


def play_sides(
    field_: Field,
    sides: Sequence[tuple[Subject, Callable[[], Any]]],
    *,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    looks: Sequence[int] = (),
    settled: Callable[[int, list[Any]], bool] | None = None,
    note: Callable[[str], None] | None = None,
) -> Played:
    """Every deal of the field for each side (a subject and a fresh tally's maker), in
    worker processes (see the module docstring); merged in block order.

    ``progress(games done, games)`` is told as games finish; at each deal count of
    ``looks`` (once every side's blocks up to it are merged) ``settled(deals, tallies)``
    may end the work there (the rest is not played); ``note`` hears what a person
    should know (a game that makes no progress)."""
    global _JOB
    engine = field_.engine_for()
    blocks = field_.blocks(looks)
    tell = note or (lambda text: None)
    queue: deque[_Part] = deque(
        _Part(s, b, a, z) for b, (a, z) in enumerate(blocks) for s in range(len(sides))
    )
    # Per (side, block): the parts wanted (by first deal) and the tallies got.
    wanted = {(p.side, p.block): [p.first] for p in queue}
    got: dict[tuple[int, int], dict[int, Any]] = {key: {} for key in wanted}
    merged = [new() for _, new in sides]
    b = 0  # blocks merged so far (for every side)
    total = len(sides) * field_.games
    finished = 0
    stopped = field_.deals
    ctx = _context()
    if ctx is None:
        return _here(field_, sides, engine, blocks, progress, merged)
    _JOB = (field_, list(sides), engine)
    pool = _Pool(ctx, max(1, min(workers, len(queue))), field_, sides, tell)
    try:
        while queue or pool.busy():
            for w in pool.idle():
                if queue:
                    w.send(queue.popleft())
            for _, event in pool.events():
                if event[0] == "done":
                    part, tally = event[1], event[2]
                    got[part.side, part.block][part.first] = tally
                    finished += (part.stop - part.first) * field_.games_per_deal
                    continue
                overtime = event[4] if event[0] == "overtime" else None
                again = pool.decide(event[1], event[3], event[2], overtime)
                if again.whole:  # deal by deal from now on: a death costs a deal at most
                    key = (again.side, again.block)
                    wanted[key] = list(range(again.first, again.stop))
                    for d in reversed(wanted[key]):
                        queue.appendleft(_Part(again.side, again.block, d, d + 1,
                                               dict(again.decided), True, False))  # fmt: skip
                else:
                    queue.appendleft(again)
            if progress is not None:
                progress(min(total, finished + pool.in_flight()), total)
            # Merge every side's next block once all of them have it, and look there.
            while b < len(blocks) and all(
                set(wanted[s, b]) <= got[s, b].keys() for s in range(len(sides))
            ):
                for s in range(len(sides)):
                    for first in wanted[s, b]:
                        merged[s].merge(got[s, b].pop(first))
                b += 1
                end = blocks[b - 1][1]
                if end in looks and end < field_.deals and settled and settled(end, merged):
                    stopped = end
                    break
            if stopped < field_.deals:  # settled: the games played are all there is
                played = stopped * field_.games_per_deal * len(sides)
                if progress is not None:
                    progress(played, played)
                break
    finally:
        pool.close()
        _JOB = None
    return Played(merged, engine, pool.cpu, pool.output, stopped)


def _here(
    field_: Field,
    sides: Sequence[tuple[Subject, Callable[[], Any]]],
    engine: str,
    blocks: list[tuple[int, int]],
    progress: Callable[[int, int], None] | None,
    merged: list[Any],
) -> Played:
    """Every part in this process (no fork here): output contained, deaths not."""
    output = Output()
    watch = Watch()
    plugin = PluginOutput(output.add, watch.now)
    done, total = 0, len(sides) * field_.games
    with contained(plugin):
        for s, (subject, new_tally) in enumerate(sides):
            for a, z in blocks:
                tally = new_tally()
                play_part(field_, subject, tally, a, z, engine, watch=watch)
                merged[s].merge(tally)
                done += (z - a) * field_.games_per_deal
                if progress is not None:
                    progress(done, total)
    output.count(plugin.written)
    note = (
        "this platform cannot fork: the bots played in the coach's own process, where one "
        "that ends its process ends the coach"
    )
    return Played(merged, engine, 0.0, output, field_.deals, [note])


def call_contained(
    function: Callable[..., Any],
    field_: Field,
    sides: Sequence[tuple[Subject, Callable[[], Any]]],
    *args: Any,
) -> tuple[Any, Output]:
    """``function(field, sides, *args, watch=...)`` in a worker process of its own (its
    output contained, a call past its deadline ended): its value, or None if the worker
    died; and the output. Where this platform cannot fork, in this process."""
    global _JOB
    ctx = _context()
    output = Output()
    if ctx is None:
        watch = Watch()
        plugin = PluginOutput(output.add, watch.now)
        with contained(plugin):
            value = function(field_, sides, *args, watch=watch)
        output.count(plugin.written)
        return value, output
    _JOB = (field_, list(sides), field_.engine_for())
    pool = _Pool(ctx, 1, field_, sides, lambda text: None)
    pool.output = output
    try:
        pool.workers[0].send((function, args))
        while pool.busy():
            for _, event in pool.events():
                return (event[2] if event[0] == "done" else None), output
        return None, output
    finally:
        pool.close()
        _JOB = None


def forfeit_note(count: int, games: int) -> str:
    """What the figures are computed from, said plainly."""
    return (
        f"{plural(count, 'game')} of {games:,} did not complete (forfeits) and are left out: "
        f"the figures are computed from the {games - count:,} that completed"
    )


__all__ = [
    "OUTPUT_KEPT",
    "Output",
    "Played",
    "Watch",
    "call_contained",
    "forfeit_note",
    "play_sides",
]
