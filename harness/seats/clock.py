"""A seat's time in one game (:class:`_Clock`: what a call may take, whether it took too
long, in one wording) and what both seat wrappers share (:class:`_Seat`: the clock, the
seat's name and its beacon). The wrappers: :mod:`.timed` (in this process) and
:mod:`.process_seat` (in a process of its own).
"""

from __future__ import annotations

from harness.errors import TimeForfeit
from harness.game.strategy import Strategy
from harness.seats.settings import SeatLimits
from harness.seats.tracing import Beacon


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
