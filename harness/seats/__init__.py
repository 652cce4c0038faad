"""Time limits and process isolation, as wrappers around each seat's strategy.

The engine asks a strategy through ``new_game``, ``pick``, ``stop`` and ``claim``; this
room puts a wrapper in between when limits are on, and nothing at all when they are
off (:func:`guard` then returns the very list it was given: zero cost).

* ``move_time`` (seconds per call) and ``game_time`` (seconds of one seat's calls in
  one game): each call is timed with the wall clock (``time.perf_counter``); a seat
  over either limit forfeits with :class:`~harness.errors.TimeForfeit` (kind "time").
  In-process, in the main thread, SIGALRM (``setitimer``) interrupts a pure-Python
  loop at the deadline; a loop in C code that ignores signals is left to the watchdog
  of the process that plays (tournament workers), told through :class:`Beacon`.
* ``isolation: process``: each seat's strategy runs in a process of its own
  (:mod:`harness.seats.isolation`), a sandbox (:mod:`harness.seats.sandbox`), and sees a snapshot
  of its view; the parent waits for the answer with the time left as a timeout and
  kills the process on overrun, which handles C loops too. A process that dies is that
  seat's :class:`~harness.errors.SeatCrashed`; a fresh one is started for its next game.
  One process serves a seat for many games, with a fresh strategy instance per game. An
  isolated seat always has a deadline: ``game_time`` is :data:`ISOLATED_GAME_TIME`
  unless given.
* Where nothing outside the playing process watches it (``harness play``, ``workers:
  0``, ``play_game``), a plugin could catch or disarm the SIGALRM timer, or loop in C
  code, and never return: so under time limits a seat whose code is not harness's own
  plays in a process of its own (not a sandbox: only so that its limits hold), when it
  can be sent there (a reference, or an instance that pickles); callers say so
  (:func:`moved_to_processes`). In a tournament worker, the parent's watchdog (a
  :class:`Beacon` that is ``watched``) ends what a timer cannot.

Every call into plugin code counts, ``new_game`` included (in process isolation, that
is where the fresh instance is built).

The values are checked in :mod:`harness.seats.settings`: :class:`SeatLimits` (re-exported
here) and the seat settings as one value, ``SeatSettings`` (the limits, the isolation,
the engine and the luck mode), which every caller holds.
"""

from __future__ import annotations

import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from harness.errors import (
    HarnessError,
    PluginError,
    SeatCrashed,
    TimeForfeit,
)
from harness.game.engine import NOT_INT, plain_int, plain_pair  # the engine's own reading
from harness.game.rules import Rules
from harness.game.strategy import Strategy
from harness.interrupts import is_user_interrupt
from harness.seats.isolation import (
    TRACEBACK_LIMIT,
    RemoteError,
    SeatDied,
    SeatProcess,
    SeatProtocolError,
    SeatTimeout,
    close_processes,
)
from harness.seats.sandbox import cpu_budget
from harness.seats.settings import (  # re-exported: the limits' values are checked there
    ISOLATED_GAME_TIME,
    ISOLATION_MODES,
    MAX_SECONDS,
    SeatLimits,
)


class Beacon:
    """Where a seat wrapper reports that plugin code is running, for a watchdog.

    ``enter`` before each call (``deadline`` is a ``time.monotonic()`` value, or None
    without a time limit), ``leave`` after it. This base does nothing; a watchdog
    outside the process reads a subclass (say, one writing to shared memory) that sets
    ``watched``: then a call that overruns its deadline is ended from outside, and
    in-process seats need not be moved to processes of their own.
    """

    watched: bool = False

    def enter(self, seat: int, turn: int, deadline: float | None) -> None:
        """Plugin code of ``seat`` starts running in ``turn`` (0 for ``new_game``)."""

    def leave(self) -> None:
        """The plugin code returned (or raised)."""


