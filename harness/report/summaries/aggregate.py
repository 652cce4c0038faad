"""Reducing a run's games to the aggregates reports need (the run folder is opened and read
by :mod:`harness.runfolder.reader` and :mod:`harness.runfolder.games`).

The games are read part by part and batch by batch with only the columns needed, and
every batch is folded into fixed-size sums (:class:`Aggregates`): memory depends on the
number of strategies and seats, never on the number of games. The sums are cluster
moments (see :class:`harness.stats.Moments`) whose unit is a deal of the whole
run: every table plays deal d on the same dice (in either dice mode), so all the games
of deal d, at every table and in every seat order, are one cluster. A batch therefore
holds whole deals of every table (:func:`iter_games`): the parts of all tables that
cover the same deals are read side by side, and a deal is folded only once every part
has gone past it.

Parts are read with pyarrow and folded from numpy (:class:`Games`): no pandas per part,
one conversion per column and batch. The rating intervals need a second pass (the fit
comes first); what it reads is kept from the first pass while that stays small
(``KEPT_BYTES``), so a run of a few million games is read once. Batches, the order of
every sum and therefore every number are those of the frames this module read before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness import stats
from harness.errors import safe_text
from harness.game.ranking import POINT, Counts
from harness.report.summaries.same_games import SameGames
from harness.runfolder.games import (
    Games,
    deal_clusters,
    iter_batches,
    read_columns,
)
from harness.runfolder.reader import (
    ProgressCallback,
    RunInfo,
    open_run,
)
from harness.runfolder.schema import (
    ACCOUNT_FIELDS,
    ERROR_KINDS,
    FORFEIT,
    STATUSES,
    TURN_CAP,
    seat_column,
)

UNKNOWN_KIND = "unknown"  # a forfeit stored before error_kind existed

MAX_WORMS = 40  # every tile's worms together (R1): no score can be higher
CONVERGENCE_BUCKETS = 256  # resolution of the win-share-vs-games curve
DENSE_CELLS = 1 << 21  # up to this many (cluster, key) cells are counted densely
FORFEIT_GROUPS = 200  # distinct (strategy, kind, error) forfeit groups kept with an example
FORFEIT_MESSAGES = 100  # distinct messages counted per group (then "100 or more")
# Where a forfeit happened, at the start of its message: one bug forfeits at many turns
# and seats, and the report groups it once (GameError's "turn T, seat S (name) ").
_WHERE = re.compile(r"^turn \d+, seat \d+ \((?P<name>.*?)\) ")
_NUMBER = re.compile(r"(?<![A-Za-z_])\d+(?:\.\d+)?")  # not a rule id (R5) nor a name's digit


def forfeit_detail(error: str, who: str) -> str:
    """A forfeit's message without where it happened (``turn 3, seat 1 (my-bot) ``)."""
    found = _WHERE.match(error)
    if found is not None and found.group("name") == who:
        return error[found.end() :]
    return error


def forfeit_pattern(detail: str) -> str:
    """What groups forfeits of one cause: the message with its numbers (faces, totals,
    a KeyError's key) left out, rule ids kept: "picked #, already set aside (R5)"."""
    return _NUMBER.sub("#", detail)


KEPT_BYTES = 1 << 26  # the rating pass's inputs kept from the first pass up to this size


# -- aggregates --------------------------------------------------------------------------
MOMENT_FIELDS = 6  # deals, sy, sm, syy, smm, sym: see stats.Moments


def moments_of(row: np.ndarray) -> stats.Moments:
    """A :class:`~harness.stats.Moments` from one row of a moment array."""
    return stats.Moments(*(float(v) for v in row))


