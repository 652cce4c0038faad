"""Where plugin code is running, told to a watch outside the call.

:class:`Beacon`: a seat wrapper says when plugin code starts and ends (and its deadline),
for a watchdog that can end a call from outside (a tournament's workers, the coach's).
:class:`Traced`: every call into a strategy told by seat, turn and method, to find
which seat a process died in. Re-exported by :mod:`harness.seats`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.game.rules import Rules
from harness.game.strategy import Strategy


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
