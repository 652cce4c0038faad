"""A seat in a process of its own (:class:`_ProcessSeat`), asked over a socket
(:mod:`harness.seats.isolation`): the parent waits for each answer with the time left as
its timeout and kills the process on an overrun, so a loop in C code is stopped too; a
process that dies is the seat's :class:`~harness.errors.SeatCrashed`, and a fresh one is
started for its next game.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from harness.errors import PluginError, SeatCrashed
from harness.seats.clock import _Clock, _Seat
from harness.seats.isolation import (
    RemoteError,
    SeatDied,
    SeatProcess,
    SeatProtocolError,
    SeatTimeout,
)
from harness.seats.settings import SeatLimits
from harness.seats.tracing import Beacon


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
