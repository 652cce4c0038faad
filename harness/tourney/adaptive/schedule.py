"""An adaptive run's schedule: its comparisons, its batches, and which tables play next.

A **comparison** is a pair of entrants whose order the run settles: every pair that
shares a table in a round robin, the challenger and each member of the field in a
gauntlet. Each is a :class:`harness.stats.PairSequence` (an anytime-valid confidence
sequence of A's head-to-head share against B, luck-adjusted where the games keep the
account), at alpha = (1 - confidence) / comparisons: every verdict of the run is right
at once with the target's confidence (Bonferroni).

A **batch** is the deals ``k * batch`` .. ``(k + 1) * batch - 1`` (up to ``deals:``) of
every table still *open*: a table is open while one of its comparisons is. So while a
comparison is open, every table where its two entrants meet plays every batch: what it
estimates (their head-to-head share over those tables) stays one number. A batch's
chunks are the fixed plan's own (the plan of ``deals:``; a batch is whole chunks), so
their keys make resume and reuse work as for any run.

**Determinism.** What batch k plays is a function of the config and of the games of
batches 0 .. k-1 alone, read back from the run folder (played, resumed or reused
alike) in table and deal order: a config and a seed give the same schedule, the same
games and the same verdicts on any worker count, chunking, engine or backend, and a
resumed run decides again, batch by batch, exactly as the first one did.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from harness.runfolder.schema import seat_column
from harness.stats import (
    STOP_LEVEL,
    PairSequence,
    pair_points,
    sequence_interval,
    unit_totals,
    win_control,
)
from harness.tourney import plan
from harness.tourney.adaptive.race import race_outs, race_summary
from harness.tourney.config import TourneyConfig
from harness.tourney.config.adaptive import AdaptiveTarget

#: Why an adaptive run ended: every comparison settled, every table at ``deals:``, the
#: budget (the next batch would pass it).
ENDS = ("settled", "deals", "budget")


def adaptive_key(
    fixed_key: str, target: AdaptiveTarget, races: tuple[tuple[str, ...], ...] = ()
) -> str:
    """The run key of an adaptive run: its fixed plan's (:func:`plan.run_key`, which is
    left as it is, so fixed runs keep their keys), its target and its racing sweeps. Its
    chunk keys are the fixed plan's: resume and reuse go by them."""
    content: dict[str, Any] = {"fixed": fixed_key, "adaptive": target.to_dict()}
    if races:  # a run without one keeps the key it had before races existed
        content["races"] = [list(race) for race in races]
    text = json.dumps(content, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Comparison:
    """One comparison: entrants a and b (by name), its sequence, the games it was fed."""

    a: str
    b: str
    sequence: PairSequence
    games: float = 0.0  # games behind its head-to-head points (sum of M)
    batches: int = 0  # batches it was fed

    dropped: str = ""  # the entrant whose race it left while this was open (it stopped)

    def summary(self, future: Sequence[int] = ()) -> dict[str, Any]:
        """Its numbers: the verdict's (the confidence sequence's) and, apart, the estimate
        interval at the stop (``stop_low``, ``stop_high``, ``stop_median``, ``stop_level``:
        :func:`harness.stats.sequence_interval`; ``future``: the deals of the looks its
        design still had after the last one fed, up to the cap)."""
        s = self.sequence.summary()
        out = {"a": self.a, "b": self.b, **s, "games": int(self.games), "batches": self.batches}
        # computed here, when run.json is written (a run's start and end), not per batch
        out.update(sequence_interval(self.sequence, future), stop_level=STOP_LEVEL)
        if self.dropped:
            out["dropped"] = self.dropped
        return out


@dataclass
class Schedule:
    """The comparisons and the batches of an adaptive run (the module docstring)."""

    config: TourneyConfig
    the_plan: plan.Plan
    comparisons: dict[tuple[int, int], Comparison] = field(init=False)
    batches: list[dict[str, Any]] = field(default_factory=list, init=False)
    ended: str = field(default="", init=False)
    # Deals each table has played (table id -> its stop): what the reader holds it to.
    deals: dict[str, int] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        target = self.config.adaptive
        assert target is not None
        names = sorted(e.name for e in self.config.all_entrants())
        self.index = {name: i for i, name in enumerate(names)}
        self.names = names
        challenger = self.config.challenger
        pairs: set[tuple[int, int]] = set()
        self.table_pairs: dict[str, list[tuple[int, int]]] = {}
        for table in self.the_plan.tables:
            ids = sorted(self.index[n] for n in table.names)
            mine = [
                (a, b)
                for a, b in combinations(ids, 2)
                if challenger is None or challenger.name in (names[a], names[b])
            ]
            self.table_pairs[table.id] = mine
            pairs.update(mine)
        alpha = (1 - target.confidence) / max(1, len(pairs))
        self.comparisons = {
            (a, b): Comparison(names[a], names[b], PairSequence(alpha=alpha, zone=target.zone))
            for a, b in sorted(pairs)
        }
        self.batch = target.batch
        self.orders = len(plan.design_of(self.config))
        self.per_chunk = self.config.deals_per_chunk
        # Racing sweeps (race: on): each its values' indices; a value beaten by another
        # of its sweep is out (:mod:`.race`), and its tables stop.
        self.races = [tuple(self.index[n] for n in race) for race in self.config.races]
        self.out: dict[int, dict[str, Any]] = {}  # entrant -> who beat it, when
        self.reached = [0] * len(names)  # deals each entrant's tables played
        self.played = [0] * len(names)  # games each entrant played

    # -- what plays next ----------------------------------------------------------------
    @property
    def count(self) -> int:
        """Batches a table plays at most (``deals:`` in batches)."""
        return -(-self.config.games // self.batch)

    def open_pairs(self) -> list[tuple[int, int]]:
        """The comparisons still played: not settled, neither entrant out of its race."""
        out = self.out
        return [
            (a, b)
            for (a, b), c in self.comparisons.items()
            if c.sequence.settled == "open" and a not in out and b not in out
        ]

    def open_tables(self) -> list[plan.Table]:
        """The tables with an open comparison, in plan order."""
        open_ = set(self.open_pairs())
        return [t for t in self.the_plan.tables if open_.intersection(self.table_pairs[t.id])]

    def keys(self, k: int, tables: list[plan.Table]) -> list[str]:
        """The chunk keys of batch ``k`` at ``tables``, in plan order."""
        per = self.batch // self.per_chunk if self.per_chunk <= self.batch else 1
        first = k * self.batch // self.per_chunk
        return [key for t in tables for key in self.the_plan.keys[t.id][first : first + per]]

    def games_of(self, keys: list[str]) -> int:
        return sum(self.the_plan.planned[key] for key in keys)

    # -- what a batch settles -------------------------------------------------------------
    def feed(self, k: int, tables: list[plan.Table], games: dict[str, np.ndarray]) -> None:
        """Batch ``k``'s games (:func:`read_games` of its chunks) to its open comparisons,
        then one look at each; the batch's record kept for the report."""
        p = len(self.names)
        opened = self.open_pairs()
        reached = min((k + 1) * self.batch, self.config.games)
        for table in tables:
            self.deals[table.id] = reached
            for name in table.names:
                self.reached[self.index[name]] = reached
        for i in range(p):
            self.played[i] += int((games["strat"] == i).any(axis=1).sum())
        settled: list[str] = []
        if len(games["deal"]):
            deal, key, y, m, c, a = unit_totals(
                *pair_points(games["deal"], games["strat"], games["rank"], games["wluck"], p),
                p * p,
            )
            c = np.where(a > 0, c, np.nan)  # no game of the unit kept the account
            for pair in opened:
                mine = key == pair[0] * p + pair[1]
                comparison = self.comparisons[pair]
                comparison.sequence.add_batch(deal[mine], y[mine], m[mine], c[mine])
                comparison.games += float(m[mine].sum())
                comparison.batches += 1
        for pair in opened:
            verdict = self.comparisons[pair].sequence.check()
            if verdict != "open":
                settled.append(" v ".join(self.names[i] for i in pair))
        record: dict[str, Any] = {
            "batch": k,
            "tables": len(tables),
            "open_before": len(opened),
            "settled": settled,
        }
        if self.races:
            record["out"] = race_outs(self, reached)
        self.batches.append(record)

    def summary(self) -> dict[str, Any]:
        """What run.json keeps and the report shows: the target, how the run ended, every
        comparison (verdict, deals, games, share and interval) and each batch."""
        assert self.config.adaptive is not None
        out = {
            "target": self.config.adaptive.to_dict(),
            "ended": self.ended,
            "comparisons": [c.summary(self.future(c)) for c in self.comparisons.values()],
            "batches": self.batches,
            "tables": dict(sorted(self.deals.items())),
        }
        if self.races:
            out["races"] = race_summary(self)
        return out

    def future(self, comparison: Comparison) -> list[int]:
        """The deals a comparison would have had at each look after its last one fed, had
        it gone on to the cap (``deals:``): what its stopping design still held after a
        tie (every batch adds its deals, the last one cut at ``deals:``)."""
        cap, done = self.config.games, comparison.batches
        reached = min(done * self.batch, cap)
        n = comparison.sequence.deals
        return [n + min((k + 1) * self.batch, cap) - reached for k in range(done, self.count)]

    def open_note(self, most: int = 3) -> str:
        """The open comparisons in a few words, for the progress line."""
        open_ = self.open_pairs()
        races = ""
        if self.races:
            values = sum(len(race) for race in self.races)
            races = f"; {len(self.out)} of {values} swept values out"
        if not open_:
            return "every comparison settled" + races
        shown = ", ".join(" v ".join(self.names[i] for i in p) for p in open_[:most])
        more = f" and {len(open_) - most} more" if len(open_) > most else ""
        return f"open: {len(open_)} of {len(self.comparisons)} ({shown}{more}){races}"


def read_games(parts: list[Path], index: dict[str, int], players: int) -> dict[str, np.ndarray]:
    """The finished games of stored chunk files, in the order given: per game its deal
    and per seat the entrant's index, rank and the win-share control (``wluck``:
    :func:`~harness.stats.win_control` of the vector, the win luck and the win-weighted
    luck the part stores; nan without the account). Turn-capped games are left out, as
    the report leaves them out."""
    import pyarrow.parquet as pq

    from harness.runfolder.schema import STATUSES, TURN_CAP

    out: dict[str, list[np.ndarray]] = {"deal": [], "strat": [], "rank": [], "wluck": []}
    for path in parts:
        columns = ["deal", "status"]
        columns += [seat_column(i, f) for i in range(players) for f in ("strategy", "rank")]
        names = pq.read_schema(path).names
        # The account's columns this part stores for every seat (schema 4: wluck; 5:
        # winluck too; 6: winvec too).
        luck = [f for f in ("wluck", "winluck", "winvec")
                if all(seat_column(i, f) in names for i in range(players))]  # fmt: skip
        columns += [seat_column(i, f) for f in luck for i in range(players)]
        data = pq.read_table(path, columns=columns)
        status = data.column("status").to_pylist()
        capped = np.array([s in (TURN_CAP, STATUSES[TURN_CAP]) for s in status], dtype=bool)
        keep = ~capped
        strat = np.array(
            [
                [index[n] for n in data.column(seat_column(i, "strategy")).to_pylist()]
                for i in range(players)
            ]  # fmt: skip
        ).T
        rank = np.array([data.column(seat_column(i, "rank")).to_numpy() for i in range(players)]).T
        stored = {f: _seat_floats(data, f, players) for f in luck}
        wluck = win_control(
            stored.get("wluck", np.full(rank.shape, np.nan)),
            stored.get("winluck"),
            stored.get("winvec"),
        )
        out["deal"].append(data.column("deal").to_numpy().astype(np.int64)[keep])
        out["strat"].append(strat[keep].astype(np.int64))
        out["rank"].append(rank[keep].astype(np.int64))
        out["wluck"].append(wluck[keep])
    if not out["deal"]:
        return {
            "deal": np.zeros(0, dtype=np.int64),
            "strat": np.zeros((0, players), dtype=np.int64),
            "rank": np.zeros((0, players), dtype=np.int64),
            "wluck": np.zeros((0, players)),
        }
    return {name: np.concatenate(parts_) for name, parts_ in out.items()}


def _seat_floats(data: Any, field: str, players: int) -> np.ndarray:
    """A seat field of a pyarrow table as a (games, seats) float array, nan where null."""
    return np.array(
        [data.column(seat_column(i, field)).to_numpy(zero_copy_only=False) for i in range(players)],
        dtype=float,
    ).T