def cluster_moments(
    cluster: np.ndarray, key: np.ndarray, y: np.ndarray, m: np.ndarray, keys: int
) -> np.ndarray:
    """Moment sums per key over clusters: a (keys, 6) array.

    Each (cluster, key) unit's totals Y = sum(y) and M = sum(m) contribute
    (1 if M > 0, Y, M, Y^2, M^2, Y M) to the key's row.
    """
    out = np.zeros((keys, MOMENT_FIELDS))
    if len(key) == 0:
        return out
    flat = cluster.astype(np.int64) * keys + key
    cells = (int(cluster.max()) + 1) * keys
    # Every (cluster, key) cell counted densely (no hashing) unless most cells would be
    # empty (many keys, as the convergence curve's buckets): then hashing is cheaper.
    if cells <= min(DENSE_CELLS, 8 * len(key)):
        big_y = np.bincount(flat, weights=y, minlength=cells)
        big_m = np.bincount(flat, weights=m, minlength=cells)
        unit_key = np.tile(np.arange(keys), cells // keys)
    else:  # only the cells that occur, found by hashing (linear time, unlike sorting)
        inv, uniq = pd.factorize(flat)
        big_y = np.bincount(inv, weights=y, minlength=len(uniq))
        big_m = np.bincount(inv, weights=m, minlength=len(uniq))
        unit_key = uniq % keys
    for col, values in enumerate(
        (big_m > 0, big_y, big_m, big_y * big_y, big_m * big_m, big_y * big_m)
    ):
        out[:, col] = np.bincount(unit_key, weights=values.astype(float), minlength=keys)
    return out


@dataclass
class Aggregates:
    """Everything a report needs from a run's games, in sums that do not grow with it."""

    info: RunInfo
    strategies: list[str] = field(default_factory=list)
    rows: int = 0
    status: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    shared: int = 0  # scored games with a shared first place
    turns: float = 0.0
    # per strategy (index s): moments of win points, worms and rank; plain totals.
    win: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    worms: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    rank: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    totals: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)))  # TOTALS order
    worm_hist: np.ndarray = field(default_factory=lambda: np.zeros((0, MAX_WORMS + 1)))
    capped: np.ndarray = field(default_factory=lambda: np.zeros(0))  # turn-capped games
    # per strategy, exact integers (COUNTS order): what the one ranking orders by.
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    seat: np.ndarray = field(default_factory=lambda: np.zeros((0, MOMENT_FIELDS)))
    seat_strategy: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, MOMENT_FIELDS)))
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, MOMENT_FIELDS)))
    conv_width: int = 1
    conv: np.ndarray = field(default_factory=lambda: np.zeros((CONVERGENCE_BUCKETS, 0, 6)))
    choices: stats.ChoiceData = field(default_factory=lambda: stats.ChoiceData(0))
    forfeits: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    forfeit_groups_dropped: int = 0
    # Forfeits by kind (error_kind; "unknown" before schema 2), overall and per strategy:
    # time forfeits depend on the machine, so reports count them apart.
    forfeit_kinds: dict[str, int] = field(default_factory=dict)
    forfeit_kinds_by_strategy: dict[str, dict[str, int]] = field(default_factory=dict)
    tables: dict[str, list[str]] = field(default_factory=dict)
    capped_tables: dict[str, int] = field(default_factory=dict)
    ratings: stats.Ratings | None = None  # with cluster-robust covariance (second pass)
    # The luck and skill account (docs/luck.md), per strategy: control moments per deal
    # fold (stats.CONTROL_FIELDS) of the win share (control: stats.win_control, the vector,
    # win luck or win-weighted luck, against the others'), of the worm margin (own worms -
    # the others' mean; control: luck) and, per pair a < b, of a's head-to-head point
    # (control: W_a - W_b, W the same control); the account's sums (ACCOUNT_SUMS) and a
    # histogram of a seat's luck in a game (LUCK_BINS).
    luck_win: np.ndarray = field(default_factory=lambda: _control_zeros(0))
    luck_margin: np.ndarray = field(default_factory=lambda: _control_zeros(0))
    luck_pairs: np.ndarray = field(default_factory=lambda: _control_zeros(0, 0))
    account: np.ndarray = field(default_factory=lambda: np.zeros((0, len(ACCOUNT_SUMS))))
    luck_hist: np.ndarray = field(default_factory=lambda: np.zeros((0, len(LUCK_BINS) + 1)))
    # Digests of each entrant's games, to find entrants that played the same games
    # (harness.report.summaries.same_games); None with independent dice, where no two games compare.
    same: SameGames | None = None

    def entrant_counts(self) -> dict[str, Counts]:
        """Each strategy's :class:`~harness.game.ranking.Counts`, exact (counted as integers)."""
        out = {}
        for s, name in enumerate(self.strategies):
            games, points, worms, rank = (int(v) for v in self.counts[s])
            forfeits = sum(self.forfeit_kinds_by_strategy.get(name, {}).values())
            out[name] = Counts(games, points, worms, rank, forfeits, int(self.capped[s]))
        return out


