"""The adaptive schedule's keys: ``schedule: adaptive``, its ``target:`` and ``budget:``.

An adaptive run plays its tables in batches of ``target.batch`` deals, only the tables
whose comparisons are still open, each comparison an anytime-valid confidence sequence
(:mod:`harness.stats.sequential_cs`) with an indifference zone (``target.zone`` points of
head-to-head share, or ``target.zone_elo``), the run's ``target.confidence`` split over
its comparisons. ``deals:`` is then the most deals a table plays; ``budget:`` the most
games of the run. Checked here, each mistake one line (the checker adds file and line).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError
from harness.plugins import shown
from harness.stats.sequential_cs import zone_of_elo

SCHEDULES = ("fixed", "adaptive")
TARGET_KEYS = ("zone", "zone_elo", "confidence", "batch")
DEFAULT_ZONE = 1.0  # points of head-to-head share (the issue's +-1 point)
DEFAULT_CONFIDENCE = 0.95  # for the whole run: every verdict right at once
# Deals a batch: 200 games a table at 2 players. A batch is a chunk of each open table
# (about 5 ms of the parent's work a chunk), and a comparison is never settled before
# stats.CS_MIN_DEALS (100) deals: a smaller batch saves few games and costs chunks.
DEFAULT_BATCH = 100
MAX_BATCH = 100_000  # deals a batch: a chunk's deals at most (config bounds: MAX_CHUNK)
MAX_BUDGET = 1_000_000_000  # games of one run (config bounds: MAX_PLANNED_GAMES)


@dataclass(frozen=True)
class AdaptiveTarget:
    """A checked adaptive schedule: zone (share), confidence, batch (deals), budget."""

    zone: float = DEFAULT_ZONE / 100
    confidence: float = DEFAULT_CONFIDENCE
    batch: int = DEFAULT_BATCH
    budget: int | None = None  # games of the run at most; None: tables x deals
    zone_elo: float | None = None  # the zone as given in Elo, if it was

    def to_dict(self) -> dict[str, Any]:
        """As run.json and the run key hold it."""
        return {
            "zone": self.zone,
            "zone_elo": self.zone_elo,
            "confidence": self.confidence,
            "batch": self.batch,
            "budget": self.budget,
        }

    def describe(self) -> str:
        """In words, for the run's first lines."""
        zone = (
            f"{self.zone_elo:g} Elo" if self.zone_elo is not None else f"{self.zone * 100:g} points"
        )
        budget = f", at most {self.budget:,} games" if self.budget else ""
        return (
            f"adaptive: batches of {self.batch:,} deals to the open comparisons, a tie "
            f"within +-{zone}, {self.confidence:.0%} for all verdicts at once{budget}"
        )


Fail = Callable[[Any, Any, str], ConfigError]


def _number(fail: Fail, where: Any, key: str, value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(where, key, f"{name}: expected a number, got {shown(value)}")
    return float(value)


def _whole(fail: Fail, where: Any, key: str, value: Any, name: str, high: int) -> int:
    if type(value) is not int:
        raise fail(where, key, f"{name}: expected a whole number, got {shown(value)}")
    if value < 1:
        raise fail(where, key, f"{name}: {value}; must be at least 1")
    if value > high:
        raise fail(where, key, f"{name}: {value:,}; at most {high:,}")
    return value


def check_schedule(data: dict, fail: Fail) -> AdaptiveTarget | None:
    """``schedule``, ``target`` and ``budget`` of a config mapping: None for a fixed
    schedule, the target of an adaptive one; ConfigError (one line) for a mistake."""
    schedule = data.get("schedule", "fixed")
    if not isinstance(schedule, str) or schedule not in SCHEDULES:
        raise fail(data, "schedule", f"schedule: {shown(schedule)} is not one of fixed, adaptive")
    if schedule == "fixed":
        for key in ("target", "budget"):
            if key in data:
                raise fail(data, key, f"{key}: only an adaptive run has one (schedule: adaptive)")
        return None
    target = data.get("target", {})
    if target is None:
        target = {}
    if not isinstance(target, dict):
        raise fail(data, "target", f"target: expected a mapping of {', '.join(TARGET_KEYS)}")
    for key in target:
        if key not in TARGET_KEYS:
            raise fail(
                target, key, f"target: unknown key {shown(key)}; keys are: {', '.join(TARGET_KEYS)}"
            )
    if "zone" in target and "zone_elo" in target:
        raise fail(target, "zone_elo", "target: zone and zone_elo are one setting; give one")
    zone_elo = None
    if "zone_elo" in target:
        zone_elo = _number(fail, target, "zone_elo", target["zone_elo"], "target.zone_elo")
        if not 0 < zone_elo <= 800:
            raise fail(
                target,
                "zone_elo",
                f"target.zone_elo: {zone_elo:g}; a tie zone lies above 0 and at most 800 Elo "
                "(0 could never call a tie)",
            )
        zone = zone_of_elo(zone_elo)
    else:
        points = _number(fail, target, "zone", target.get("zone", DEFAULT_ZONE), "target.zone")
        if not 0 < points < 50:
            raise fail(
                target,
                "zone",
                f"target.zone: {points:g}; a tie zone lies above 0 and below 50 points of "
                "head-to-head share (0 could never call a tie, 50 calls everything one)",
            )
        zone = points / 100
    given = target.get("confidence", DEFAULT_CONFIDENCE)
    confidence = _number(fail, target, "confidence", given, "target.confidence")
    if not 0.5 <= confidence < 1:
        raise fail(
            target,
            "confidence",
            f"target.confidence: {confidence:g}; give at least 0.5 and below 1 (1 would never "
            "settle anything)",
        )
    batch = _whole(
        fail, target, "batch", target.get("batch", DEFAULT_BATCH), "target.batch", MAX_BATCH
    )
    budget = None
    if data.get("budget") is not None:
        budget = _whole(fail, data, "budget", data["budget"], "budget", MAX_BUDGET)
    return AdaptiveTarget(zone, confidence, batch, budget, zone_elo)


def schedule_problem(
    target: AdaptiveTarget, chunk: int, tables: int, orders: int, cap: int
) -> str | None:
    """What makes an adaptive plan impossible (None: nothing): a chunk that does not cut
    the batches into whole chunks, more tables than a batch may hold, a budget below the
    first batch. ``chunk``: deals a chunk as given (0: none); ``orders``: games a deal."""
    if chunk and target.batch % chunk:
        return (
            f"chunk: {chunk:,} does not divide target.batch ({target.batch:,}); a batch is "
            "whole chunks (leave chunk: out to have one chunk a batch)"
        )
    if tables > cap:
        return f"schedule: adaptive plays at most {cap:,} tables; this run has {tables:,}"
    first = tables * target.batch * orders
    if target.budget is not None and target.budget < first:
        return (
            f"budget: {target.budget:,} games; the first batch alone is {first:,} "
            f"({tables:,} tables x {target.batch:,} deals x {orders} seat orders)"
        )
    return None