class Traced(Strategy):
    """Tells ``watch`` every call into the strategy it wraps (``watch.trace(seat, turn,
    method)``, the method by its index in ``new_game, pick, stop, claim`` counted from 1)
    and its end (``watch.leave()``): a process that died is replayed this way to find the
    seat, turn and method (the tourney's traced rows, the coach's traced deals). The end
    matters: a death after the call returned is not that seat's."""

    def __init__(self, inner: Strategy, watch: Any) -> None:
        self.inner = inner
        self.watch = watch
        self.seat = 0

    def _call(self, turn: int, method: int, call: Callable[..., Any], *args: Any) -> Any:
        self.watch.trace(self.seat, turn, method)
        try:
            return call(*args)
        finally:
            self.watch.leave()

    def new_game(self, seat: int, rules: Rules) -> None:
        self.seat = seat
        self._call(0, 1, self.inner.new_game, seat, rules)

    def pick(self, view: Any) -> Any:
        return self._call(view.turn, 2, self.inner.pick, view)

    def stop(self, view: Any) -> Any:
        return self._call(view.turn, 3, self.inner.stop, view)

    def claim(self, view: Any, choices: Any) -> Any:
        return self._call(view.turn, 4, self.inner.claim, view, choices)


def _seconds(value: float) -> str:
    """A limit for a message: "1 s", "0.25 s"."""
    return f"{value:g} s"


def _took(value: float) -> str:
    """A measured time, precise enough to differ from the limit it broke: "0.2003 s"."""
    return f"{value:.4g} s"


class _Clock:
    """One seat's time in one game: what a call may take, and whether it took too long."""

    __slots__ = ("move", "game", "used")

    def __init__(self, limits: SeatLimits) -> None:
        self.move = limits.move_time
        self.game = limits.game_time
        self.used = 0.0

    def allowed(self) -> float | None:
        """Seconds the next call may take (None: no limit)."""
        if self.game is None:
            return self.move
        left = max(self.game - self.used, 1e-6)
        return left if self.move is None or left < self.move else self.move

    def charge(self, method: str, elapsed: float) -> str | None:
        """Count a call that returned; the TimeForfeit detail if it broke a limit."""
        self.used += elapsed
        if self.move is not None and elapsed > self.move:
            return f"took {_took(elapsed)} for {method}(), over move_time {_seconds(self.move)}"
        if self.game is not None and self.used > self.game:
            return (
                f"took {_took(self.used)} in its calls this game (last {method}()), "
                f"over game_time {_seconds(self.game)}"
            )
        return None

    def overrun(self, method: str, elapsed: float) -> str:
        """Count a call stopped at its deadline; the TimeForfeit detail (always one)."""
        left = None if self.game is None else self.game - self.used
        self.used += elapsed
        if self.move is not None and (left is None or self.move <= left):
            return (
                f"was stopped after {_took(elapsed)} in {method}(), "
                f"over move_time {_seconds(self.move)}"
            )
        return (
            f"was stopped after {_took(self.used)} of calls this game (last {method}()), "
            f"over game_time {_seconds(self.game or 0.0)}"
        )


# -- SIGALRM: interrupting a pure-Python loop in the main thread ---------------------------
class _Overrun(BaseException):
    """Raised into plugin code at its deadline (a BaseException: ``except Exception``
    in a plugin does not swallow it)."""


_REPEAT = 0.05  # re-raise every 50 ms at a plugin that swallows the first one
_MAIN_THREAD = threading.main_thread().ident
_alarm_users = 0
_alarm_previous: Any = None
_armed = False


def _on_alarm(signum: int, frame: Any) -> None:
    if _armed:
        raise _Overrun
    previous = _alarm_previous
    if callable(previous):  # a SIGALRM that was not ours: whoever had it before
        previous(signum, frame)


def _disarm(previous: tuple[float, float], start: float) -> None:
    global _armed
    _armed = False  # first: a SIGALRM from now on raises nothing
    signal.setitimer(signal.ITIMER_REAL, 0)
    if previous[0]:  # someone else's timer was running: give it back, less our time
        left = previous[0] - (time.perf_counter() - start)
        signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), previous[1])


def _acquire_alarm() -> bool:
    """Install the SIGALRM handler (main thread only); False where signals cannot be used."""
    global _alarm_users, _alarm_previous
    if threading.get_ident() != _MAIN_THREAD or not hasattr(signal, "setitimer"):
        return False
    if _alarm_users == 0:
        _alarm_previous = signal.signal(signal.SIGALRM, _on_alarm)
    _alarm_users += 1
    return True


