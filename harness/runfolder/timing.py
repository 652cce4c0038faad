"""Decision times: how long each strategy takes to decide, as a chunk records them.

A chunk times the decisions (``pick``, ``stop``, ``claim``) of its seats whose strategy
is not a built-in, in one game of every :data:`TIME_EVERY` (the chunk's rows 0, 16, 32,
...: its first game always), on the wall clock of the process that plays it
(``time.perf_counter_ns``: a strategy that sleeps or waits is slow too). Built-ins are
project code, played natively in C where they can be, and not timed. Per table entrant a
chunk keeps (:class:`ChunkTimes`) the decisions, their total, the games timed and a
histogram of the times in quarter-octave buckets (:func:`bucket`), and stores it on its
manifest line under ``"timing"``, by display name. Sampling 1 game in 16 keeps the cost
of the clock off the games (measured: ``benchmarks/decision_timing.py``).

:func:`strategy_times` sums a run's lines per strategy into what the terminal and the
report show: the mean and the 99th percentile per decision (the percentile from the
histogram: within 12% of the true value, the half-width of a bucket), the decision time
per game, and the worker CPU per game of the tables the strategy sat at (the chunks'
``cpu``, every seat and the engine together).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

TIME_EVERY = 16  # a chunk times the decisions of one game in this many (0: none)
BUCKETS = 256  # quarter octaves of nanoseconds: far past any time a run can take
TIMING_KEY = "timing"  # the manifest line's field


def bucket(ns: int) -> int:
    """The histogram bucket of a duration in nanoseconds: 4 per octave, by the bits after
    the leading one (the same arithmetic is inlined where decisions are timed)."""
    b = ns.bit_length()
    return (b << 2) | ((ns >> (b - 3)) & 3) if b > 2 else b << 2


def bucket_seconds(index: int) -> float:
    """A bucket's middle (geometric) in seconds: the true time is within 12% of it."""
    b, quarter = index >> 2, index & 3
    if b < 1:
        return 0.0
    low = 2.0 ** (b - 1) * (1 + quarter / 4)
    high = 2.0 ** (b - 1) * (1 + (quarter + 1) / 4)
    return math.sqrt(low * high) / 1e9


class ChunkTimes:
    """The decision times of one chunk's table entrants (by entrant index), mutable.

    The hot path reads :attr:`hist` and :attr:`ns` directly: a decision of entrant e
    adds its nanoseconds to ``ns[e]`` and one to ``hist[e][bucket(ns)]``; a timed game
    adds one to ``games[e]``.
    """

    def __init__(self, entrants: int) -> None:
        self.ns = [0] * entrants
        self.hist = [[0] * BUCKETS for _ in range(entrants)]
        self.games = [0] * entrants

    @staticmethod
    def timed(row: int) -> bool:
        """Whether the game in chunk row ``row`` is timed (its first, then 1 in 16)."""
        return TIME_EVERY > 0 and row % TIME_EVERY == 0

    def totals(self) -> list[tuple[int, float]]:
        """Per entrant: (decisions, seconds) so far (for the progress line)."""
        return [(sum(h), ns / 1e9) for h, ns in zip(self.hist, self.ns, strict=True)]

    def to_json(self, names: list[str]) -> dict[str, Any]:
        """The manifest line's ``timing``: per entrant that decided in a timed game, by
        name: decisions, seconds, games timed and the non-empty buckets."""
        out = {}
        for e, name in enumerate(names):
            hist = self.hist[e]
            decisions = sum(hist)
            if decisions:
                out[name] = {
                    "decisions": decisions,
                    "seconds": round(self.ns[e] / 1e9, 9),
                    "games": self.games[e],
                    "hist": {str(i): c for i, c in enumerate(hist) if c},
                }
        return out


def merge(into: dict[str, Any], more: Mapping[str, Any] | None) -> dict[str, Any]:
    """Stored timings summed (the parts of a chunk, the chunks of a strategy); malformed
    entries (a damaged or hand-edited line) are left out, never trusted as numbers."""
    if not isinstance(more, Mapping):
        return into
    for name, one in more.items():
        if not isinstance(name, str) or not _well_formed(one):
            continue
        have = into.setdefault(name, {"decisions": 0, "seconds": 0.0, "games": 0, "hist": {}})
        have["decisions"] += one["decisions"]
        have["seconds"] += one["seconds"]
        have["games"] += one["games"]
        for index, count in one["hist"].items():
            have["hist"][index] = have["hist"].get(index, 0) + count
    return into


