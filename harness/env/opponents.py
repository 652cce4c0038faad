"""The opponents of an environment's agent, held as a tournament holds its seats.

An environment's opponents are strategies like any other: references (``"greedy"``,
``"bots/mine.py:MyBot"``) built afresh every episode, or instances (a policy adapter)
reused. Under the seat settings (``move_time``, ``game_time``, ``isolation``:
:class:`harness.seats.settings.SeatLimits`) they are guarded exactly as in ``harness
play`` and a tournament (:func:`harness.play.open_seats`, :func:`harness.seats.guard`):

* ``isolation="process"``: each opponent plays in a sandboxed process of its own; a
  reference's code (its import included) never runs in the learner's process.
* a time limit alone: a plugin opponent (not harness's own code) plays in a process of
  its own so that the limit holds even for a loop in C code or a plugin that disarms the
  timer; harness's built-ins are timed in place.

So an opponent that loops (over its limit), raises, exits its process or dies is that
opponent's forfeit: the episode ends (terminated, ``info["status"] == "forfeit"``,
``info["error"]`` says who and why), never a hang or the end of the learner's process;
what it prints goes to stderr (its print() lines labelled), never to the learner's stdout.
Without limits (the default, as a tournament config's) the opponents play in the
learner's process, as built-in code does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from harness.env.game import seat_makers
from harness.errors import HarnessError
from harness.game.strategy import Strategy
from harness.seats import SeatLimits, in_process, process_count

MAX_SEAT_PROCESSES = 256
"""Opponent seat processes one environment may hold (a vector env of N games has N per
opponent in a process): each is a Python interpreter (31.6 MB resident for a small
plugin's seat, measured)."""


class Opponents:
    """An agent's opponents (table entrants 1..n-1) under ``limits``: their display names
    and, episode by episode, the strategies the game asks."""

    def __init__(self, opponents: Sequence[Any], limits: SeatLimits) -> None:
        self.limits = limits
        self._seats: Any = None
        self._makers: list[tuple[str, Callable[[], Strategy]]] = []
        if limits.isolation != "process":  # references are loaded here (built-ins, plugins)
            self._makers = seat_makers(opponents)
        if not limits.active:
            self.names = [name for name, _ in self._makers]
            return
        from harness.play import open_seats  # the one way seats are built under limits

        items = [
            item if isinstance(item, (str, Strategy)) else _reference(item) for item in opponents
        ]
        names = [name for name, _ in self._makers] if self._makers else None
        self._seats = open_seats(items, limits, names, display=True)
        self.names = list(self._seats.names)

    @property
    def processes(self) -> int:
        """Seat processes held (0 without limits)."""
        return 0 if self._seats is None else process_count(self._seats.strategies)

    def for_episode(self) -> list[Strategy]:
        """The opponents' strategies for the next episode, entrant by entrant: fresh
        instances of references (a seat process builds its own at ``new_game``)."""
        if self._seats is None:
            return [make() for _, make in self._makers]
        seats = self._seats.strategies
        if self._makers:
            for seat, (_, make) in zip(seats, self._makers, strict=True):
                if in_process(seat):
                    seat.renew(make())
        return list(seats)

    def close(self) -> None:
        """End the opponents' seat processes (none without limits)."""
        if self._seats is not None:
            self._seats.close()
            self._seats = None


def _reference(item: Any) -> str:
    """A resolved spec (:class:`harness.plugins.StrategySpec`) as the reference it came from."""
    label = getattr(item, "label", None)
    if not isinstance(label, str):
        raise HarnessError(f"opponent {item!r}: give a reference or a Strategy instance")
    return label


__all__ = ["MAX_SEAT_PROCESSES", "Opponents"]