def _release_alarm() -> None:
    global _alarm_users, _alarm_previous
    _alarm_users -= 1
    if _alarm_users == 0:
        if threading.get_ident() == _MAIN_THREAD:
            signal.signal(
                signal.SIGALRM,
                _alarm_previous if _alarm_previous is not None else signal.SIG_DFL,
            )
        _alarm_previous = None


# -- the wrappers ----------------------------------------------------------------------------
class _Seat(Strategy):
    """What both wrappers share: the seat's clock, names and beacon."""

    def __init__(self, name: str, limits: SeatLimits, beacon: Beacon | None) -> None:
        self.name = name  # type: ignore[misc]  # an instance attribute: the seat's label
        self._limits = limits
        self._clock = _Clock(limits)
        self._beacon = beacon
        self._seat = 0

    def _forfeit(self, turn: int, detail: str) -> TimeForfeit:
        return TimeForfeit(turn, self._seat, self.name, detail)

    def close(self) -> None:
        """Release what the wrapper holds (a process, the SIGALRM handler)."""

    def renew(self, instance: Strategy) -> None:
        """The game's fresh instance, for a wrapper that holds one (in-process)."""


class _TimedSeat(_Seat):
    """An in-process strategy whose calls are timed (and interrupted with SIGALRM).

    ``inner`` is the strategy it wraps; a caller may put a fresh instance there between
    games (the clock restarts at ``new_game``).
    """

    def __init__(
        self, strategy: Strategy, name: str, limits: SeatLimits, beacon: Beacon | None
    ) -> None:
        super().__init__(name, limits, beacon)
        self.inner = strategy
        self.unguarded = False  # a plugin that nothing outside this process could stop
        self._alarm = _acquire_alarm()

    def close(self) -> None:
        if self._alarm:
            self._alarm = False
            _release_alarm()

    def renew(self, instance: Strategy) -> None:
        self.inner = instance

    def new_game(self, seat: int, rules: Any) -> None:
        self._seat = seat
        self._clock = _Clock(self._limits)
        self._call(self.inner.new_game, "new_game", None, seat, rules)

    def pick(self, view: Any) -> Any:
        return self._call(self.inner.pick, "pick", view, view, plain=_plain_answer)

    def stop(self, view: Any) -> Any:
        return self._call(self.inner.stop, "stop", view, view, plain=_plain_answer)

    def claim(self, view: Any, choices: Sequence[Any]) -> Any:
        return self._call(self.inner.claim, "claim", view, view, choices, plain=_plain_claim)

    def _call(self, method: Any, name: str, view: Any, *args: Any, plain: Any = None) -> Any:
        global _armed
        clock = self._clock
        allowed = clock.allowed()
        beacon = self._beacon
        if beacon is not None:
            deadline = None if allowed is None else time.monotonic() + allowed
            beacon.enter(self._seat, view.turn if view is not None else 0, deadline)
        alarm = self._alarm and allowed is not None and threading.get_ident() == _MAIN_THREAD
        previous = (0.0, 0.0)
        start = time.perf_counter()
        try:
            try:
                try:
                    if alarm:
                        previous = signal.setitimer(signal.ITIMER_REAL, allowed, _REPEAT)
                        _armed = True
                    answer = method(*args)
                    if plain is not None:
                        # Reading the answer runs the plugin's __index__: inside the
                        # limit, so one that loops forever is stopped like the call.
                        answer = plain(answer)
                finally:
                    if alarm:
                        _disarm(previous, start)
            except BaseException as exc:
                if alarm and _armed:  # the alarm cut the disarming short
                    _disarm(previous, start)
                if is_user_interrupt(exc):
                    raise
                elapsed = time.perf_counter() - start
                if isinstance(exc, _Overrun):
                    detail: str | None = clock.overrun(name, elapsed)
                else:  # the plugin raised: its forfeit, unless it was over time anyway
                    detail = clock.charge(name, elapsed)
                if detail is not None:
                    raise self._forfeit(view.turn if view is not None else 0, detail) from exc
                raise
        finally:
            if beacon is not None:
                beacon.leave()
        detail = clock.charge(name, time.perf_counter() - start)
        if detail is not None:
            raise self._forfeit(view.turn if view is not None else 0, detail)
        return answer