def _well_formed(one: Any) -> bool:
    if not isinstance(one, dict):
        return False
    counts = [one.get("decisions"), one.get("games")]
    if not all(type(c) is int and c >= 0 for c in counts):
        return False
    seconds = one.get("seconds")
    if type(seconds) not in (int, float) or not math.isfinite(seconds) or seconds < 0:
        return False
    hist = one.get("hist")
    return isinstance(hist, dict) and all(
        isinstance(k, str) and k.isdigit() and int(k) < BUCKETS and type(v) is int and v >= 0
        for k, v in hist.items()
    )


def quantile(hist: Mapping[str, int], q: float) -> float | None:
    """The ``q`` quantile of a stored histogram, in seconds (a bucket's middle)."""
    counts = sorted((int(k), v) for k, v in hist.items() if v)
    total = sum(v for _, v in counts)
    if not total:
        return None
    need, seen = q * total, 0
    for index, count in counts:
        seen += count
        if seen >= need:
            return bucket_seconds(index)
    return bucket_seconds(counts[-1][0])


@dataclass(frozen=True)
class StrategyTime:
    """What a run says of one strategy's speed (None: not measured)."""

    strategy: str
    decisions: int  # decisions timed
    games_timed: int
    mean: float | None  # seconds per decision
    p99: float | None  # seconds, 99th percentile per decision
    per_game: float | None  # seconds of its own decisions per game
    cpu_per_game: float | None  # worker CPU seconds per game of the tables it sat at
    games: int  # games of its tables' chunks (the CPU figure's base)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def strategy_times(
    entries: Iterable[Mapping[str, Any]],
    tables: Mapping[str, Iterable[str]],
    names: Iterable[str],
) -> list[StrategyTime]:
    """Per strategy (``names``, in that order): its decision times summed over the chunks'
    ``timing`` and the CPU per game of the chunks of its tables (``tables``: table id ->
    its entrants' names)."""
    timing: dict[str, Any] = {}
    cpu: dict[str, float] = {}
    games: dict[str, int] = {}
    for entry in entries:
        merge(timing, entry.get(TIMING_KEY) if isinstance(entry, Mapping) else None)
        seconds, rows = entry.get("cpu"), entry.get("games")
        if type(seconds) not in (int, float) or type(rows) is not int or rows <= 0:
            continue
        if not math.isfinite(seconds) or seconds < 0:
            continue
        # A chunk of several tables: its CPU and games shared evenly among them (their
        # games are as many; the CPU of each is not measured apart).
        listed = entry.get("tables")
        ids = listed if isinstance(listed, list) and listed else [entry.get("table")]
        for table in ids:
            for name in set(tables.get(str(table), ())):
                cpu[name] = cpu.get(name, 0.0) + seconds / len(ids)
                games[name] = games.get(name, 0) + rows // len(ids)
    out = []
    for name in names:
        t = timing.get(name)
        n = games.get(name, 0)
        cpu_per_game = cpu[name] / n if n else None
        if t is None or not t["decisions"]:
            out.append(StrategyTime(name, 0, 0, None, None, None, cpu_per_game, n))
            continue
        out.append(
            StrategyTime(
                name,
                t["decisions"],
                t["games"],
                t["seconds"] / t["decisions"],
                quantile(t["hist"], 0.99),
                t["seconds"] / t["games"] if t["games"] else None,
                cpu_per_game,
                n,
            )
        )
    return out


def seconds_text(value: float | None) -> str:
    """A duration for people: ``850 ns``, ``12.3 µs``, ``51.2 ms``, ``2.95 s``."""
    if value is None or not math.isfinite(value):
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if value >= scale:
            shown = value / scale
            return f"{shown:.3g} {unit}" if shown < 1000 else f"{shown:,.0f} {unit}"
    return f"{value * 1e9:.0f} ns"
