"""Wrappers around a chunk's seats that watch their decisions: tracing and timing.

``Traced`` (:class:`harness.seats.Traced`) tells a backend's watch which
seat, turn and method a game is in (a worker that died is replayed this way);
:class:`Timed` times a user strategy's decisions into the chunk's
:class:`~harness.runfolder.timing.ChunkTimes`. Neither changes what the wrapped strategy
decides.
"""

from __future__ import annotations

from time import perf_counter_ns
from typing import Any

from harness.game.rules import Rules
from harness.game.strategy import Strategy
from harness.runfolder.timing import ChunkTimes


# -- timing: how long a user strategy takes to decide ---------------------------------------
class Timed(Strategy):
    """Times every decision of the strategy it wraps (a timed game's user seat) into its
    entrant's share of the chunk's :class:`~harness.runfolder.timing.ChunkTimes`. The
    wrapped methods are looked up at each call, as the engine looks them up, so that a
    strategy whose attribute raises forfeits as it would unwrapped."""

    def __init__(self, inner: Strategy, times: ChunkTimes, entrant: int) -> None:
        self.inner = inner
        self.hist = times.hist[entrant]
        self.ns = times.ns
        self.entrant = entrant

    def _took(self, start: int) -> None:
        d = perf_counter_ns() - start
        self.ns[self.entrant] += d
        b = d.bit_length()  # harness.runfolder.timing.bucket, inline
        self.hist[(b << 2) | ((d >> (b - 3)) & 3) if b > 2 else b << 2] += 1

    def new_game(self, seat: int, rules: Rules) -> None:
        self.inner.new_game(seat, rules)

    def pick(self, view: Any) -> Any:  # the most frequent decision: _took inline
        start = perf_counter_ns()
        face = self.inner.pick(view)
        d = perf_counter_ns() - start
        self.ns[self.entrant] += d
        b = d.bit_length()
        self.hist[(b << 2) | ((d >> (b - 3)) & 3) if b > 2 else b << 2] += 1
        return face

    def stop(self, view: Any) -> Any:
        start = perf_counter_ns()
        answer = self.inner.stop(view)
        self._took(start)
        return answer

    def claim(self, view: Any, choices: Any) -> Any:
        start = perf_counter_ns()
        answer = self.inner.claim(view, choices)
        self._took(start)
        return answer