def _plain_answer(answer: Any) -> Any:
    """A pick or stop answer as the plain int it stands for (True/False as they are);
    anything else as given, for the engine to refuse."""
    if answer is True or answer is False:
        return answer
    value = plain_int(answer)
    return answer if value is None else value


def _plain_claim(answer: Any) -> Any:
    """A claim answer as the plain (tile, victim) pair or tile the engine reads it as
    (its own plain_pair); anything it would refuse, as given, for it to refuse."""
    tile, victim, pair = plain_pair(answer)
    if tile is None or victim is NOT_INT:
        return answer
    return (tile, victim) if pair else tile


class _ProcessSeat(_Seat):
    """A strategy running in a process of its own, asked over a socket.

    ``moved``: the seat is here only so that its time limits hold (not isolated by the
    config); its process is then no sandbox.
    """

    def __init__(
        self,
        process: SeatProcess,
        name: str,
        limits: SeatLimits,
        beacon: Beacon | None,
        moved: bool = False,
    ) -> None:
        super().__init__(name, limits, beacon)
        self.process = process
        self.moved = moved
        self._turn = -1  # the turn whose board the child has (-1: none this game)

    def close(self) -> None:
        self.process.close()

    def new_game(self, seat: int, rules: Any) -> None:
        self._seat = seat
        self._clock = _Clock(self._limits)
        self._turn = -1
        process = self.process
        budget = process.cpu_seconds
        if process.alive and budget is not None:
            used = process.cpu_used()
            if used is not None and used > budget / 2:
                # Half its lifetime CPU budget used: a fresh process before the kernel ends
                # this one mid-game (an honest seat never meets its limit: see sandbox).
                process.kill()
        if not process.alive:
            # The last game killed it (a time limit) or it died: a fresh one, unclocked.
            try:
                process.start()
                process.wait_ready()
            except PluginError as exc:
                raise SeatCrashed(0, seat, self.name, f"could not be restarted: {exc}") from None
        self._ask("new_game", None, (seat, rules))

    def pick(self, view: Any) -> Any:
        return self._ask("pick", view, (self._state(view),))

    def stop(self, view: Any) -> Any:
        return self._ask("stop", view, (self._state(view),))

    def claim(self, view: Any, choices: Sequence[Any]) -> Any:
        plain = tuple((int(c.tile), None if c.victim is None else int(c.victim)) for c in choices)
        return self._ask("claim", view, (self._state(view), plain))

    def _state(self, view: Any) -> dict[str, Any]:
        # The board changes only between turns: sent whole at a turn's first question,
        # then only the turn state (View.update keeps what is left out).
        turn = view.turn
        if turn != self._turn:
            self._turn = turn
            return view.snapshot()
        return {
            "counts": view.counts,
            "choices": view.choices,
            "kept": view.kept,
            "total": view.total,
            "dice_left": view.dice_left,
            "has_worm": view.has_worm,
        }

    def _ask(self, method: str, view: Any, args: tuple[Any, ...]) -> Any:
        clock = self._clock
        allowed = clock.allowed()
        turn = view.turn if view is not None else 0
        beacon = self._beacon
        if beacon is not None:
            beacon.enter(self._seat, turn, None if allowed is None else time.monotonic() + allowed)
        start = time.perf_counter()
        try:
            value = self.process.ask((method, *args), allowed)
        except SeatTimeout:
            self.process.kill()  # whatever it is doing, in Python or in C
            detail = clock.overrun(method, time.perf_counter() - start)
            raise self._forfeit(turn, detail) from None
        except SeatDied as died:
            self.process.kill()
            detail = f"its process died ({died}) in {method}()"
            raise SeatCrashed(turn, self._seat, self.name, detail) from None
        except SeatProtocolError as exc:
            self.process.kill()
            detail = f"its process sent an unreadable answer to {method}(): {exc}"
            raise SeatCrashed(turn, self._seat, self.name, detail) from None
        except RemoteError as exc:
            detail = clock.charge(method, time.perf_counter() - start)
            if detail is not None:
                raise self._forfeit(turn, detail) from exc
            raise
        finally:
            if beacon is not None:
                beacon.leave()
        detail = clock.charge(method, time.perf_counter() - start)
        if detail is not None:
            raise self._forfeit(turn, detail)
        return value


