"""The tuner's games: points of the bot against the field on given deals, played as the
tourney's own chunks, summed per deal.

A *point* is the bot with one set of parameter values. A point plays a gauntlet against
the field (the bot and each group of ``players - 1`` field members at a table, every
seat order of the tourney's design), on deals ``first`` .. ``stop - 1`` seeded from the
tuner's seed and the deal's index alone, as any tourney deal is (duplicate dice). Two
points on the same deals therefore meet the same dice in the same seats against the
same opponents: their difference is paired. The chunks are :func:`harness.tourney.plan.
spec_for`'s (one a table), played by any tourney backend, with the luck and skill
account kept (``luck: on``).

Each point's games are reduced to three numbers per deal: Y its win points (the
standings' win share: 1 alone first, 1/k shared by k), C its control (the report's own:
:func:`harness.stats.win_control` of what the chunk kept, the win-weighted luck under
``luck: on``, against the mean of the others', :func:`harness.stats.versus_others`), M
its finished games (turn-capped ones are left out, as the report leaves them
out). Outcomes are summed in the order of the specs, never in the order they land: the
sums are the same bit for bit on any worker count or backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.errors import RunFailed
from harness.runfolder.schema import TURN_CAP
from harness.stats import versus_others, win_points
from harness.tourney import load_config, plan
from harness.tourney.backends import Backend, Done, Failed
from harness.tourney.chunk_result import win_control_of

#: The bot's name at its tables (a field member may be the same strategy).
TUNED = "tuned"


@dataclass
class DealSums:
    """A point's per-deal sums over its games: win points Y, control C, games M."""

    y: np.ndarray
    c: np.ndarray
    m: np.ndarray
    forfeits: int = 0

    @classmethod
    def zeros(cls, deals: int) -> DealSums:
        return cls(np.zeros(deals), np.zeros(deals), np.zeros(deals))


def point_config(
    load: str,
    params: dict[str, Any],
    field: Sequence[str],
    *,
    players: int,
    seed: int,
    stop: int,
    engine: str = "auto",
) -> Any:
    """The gauntlet of one point against the field (checked as any tourney config)."""
    return load_config(
        {
            "name": "tune",
            "players": players,
            "format": "gauntlet",
            "challenger": {"strategy": load, "name": TUNED, "params": params},
            "entrants": list(field),
            "deals": stop,
            "seed": seed,
            "luck": "on",
            "engine": engine,
        }
    )


def point_specs(config: Any, first: int, stop: int) -> list[plan.ChunkSpec]:
    """The chunks of deals ``first`` .. ``stop - 1`` of every table of a point's gauntlet."""
    return [plan.spec_for(config, table, first, stop) for table in plan.tables(config)]


def reduce(spec: plan.ChunkSpec, result: Any, sums: DealSums) -> None:
    """Add a played chunk's games to the point's per-deal sums (in place)."""
    games = result.games
    rows = result.rows
    if not rows:
        return
    mine = [i for i, e in enumerate(spec.entrants) if e.name == TUNED][0]
    orders = np.asarray(spec.orders)  # (orders, seats): the table entrant in each seat
    seating = np.asarray(games["seating"], dtype=np.int64)
    seat_of = np.argmax(orders[seating] == mine, axis=1)  # the bot's seat in each game
    n = len(result.seats)
    rank = np.stack([np.asarray(result.seats[i]["rank"], dtype=float) for i in range(n)], 1)
    picked = np.arange(rows)
    y = win_points(rank)[picked, seat_of]
    c = versus_others(win_control_of(result))[picked, seat_of]
    ok = np.asarray(games["status"]) != TURN_CAP
    deal = np.asarray(games["deal"], dtype=np.int64) - spec.first
    np.add.at(sums.y, deal[ok], y[ok])
    np.add.at(sums.c, deal[ok], c[ok])
    np.add.at(sums.m, deal[ok], 1.0)
    sums.forfeits += int((np.asarray(games["error_seat"]) >= 0).sum())


def play_points(backend: Backend, points: list[list[plan.ChunkSpec]], deals: int) -> list[DealSums]:
    """Play every point's chunks on ``backend``; each point's per-deal sums, added in
    spec order. A chunk that fails (twice: the backends retry once) stops the tuner with
    one line: a point with a deal missing cannot be compared."""
    where: dict[str, list[tuple[int, int]]] = {}  # two points alike share their chunks
    for p, specs in enumerate(points):
        for i, spec in enumerate(specs):
            where.setdefault(spec.key, []).append((p, i))
    firsts = {key: points[p][i] for key, ((p, i), *_) in where.items()}
    landed: dict[str, Any] = {}
    outcomes = backend.results(iter(firsts.values()))
    try:
        for outcome in outcomes:
            if outcome is None:
                continue
            if isinstance(outcome, Failed):
                spec = outcome.spec
                raise RunFailed(
                    f"deals {spec.first}-{spec.stop - 1} of {spec.describe()} could not be "
                    f"played: {outcome.reason}; run the same command again to resume"
                )
            assert isinstance(outcome, Done)
            landed[outcome.spec.key] = outcome.result
    finally:
        outcomes.close()
    out = [DealSums.zeros(deals) for _ in points]
    for key in where:  # in spec order, whatever order they landed in
        for p, i in where[key]:
            reduce(points[p][i], landed[key], out[p])
    return out


__all__ = ["TUNED", "DealSums", "play_points", "point_config", "point_specs", "reduce"]
