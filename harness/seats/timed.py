"""An in-process seat, timed: each call measured by the wall clock, and a pure-Python loop
in the main thread interrupted at its deadline by SIGALRM (``setitimer``), re-raised every
50 ms at a plugin that swallows it. A loop in C code that ignores signals is left to the
watchdog of the process that plays, told through the seat's beacon. The answer is read as
the engine reads it (its own ``plain_int`` and ``plain_pair``) inside the limit, so an
``__index__`` that loops is stopped like the call.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

from harness.game.engine import NOT_INT, plain_int, plain_pair  # the engine's own reading
from harness.game.strategy import Strategy
from harness.interrupts import is_user_interrupt
from harness.seats.clock import _Clock, _Seat
from harness.seats.settings import SeatLimits
from harness.seats.tracing import Beacon


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