TOTALS = ("busts", "seat_turns", "steals", "stolen", "games")
# The account's sums per strategy, over the games that kept it: its columns, then the
# games and seat turns they cover (schema.ACCOUNT_FIELDS).
ACCOUNT_SUMS = (*ACCOUNT_FIELDS, "games", "seat_turns")
# A seat's luck over a game, in worms: histogram edges (the last bin takes the rest).
LUCK_BINS = tuple(np.arange(-20.0, 20.5, 1.0))


def _control_zeros(*shape: int) -> np.ndarray:
    return np.zeros((*shape, stats.FOLDS, len(stats.CONTROL_FIELDS)))


COUNTS = ("games", "points", "worms", "rank")  # Aggregates.counts: points in 1/POINT units


_Scored = tuple[np.ndarray, np.ndarray, np.ndarray]  # strategies, ranks, clusters of a batch


class _Aggregator:
    """Folds batches of games into :class:`Aggregates`."""

    def __init__(self, info: RunInfo, clusters: Clusters | None, keep: bool = False) -> None:
        self.agg = Aggregates(info)
        self.clusters = clusters
        self.n = info.players
        self.code: dict[str, int] = {}
        self.design = info.design
        self.agg.seat = np.zeros((self.n, MOMENT_FIELDS))
        # What the rating pass reads, kept from this pass while it fits in KEPT_BYTES:
        # then the games are read once (None: too many, the rating pass reads them again).
        self.kept: list[_Scored] | None = [] if keep else None
        self.kept_bytes = 0
        # Whether any game may hold the account: run.json's ``luck`` (a run of schema 3 or
        # older, or with luck off, has none: its luck moments are skipped).
        self.luck_kept = info.config.get("luck", "off") != "off"
        self._seen_messages: dict[tuple[str, str, str], set[str]] = {}  # per forfeit group
        if info.config.get("dice") == "duplicate":
            self.agg.same = SameGames()
        for entrant in info.entrants:
            name = entrant.get("name")
            if isinstance(name, str) and name not in self.code:
                self._add_strategy(name)

    def _add_strategy(self, name: str) -> None:
        a, n = self.agg, self.n
        self.code[name] = len(a.strategies)
        a.strategies.append(name)
        p = len(a.strategies)
        a.win = _grow(a.win, (p, MOMENT_FIELDS))
        a.worms = _grow(a.worms, (p, MOMENT_FIELDS))
        a.rank = _grow(a.rank, (p, MOMENT_FIELDS))
        a.totals = _grow(a.totals, (p, len(TOTALS)))
        a.worm_hist = _grow(a.worm_hist, (p, MAX_WORMS + 1))
        a.capped = _grow(a.capped, (p,))
        a.counts = _grow(a.counts, (p, len(COUNTS)))
        a.seat_strategy = _grow(a.seat_strategy, (p, n, MOMENT_FIELDS))
        a.pairs = _grow(a.pairs, (p, p, MOMENT_FIELDS))
        a.conv = _grow(a.conv, (CONVERGENCE_BUCKETS, p, MOMENT_FIELDS))
        a.choices.strategies = p
        fields = (stats.FOLDS, len(stats.CONTROL_FIELDS))
        a.luck_win = _grow(a.luck_win, (p, *fields))
        a.luck_margin = _grow(a.luck_margin, (p, *fields))
        a.luck_pairs = _grow(a.luck_pairs, (p, p, *fields))
        a.account = _grow(a.account, (p, len(ACCOUNT_SUMS)))
        a.luck_hist = _grow(a.luck_hist, (p, len(LUCK_BINS) + 1))

    def codes(self, games: Games) -> np.ndarray:
        """(games, seats) strategy indices, registering names seen for the first time."""
        out = np.empty((len(games), self.n), dtype=np.int64)
        for i in range(self.n):
            local, names = games.labels(seat_column(i, "strategy"))
            for name in names:
                if name not in self.code:
                    self._add_strategy(name)
            lookup = np.array([self.code[name] for name in names], dtype=np.int64)
            out[:, i] = lookup[local]
        return out

    def cluster(self, games: Games) -> np.ndarray:
        """Each game's cluster (given clusters are computed on the games as a frame)."""
        return deal_clusters(games) if self.clusters is None else self.clusters(games.to_pandas())

    def add(self, games: Games) -> None:
        a, n = self.agg, self.n
        g = len(games)
        a.rows += g
        strat = self.codes(games)
        codes, names = games.labels("status")
        counts = np.bincount(codes, minlength=len(names))
        for s in STATUSES:
            a.status[s] += int(counts[names.index(s)]) if s in names else 0
        self._tables(games, strat)
        capped = games.matches("status", STATUSES[TURN_CAP])
        if capped.any():
            for s in range(n):
                a.capped += np.bincount(strat[capped, s], minlength=len(a.strategies))
            tables = pd.Series(games.text("table")[capped])
            for table, count in tables.value_counts().items():
                a.capped_tables[table] = a.capped_tables.get(table, 0) + int(count)
        self._forfeits(games, strat, games.matches("status", STATUSES[FORFEIT]))
        if a.same is not None:  # every game, capped ones too: the same decisions, the same cap
            a.same.add(games, strat, len(a.strategies), self.luck_kept)
        keep = ~capped
        games, strat = games.select(keep), strat[keep]
        g = len(games)
        if g == 0:
            return
        p = len(a.strategies)
        ranks = games.numbers([seat_column(i, "rank") for i in range(n)], np.int64)
        worms = games.numbers([seat_column(i, "worms") for i in range(n)], np.float64)
        turns = games.number("turns").astype(np.int64)
        a.turns += float(turns.sum())
        firsts = (ranks == 1).sum(axis=1)
        a.shared += int((firsts > 1).sum())
        points = np.where(ranks == 1, 1.0 / np.maximum(firsts, 1)[:, None], 0.0)
        cluster = self.cluster(games)
        self._keep(strat, ranks, cluster)
        deal = games.number("deal").astype(np.int64)

        flat_c = np.repeat(cluster, n)
        flat_s = strat.ravel()
        ones = np.ones(g * n)
        a.win += cluster_moments(flat_c, flat_s, points.ravel(), ones, p)
        a.worms += cluster_moments(flat_c, flat_s, worms.ravel(), ones, p)
        a.rank += cluster_moments(flat_c, flat_s, ranks.ravel().astype(float), ones, p)
        seat_idx = np.tile(np.arange(n), g)
        seat_turns = np.maximum((turns[:, None] - np.arange(n) + n - 1) // n, 0)
        for col, values in enumerate(
            (
                games.numbers([seat_column(i, "busts") for i in range(n)], np.float64),
                seat_turns.astype(np.float64),
                games.numbers([seat_column(i, "steals") for i in range(n)], np.float64),
                games.numbers([seat_column(i, "stolen") for i in range(n)], np.float64),
                np.ones((g, n)),
            )
        ):
            a.totals[:, col] += np.bincount(flat_s, weights=values.ravel(), minlength=p)
        # The same games counted exactly: integer weights, whose float sums within a batch
        # stay far below 2**53, so rounding them back is exact.
        share = np.where(ranks == 1, POINT // np.maximum(firsts, 1)[:, None], 0)
        for col, values in enumerate((np.ones_like(ranks), share, worms, ranks)):
            summed = np.bincount(flat_s, weights=values.ravel(), minlength=p)
            a.counts[:, col] += np.rint(summed).astype(np.int64)
        hist_key = flat_s * (MAX_WORMS + 1) + np.clip(worms.ravel(), 0, MAX_WORMS).astype(np.int64)
        a.worm_hist += np.bincount(hist_key, minlength=p * (MAX_WORMS + 1)).reshape(p, -1)
        a.seat += cluster_moments(flat_c, seat_idx, points.ravel(), ones, n)
        a.seat_strategy += cluster_moments(
            flat_c, flat_s * n + seat_idx, points.ravel(), ones, p * n
        ).reshape(p, n, MOMENT_FIELDS)
        self._pairs(cluster, strat, ranks, p)
        self._luck(games, deal, strat, ranks, points, worms, seat_turns, p)
        self._convergence(cluster, deal, strat, points, p)
        for chosen, pool, weight in _choice_events(strat, ranks):
            a.choices.add(chosen, pool, weight)

    def scored(self, games: Games) -> _Scored | None:
        """The scored games' (strategies, ranks, clusters), or None if there are none."""
        games = games.select(~games.matches("status", STATUSES[TURN_CAP]))
        if not len(games):
            return None
        ranks = games.numbers([seat_column(i, "rank") for i in range(self.n)], np.int64)
        return self.codes(games), ranks, self.cluster(games)

    def _keep(self, strat: np.ndarray, ranks: np.ndarray, cluster: np.ndarray) -> None:
        if self.kept is None:
            return
        kept = (strat.astype(np.int32), ranks.astype(np.int8), cluster.astype(np.int32))
        self.kept_bytes += sum(a.nbytes for a in kept)
        if self.kept_bytes > KEPT_BYTES:
            self.kept = None
        else:
            self.kept.append(kept)

    def _tables(self, games: Games, strat: np.ndarray) -> None:
        """Each table's entrants in table order, from its first game: seat i of seat
        order k holds table entrant ``design[k][i]``."""
        a, design = self.agg, self.design
        codes, names = games.labels("table")
        if all(name in a.tables for name in names):
            return
        present, first = np.unique(codes, return_index=True)
        new = [
            (code, row)
            for code, row in sorted(zip(present.tolist(), first.tolist(), strict=True), key=_second)
            if names[code] not in a.tables
        ]
        # Each new table's seat order, read at once (a run of many tables: one take, not
        # one per table).
        orders = games.values("seating", np.array([row for _, row in new], dtype=np.int64))
        for (code, row), k in zip(new, orders, strict=True):
            table = names[code]
            if table in a.tables:
                continue
            k = int(k)
            entrants = [""] * self.n
            if 0 <= k < len(design):
                for seat, entrant in enumerate(design[k]):
                    entrants[entrant] = a.strategies[strat[row, seat]]
            else:  # an order the design does not have: the seats as stored
                entrants = [a.strategies[s] for s in strat[row]]
            a.tables[table] = entrants

    def _forfeits(self, games: Games, strat: np.ndarray, forfeit: np.ndarray) -> None:
        a = self.agg
        rows = np.flatnonzero(forfeit)
        if not len(rows):
            return
        columns = ("error_seat", "error", "error_kind", "table", "deal", "seating", "seed")
        values = zip(*(games.values(c, rows) for c in columns), strict=True)
        for r, (seat, error, kind, table, deal, seating, seed) in zip(rows, values, strict=True):
            seat = int(seat)
            who = a.strategies[strat[r, seat]] if 0 <= seat < self.n else "?"
            error = safe_text(error) if isinstance(error, str) and error else "(no error recorded)"
            kind = kind if isinstance(kind, str) and kind in ERROR_KINDS else UNKNOWN_KIND
            a.forfeit_kinds[kind] = a.forfeit_kinds.get(kind, 0) + 1
            mine = a.forfeit_kinds_by_strategy.setdefault(who, {})
            mine[kind] = mine.get(kind, 0) + 1
            detail = forfeit_detail(error, who)
            key = (who, kind, forfeit_pattern(detail))
            group = a.forfeits.get(key)
            if group is None:
                if len(a.forfeits) >= FORFEIT_GROUPS:
                    a.forfeit_groups_dropped += 1
                    continue
                a.forfeits[key] = group = {
                    "strategy": who,
                    "kind": kind,
                    "error": error,  # the first one, whole
                    "detail": detail,
                    "count": 0,
                    "messages": 0,
                    "example": {
                        "table": str(table),
                        "deal": int(deal),
                        "seating": int(seating),
                        "seed": int(seed),
                        "seat": seat,
                    },
                }
                self._seen_messages[key] = set()
            group["count"] += 1
            seen = self._seen_messages[key]
            if len(seen) < FORFEIT_MESSAGES and detail not in seen:
                seen.add(detail)
                group["messages"] = len(seen)

    def _pairs(self, cluster: np.ndarray, strat: np.ndarray, ranks: np.ndarray, p: int) -> None:
        keys, ys, cs = [], [], []
        for i in range(self.n):
            for j in range(i + 1, self.n):
                si, sj = strat[:, i], strat[:, j]
                differ = si != sj
                ahead_i = np.where(
                    ranks[:, i] < ranks[:, j], 1.0, np.where(ranks[:, i] == ranks[:, j], 0.5, 0.0)
                )
                lo, hi = np.minimum(si, sj), np.maximum(si, sj)
                keys.append((lo * p + hi)[differ])
                ys.append(np.where(si < sj, ahead_i, 1.0 - ahead_i)[differ])
                cs.append(cluster[differ])
        key = np.concatenate(keys)
        self.agg.pairs += cluster_moments(
            np.concatenate(cs), key, np.concatenate(ys), np.ones(len(key)), p * p
        ).reshape(p, p, MOMENT_FIELDS)

    def _luck(
        self,
        games: Games,
        deal: np.ndarray,
        strat: np.ndarray,
        ranks: np.ndarray,
        points: np.ndarray,
        worms: np.ndarray,
        seat_turns: np.ndarray,
        p: int,
    ) -> None:
        """The account's moments and sums (a run that never kept it: nothing to do)."""
        if not self.luck_kept:
            return
        a, n = self.agg, self.n
        field_of = {f: games.numbers([seat_column(i, f) for i in range(n)], np.float64)
                    for f in ACCOUNT_FIELDS}  # fmt: skip
        luck = field_of["luck"]  # nan: a game without the account
        # The win shares' control: the vector where the games stored it (schema 6), else
        # win luck (schema 5), else the worm account's win-weighted luck (stats.win_control).
        won, vec = (games.numbers([seat_column(i, f) for i in range(n)], np.float64)
                    for f in ("winluck", "winvec"))  # fmt: skip
        wluck = stats.win_control(field_of["wluck"], won, vec)
        a.luck_win += stats.seat_rows(deal, strat, points, stats.versus_others(wluck), p)
        a.luck_margin += stats.seat_rows(
            deal, strat, stats.versus_others(worms), stats.versus_others(luck), p
        )
        a.luck_pairs += stats.pair_rows(deal, strat, ranks, wluck, p)
        kept = ~np.isnan(luck)
        if not kept.any():
            return
        flat_s = strat[kept]
        for col, name in enumerate(ACCOUNT_FIELDS):
            a.account[:, col] += np.bincount(flat_s, weights=field_of[name][kept], minlength=p)
        a.account[:, len(ACCOUNT_FIELDS)] += np.bincount(flat_s, minlength=p)
        a.account[:, len(ACCOUNT_FIELDS) + 1] += np.bincount(
            flat_s, weights=seat_turns[kept].astype(float), minlength=p
        )
        bins = np.searchsorted(np.asarray(LUCK_BINS), luck[kept], side="right")
        a.luck_hist += np.bincount(
            flat_s * (len(LUCK_BINS) + 1) + bins, minlength=p * (len(LUCK_BINS) + 1)
        ).reshape(p, -1)

    def _convergence(
        self, cluster: np.ndarray, deal: np.ndarray, strat: np.ndarray, points: np.ndarray, p: int
    ) -> None:
        a = self.agg
        while deal.max() // a.conv_width >= CONVERGENCE_BUCKETS:
            half = a.conv.reshape(CONVERGENCE_BUCKETS // 2, 2, p, MOMENT_FIELDS).sum(axis=1)
            a.conv = np.concatenate([half, np.zeros_like(half)])
            a.conv_width *= 2
        bucket = np.repeat(deal // a.conv_width, self.n)
        a.conv += cluster_moments(
            np.repeat(cluster, self.n),
            bucket * p + strat.ravel(),
            points.ravel(),
            np.ones(len(bucket)),
            CONVERGENCE_BUCKETS * p,
        ).reshape(CONVERGENCE_BUCKETS, p, MOMENT_FIELDS)


def _grow(arr: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``arr`` zero-padded to ``shape`` (strategies are discovered as games are read)."""
    out = np.zeros(shape, dtype=arr.dtype)
    out[tuple(slice(0, k) for k in arr.shape)] = arr
    return out


def _choice_events(
    strat: np.ndarray, ranks: np.ndarray
) -> Iterator[tuple[int, tuple[int, ...], float]]:
    """Plackett-Luce events of many games at once, summed over identical events."""
    games, n = strat.shape
    if games == 0:
        return
    base = int(strat.max()) + 2
    for i in range(n):
        ri = ranks[:, [i]]
        active = (ranks > ri).any(axis=1)
        if not active.any():
            continue
        weight = 1.0 / (ranks == ri).sum(axis=1)
        pool = np.where(ranks >= ri, strat + 1, 0)  # 0 marks "not in the pool"
        pool.sort(axis=1)
        code = np.zeros(games, dtype=np.int64)
        for j in range(n):
            code = code * base + pool[:, j]
        if base ** (n + 1) < 2**62:  # chosen and pool in one integer
            inv, uniq = pd.factorize(code[active] * base + strat[active, i])
            pairs = [divmod(int(u), base)[::-1] for u in uniq]
        else:
            inv, uniq = pd.factorize(pd.MultiIndex.from_arrays([strat[active, i], code[active]]))
            pairs = uniq.tolist()
        sums = np.bincount(inv, weights=weight[active])
        for (chosen, c), w in zip(pairs, sums.tolist(), strict=True):
            members = []
            for _ in range(n):
                c, digit = divmod(c, base)
                if digit:
                    members.append(digit - 1)
            yield int(chosen), tuple(sorted(members)), float(w)


def _second(pair: tuple[int, int]) -> int:
    return pair[1]


Frames = Callable[[list[str], str], Iterable["Games | pd.DataFrame"]]
"""frames(columns, phase): a run's games in batches that hold whole deals (as
:func:`iter_batches` gives them, or as frames); called once per pass."""
Clusters = Callable[[pd.DataFrame], np.ndarray]
"""clusters(frame): each game's cluster id within the frame (the unit of every interval)."""


def aggregate(
    path: str | Path | RunInfo, progress: ProgressCallback | None = None, *, ratings: bool = True
) -> Aggregates:
    """Read a run folder's games and reduce them; a second pass adds rating intervals."""
    info = path if isinstance(path, RunInfo) else open_run(path)
    return aggregate_frames(
        info, lambda cols, phase: iter_batches(info, cols, progress, phase), ratings=ratings
    )


def aggregate_frames(
    info: RunInfo, frames: Frames, *, ratings: bool = True, clusters: Clusters | None = None
) -> Aggregates:
    """Reduce games given in batches (see :data:`Frames`): what :func:`aggregate` does with
    the batches of a run folder, and benchmarks/coverage.py with frames played in memory.

    ``clusters`` is :func:`deal_clusters` unless given: the coverage benchmark passes the
    clusters of earlier versions (per table and deal, per game) to show what they give.
    """
    folder = _Aggregator(info, clusters, keep=ratings)
    for frame in frames(read_columns(info.players, "main"), "reading"):
        folder.add(Games.of(frame))
    agg = folder.agg
    if ratings and _ratable(agg):
        fitted = stats.fit_plackett_luce(agg.choices)
        if folder.kept is not None:
            scored: Iterable[_Scored | None] = folder.kept
        else:
            again = frames(read_columns(info.players, "ratings"), "ratings")
            scored = (folder.scored(Games.of(frame)) for frame in again)
        meat, deals = _rating_meat(np.nan_to_num(fitted.theta), scored)
        fitted.cov = stats.sandwich_cov(fitted, meat, deals)
        agg.ratings = fitted
    return agg


def _ratable(agg: Aggregates) -> bool:
    return len(stats.present(agg.choices)) >= 2 and stats.connected(agg.choices)


def _rating_meat(theta: np.ndarray, batches: Iterable[_Scored | None]) -> tuple[np.ndarray, int]:
    """Sum over deals of the outer products of their summed Plackett-Luce scores."""
    from scipy import sparse

    p = len(theta)
    meat = np.zeros((p, p))
    deals = 0
    for batch in batches:
        if batch is None:
            continue
        strat, ranks, deal = (a.astype(np.int64) for a in batch)
        rows, cols, vals = stats.pl_scores(theta, strat, ranks)
        k = int(deal.max()) + 1
        score = sparse.coo_matrix((vals, (deal[rows], cols)), shape=(k, p)).tocsr()
        meat += (score.T @ score).toarray()
        deals += k
    return meat, deals