# -- building the seats ----------------------------------------------------------------------
def _recipe(strategy: Any, ref: tuple[str, Any] | None, name: str) -> dict[str, Any]:
    """How a child builds the seat's strategy: from its reference, or a pickled instance."""
    if ref is not None:
        load, params = ref
        return {"ref": (load, tuple(dict(params or ()).items()))}
    try:
        blob = pickle.dumps(strategy, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise PluginError(
            f"strategy {name}: cannot be sent to its own process (isolation: process): "
            f"{type(exc).__name__}; give it by reference (name or path/to/file.py:Class)"
        ) from None
    # A class from a plugin file lives in a module named after the file and its
    # content; the child loads the same files first so that unpickling finds it.
    files = []
    for cls in type(strategy).__mro__:
        module = sys.modules.get(cls.__module__)
        if getattr(module, "__harness_code__", None) and getattr(module, "__file__", None):
            files.append(module.__file__)
    return {"instance": blob, "modules": files}


def _own_code(strategy: Any, ref: tuple[str, Any] | None) -> bool:
    """Whether a seat's code is harness's own (a built-in): it never disarms a timer."""
    from harness.plugins import builtin_strategies, is_own_module

    if ref is not None:
        load = ref[0]
        return ":" not in load and load in builtin_strategies()
    return strategy is not None and is_own_module(type(strategy).__module__)


def _sendable(strategy: Any, ref: tuple[str, Any] | None) -> bool:
    """Whether a seat can be rebuilt in a process of its own: by reference, or as a
    pickled instance of a class the child can import (not one of ``__main__``)."""
    if ref is not None:
        return True
    module = type(strategy).__module__
    if module == "__main__" or module not in sys.modules:
        return False
    try:
        pickle.dumps(strategy, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - whatever pickling raises: not sendable
        return False
    return True


def guard(
    strategies: Sequence[Strategy | None],
    names: Sequence[str],
    limits: SeatLimits,
    *,
    refs: Sequence[tuple[str, Any] | None] | None = None,
    beacon: Beacon | None = None,
    contain: bool = False,
    output: Callable[[str], None] | None = None,
) -> list[Strategy]:
    """The seats' strategies under ``limits``: the same list when no limit is active
    (and ``contain`` is not asked).

    Otherwise one wrapper per seat that enforces move_time/game_time (TimeForfeit) and,
    with isolation "process", runs the strategy in a process of its own: built there
    from ``refs[i]`` = (load reference, params) when given (``strategies[i]`` may then
    be None, so that the plugin's code never runs here), else from a pickle of
    ``strategies[i]``. Without isolation and without a ``watched`` beacon, a timed seat
    whose code is not harness's own is moved to a process of its own too (see the module
    docstring; :func:`moved_to_processes` names them), or stays here when it cannot be
    sent (:func:`unguarded` names those). Processes are started at once, in parallel, and
    ready when this returns (a strategy that cannot be loaded raises PluginError, one
    line). End them with :func:`close_all`.

    ``contain`` (no limits needed): a seat whose code is not harness's own plays in a
    process of its own (no sandbox) where it can be sent, so that its death is its
    seat's forfeit (SeatCrashed), not the end of this process (``harness play``).
    ``output`` gets every line the seats' processes write (else they go to stderr).
    """
    if not limits.active and not contain:
        return strategies  # type: ignore[return-value]
    if len(names) != len(strategies) or (refs is not None and len(refs) != len(strategies)):
        raise HarnessError(f"{len(strategies)} strategies, {len(names)} names")
    refs = list(refs) if refs is not None else [None] * len(strategies)
    isolated = limits.isolation == "process"
    watched = beacon is not None and beacon.watched
    seats: list[Strategy] = []
    started: list[_ProcessSeat] = []
    try:
        for i, (strategy, name) in enumerate(zip(strategies, names, strict=True)):
            ref = refs[i]
            if ref is None and strategy is None:
                raise HarnessError(f"seat {i}: neither a strategy nor a reference")
            moved = not isolated and not watched and not _own_code(strategy, ref)
            if not limits.active and not (moved and _sendable(strategy, ref)):
                seats.append(strategy)  # contained where it can be: harness's own, or here
                continue
            if not isolated and not (moved and _sendable(strategy, ref)):
                timed = _TimedSeat(strategy, name, limits, beacon)  # type: ignore[arg-type]
                timed.unguarded = moved
                seats.append(timed)
                continue
            game_time = limits.game_time or ISOLATED_GAME_TIME
            process = SeatProcess(
                _recipe(strategy, ref, name),
                name,
                cpu_budget(game_time),
                sandboxed=isolated,
                output=output,
            )
            seat = _ProcessSeat(process, name, limits, beacon, moved=not isolated)
            seats.append(seat)
            started.append(seat)
            process.start()
        for seat in started:
            try:
                seat.process.wait_ready()
            except PluginError:
                i = seats.index(seat)
                if not seat.moved or strategies[i] is None:
                    raise
                # It plays here after all (its instance is here: it was built here).
                timed = _TimedSeat(strategies[i], names[i], limits, beacon)  # type: ignore[arg-type]
                timed.unguarded = True
                seats[i] = timed
    except BaseException:
        close_all(seats)
        raise
    return seats


def moved_to_processes(seats: Sequence[Any]) -> list[str]:
    """The seats :func:`guard` moved to processes of their own so that their time limits
    hold (not isolated by the config): their names, for a note."""
    return [s.name for s in seats if isinstance(s, _ProcessSeat) and s.moved]


def unguarded(seats: Sequence[Any]) -> list[str]:
    """Timed plugin seats that play in this process with nothing outside to end a call
    that never returns (they could not be sent to a process of their own)."""
    return [s.name for s in seats if isinstance(s, _TimedSeat) and s.unguarded]


def sandbox_missing(seats: Sequence[Any]) -> list[str]:
    """What the isolated seats' sandbox could not apply on this system (as their
    processes said when they started)."""
    for s in seats:
        if isinstance(s, _ProcessSeat) and not s.moved:
            return list(s.process.missing)
    return []


def in_process(seat: Any) -> bool:
    """Whether a guarded seat plays in this process (a timed wrapper, which takes each
    game's fresh instance through ``renew``), not in a process of its own."""
    return isinstance(seat, _TimedSeat)


def process_count(seats: Sequence[Any]) -> int:
    """How many of ``seats`` play in processes of their own."""
    return sum(isinstance(s, _ProcessSeat) for s in seats)


def close_all(strategies: Sequence[Any]) -> None:
    """End every seat process among ``strategies`` and release the SIGALRM handler.

    Anything else in the list is left alone, so it is safe on an unguarded list.
    """
    processes = [s.process for s in strategies if isinstance(s, _ProcessSeat)]
    if processes:
        close_processes(processes)
    for s in strategies:
        if isinstance(s, _TimedSeat):
            s.close()


def plugin_traceback(error: BaseException | None) -> str | None:
    """The plugin's traceback behind a forfeit, as text (None when there is none).

    For an isolated seat, the text its process sent; in-process, the traceback of the
    exception that caused it (``__cause__``), the engine's own frames left in.
    """
    cause = getattr(error, "__cause__", None)
    while isinstance(cause, (TimeForfeit, SeatCrashed)):  # a verdict: what lay behind it
        cause = cause.__cause__
    if cause is None:
        return None
    if isinstance(cause, RemoteError):
        return cause.remote_traceback or None
    try:
        text = "".join(traceback.format_exception(cause))
    except Exception:
        return None
    return text[-TRACEBACK_LIMIT:]


__all__ = [
    "Beacon",
    "Traced",
    "ISOLATED_GAME_TIME",
    "ISOLATION_MODES",
    "MAX_SECONDS",
    "SeatLimits",
    "close_all",
    "guard",
    "in_process",
    "moved_to_processes",
    "plugin_traceback",
    "process_count",
    "sandbox_missing",
    "unguarded",
]
