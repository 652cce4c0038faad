"""What a stored luck and skill account guarantees by construction, checked on a chunk's
columns (:func:`account_problem`): stored rows that break one were not written by the
account, whatever their digest says.

The account (harness.analysis.account, docs/luck.md) sums over a seat's turns: ``par``
(each turn's value before its first roll), ``luck`` (each roll's best value minus its
expected value), ``wluck`` (each turn's luck times the win model's slope k at its start)
and three regrets (the best option's value minus the chosen one's, per decision), with
the counts of rolls and of decisions that offered a choice. The turn values all lie
between the bust value (minus the worms of a top tile: >= -4) and the best claim (a
steal of a 4-worm tile: 4 P / (P - 1) worms), so by construction, per game and seat:

* **presence**: a chunk keeps the whole account in every row or in none (the table's
  choice, run.json ``tables[].luck``); a stored value is finite;
* **counts**: none negative; picks, stops and claims (each follows a roll) <= rolls;
* **regrets** >= 0 (a best minus a value it bounds, summed), and exactly 0 where their
  count is 0 (a forced move's regret is x - x); no roll: par, luck and wluck exactly 0;
* **bounds**: every term lies within the span of the values (:func:`span`): luck and
  each regret within span x its count, par within [-4, 4 P / (P - 1)] x rolls, wluck
  within :func:`slope_bound` x span x rolls;
* **the swing**: telescoping gives par + luck - regret = the sum of the seat's own
  turns' swings, S. A grill tile's swing is its worms, a steal's its worms x P / (P - 1),
  a bust's minus the top tile's worms; so S - worms = (St / (P - 1) + Lo), St the worms
  the seat stole and Lo the worms stolen from it, each a whole number of 1 to 4 worms a
  steal: (P - 1) (S - worms) is a whole number between steals + (P - 1) stolen and 4 x
  that. With two players the seats' figures are equal, which is the margin identity:
  worms(0) - worms(1) = (par + luck - regret)(0) - (par + luck - regret)(1).
* **the win account** (``luck: win``): ``winluck``, the luck of the seat's own rolls in
  its chance to win, and (schema 6) ``winvec``, the vector: every roll's luck in the
  seat's chance, whoever rolled. A game keeps each for every seat or none; a stored value
  is finite, exactly 0 without a roll, within 1 a roll (a difference of two chances):
  winluck of the seat's rolls, winvec of the game's. winvec is null, NaN (no evaluator)
  or a number exactly where winluck is, in a part that has its column; a roll's parts sum
  to 0 over the seats, so a game's winvec does, and at two players winvec(0) =
  winluck(0) - winluck(1), both to :data:`VECTOR_SLACK` a roll.

Exact checks are exact (a regret of -1e-300 is refused). The sums are float64, so the
swing identity and the bounds hold to rounding only, and :func:`tolerance` bounds that
rounding from above for each seat of each game (see its docstring): about 3e-11 for a
game of a few dozen turns, growing with the square of the terms summed, so that no
account the engines store is ever refused (a refusal would send ``--repair`` playing a
chunk that comes back the same). Pure numpy over a chunk's columns: about 0.03 CPU-s per
100,000 games, and about as much again to read the columns (benchmarks/account_check.py).
"""

from __future__ import annotations

from math import pi, sqrt
from typing import Any

import numpy as np
import pyarrow as pa

from harness.errors import plural
from harness.game.rules import TILES, worms
from harness.runfolder.schema import ACCOUNT_FIELDS, WIN_ACCOUNT_FIELDS, seat_column

#: The spread of the win model behind the win-weighted luck: sigma^2 per worm on the
#: grill: harness.analysis.account's WIN_SPREAD (which this room cannot import; a test
#: holds the two equal).
WIN_SPREAD = 2.5
#: The most worms a tile holds (R1): a bust costs at most this, a steal takes at most it.
MOST_WORMS = max(worms(t) for t in TILES)
_LEAST_WORMS = min(worms(t) for t in TILES)
#: Unit roundoff of float64 (2^-53).
UNIT = 2.0**-53
#: The seat columns the check reads besides the account's.
BOARD_FIELDS = ("worms", "steals", "stolen")
_REGRETS = (("regret_pick", "picks"), ("regret_stop", "stops"), ("regret_claim", "claims"))
_FLOATS = ("par", "luck", "wluck", "regret_pick", "regret_stop", "regret_claim")
_COUNTS = ("rolls", "picks", "stops", "claims")
_WHERE = "an identity of the luck account, docs/luck.md"
#: The rounding a stored vector may hold, per roll of its game (a game without rolls: 1):
#: each roll's parts are differences of computed chances whose own rounding (the win
#: model's) is not bounded here. Measured sums are about 1e-14 a game; a forged value
#: worth forging moves them by far more than this, and a refusal would send ``--repair``
#: playing a chunk that comes back the same.
VECTOR_SLACK = 1e-9


def identity_columns(players: int) -> list[str]:
    """The columns :func:`account_problem` reads for a chunk of ``players`` seats."""
    fields = (*ACCOUNT_FIELDS, *WIN_ACCOUNT_FIELDS, *BOARD_FIELDS)
    return [seat_column(i, f) for i in range(players) for f in fields]


def best_swing(players: int) -> float:
    """The most a turn can be worth: a steal of a tile of :data:`MOST_WORMS`."""
    return MOST_WORMS * players / (players - 1)


def span(players: int) -> float:
    """The width of the turn values' range [-MOST_WORMS, best_swing]: no luck of a roll,
    regret of a decision or difference of two values exceeds it."""
    return MOST_WORMS + best_swing(players)


def slope_bound(players: int) -> float:
    """The largest win-model slope k: sum over the others of phi(z) / sigma <= (P - 1)
    phi(0) / sigma, sigma >= sqrt(WIN_SPREAD x 1 worm) (a grill with a tile on it)."""
    return (players - 1) / sqrt(2.0 * pi) / sqrt(WIN_SPREAD * _LEAST_WORMS)


def tolerance(terms: np.ndarray, players: int) -> np.ndarray:
    """The float rounding a seat's stored sums can hold, from above, per seat and game.

    ``terms``: the terms behind a seat's sums, at most 2 rolls + picks + stops + claims
    (a par per turn, a luck per roll, a regret per decision that offered a choice: a
    forced one adds an exact 0). Each term is one rounded subtraction of values within
    :func:`span` (error <= u x span each), and each running sum of n such terms adds at
    most u x (its partial sums) <= u x n^2 span / 2 (recursive summation, u = 2^-53);
    comparing five sums adds five more roundings of at most n x span. So 2 u x span x
    (n + 3)^2 bounds the lot with room to spare; times P - 1, the factor the swing
    identity multiplies by. For n = 100: 2.8e-11 at two players. (The engines also
    agree bit for bit: tests/native/test_native_account.py.)
    """
    n = np.asarray(terms, dtype=np.float64)
    return 2.0 * UNIT * span(players) * (n + 3.0) ** 2 * (players - 1)


def account_problem(
    table: Any, players: int, kept: bool | None = None, *, chunk: bool = True
) -> str | None:
    """The first identity the chunk's account breaks, as "row R (deal D, seat order K),
    seat S: what (the identity)", or None when it keeps every one (or keeps no account).

    ``table`` is a pyarrow Table with :func:`identity_columns`, ``deal`` and ``seating``
    (a column it lacks, from a part written before the account existed, counts as null);
    ``kept``: whether the chunk's table keeps the account (run.json ``tables[].luck``;
    None: unknown, then only "every row or none"). ``chunk=False``: the rows are not one
    table's chunk (a part of a folder assembled by hand): each game keeps its whole
    account or none, whatever the other rows do.
    """
    rows = table.num_rows
    names = set(table.column_names)
    # (seats, rows) arrays, seen as (rows, seats): each seat's column is contiguous.
    present = np.zeros((players, rows), dtype=bool).T
    absent = np.zeros((players, rows), dtype=bool).T
    values: dict[str, np.ndarray] = {}
    for field in (*ACCOUNT_FIELDS, *BOARD_FIELDS):
        out = np.full((players, rows), np.nan)
        for i in range(players):
            name = seat_column(i, field)
            if name not in names:
                absent[:, i] |= field in ACCOUNT_FIELDS
                continue
            column = table.column(name)
            nulls = column.null_count
            if nulls == rows:  # nothing stored (whatever type a writer gave the nulls)
                absent[:, i] |= field in ACCOUNT_FIELDS
                continue
            kind = column.type
            if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
                return f"{name} holds {kind}, not numbers (harness/runfolder/schema.py; {_WHERE})"
            out[i] = column.to_numpy(zero_copy_only=False)
            if field not in ACCOUNT_FIELDS:
                continue
            if nulls == 0:
                present[:, i] = True
            else:
                null = column.is_null().to_numpy(zero_copy_only=False)
                present[:, i] |= ~null
                absent[:, i] |= null
        values[field] = out.T
    for field in WIN_ACCOUNT_FIELDS:
        stored = _win_column(table, field, players, names)
        if isinstance(stored, str):
            return stored
        values[field], values[f"{field}_null"], values[f"{field}_kept"] = stored
    if not rows:
        return None
    seat_of = _Where(table, players)
    # The win account is kept beside the worm account (luck: win), never alone: a win
    # column stored in a game without the account would be read as its win shares'
    # control with none of the checks below, which need the account's rolls.
    for field in WIN_ACCOUNT_FIELDS:
        found = seat_of.first(~values[f"{field}_null"] & ~present)
        if found is not None:
            return seat_of(
                *found,
                f"{field} is stored where the game keeps no luck account (the win "
                "account is kept beside it, luck: win)",
            )
    # Presence: every field of every seat of every row, or none at all.
    found = seat_of.first(present & absent)
    if found is not None:
        row, seat = found
        missing = [f for f in ACCOUNT_FIELDS if np.isnan(values[f][row, seat])]
        return seat_of(
            row,
            seat,
            f"{', '.join(missing)} null where the rest of its account is stored "
            "(a game keeps its whole account or none)",
        )
    has = present.any()
    if not chunk:
        return _values_problem(values, players, seat_of, present[:, 0]) if has else None
    found = seat_of.first(absent) if has else None
    if found is not None:
        return seat_of(
            found[0],
            None,
            "no account where the chunk's other games keep one (a table "
            "keeps the account in every game or in none)",
        )
    if kept is not None and has != bool(kept):  # kept "win": the worm account and winluck
        said = "keeps" if kept else "does not keep"
        held = "none" if kept else "one"
        return f"run.json says its table {said} the account, but the chunk holds {held} ({_WHERE})"
    if not has:
        return None
    return _values_problem(values, players, seat_of)


def _win_column(
    table: Any, field: str, players: int, names: set[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | str:
    """A stored win account column (``winluck`` since schema 5, ``winvec`` since 6), each
    (rows, seats): its values (nan where null), where it is null, and where the part
    stores its column at all (an older part lacks it: every value null). Optional beside
    the worm account, so its presence is checked per game, not per chunk. A column of
    anything but numbers: the finding, as a string."""
    rows = table.num_rows
    values = np.full((players, rows), np.nan)
    null = np.ones((players, rows), dtype=bool)
    kept = np.zeros((players, rows), dtype=bool)
    for i in range(players):
        name = seat_column(i, field)
        if name not in names:
            continue
        kept[i] = True
        column = table.column(name)
        if column.null_count == rows:  # nothing stored (whatever type a writer gave the nulls)
            continue
        kind = column.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            return f"{name} holds {kind}, not numbers (harness/runfolder/schema.py; {_WHERE})"
        values[i] = column.to_numpy(zero_copy_only=False)
        null[i] = column.is_null().to_numpy(zero_copy_only=False)
    return values.T, null.T, kept.T


def _win_luck_problem(v: dict[str, np.ndarray], tol: np.ndarray, at: _Where) -> str | None:
    """Stored win luck: in a game, every seat's or none; finite; exactly 0 without a roll;
    within 1 a roll (each roll's luck is a difference of two chances to win, in [0, 1])."""
    won, rolls = v["winluck"], v["rolls"]
    stored = ~np.isnan(won)
    some = stored.any(axis=1, keepdims=True) & ~stored
    checks = [
        (some, " (null) where the game's other seats store theirs: a game keeps it for all"),
        (stored & ~np.isfinite(won), ": a stored account is finite"),
        (stored & (rolls == 0) & (won != 0), " without a roll: win luck is exactly 0"),
        (stored & (np.abs(won) > rolls * (1 + 1e-9) + tol), " beyond 1 a roll (chances)"),
    ]
    for bad, why in checks:
        found = at.first(bad)
        if found is not None:
            row, seat = found
            return at(row, seat, f"winluck is {_num(won[row, seat])}{why}")
    return None


def _win_vector_problem(v: dict[str, np.ndarray], at: _Where) -> str | None:
    """The stored vector: kept exactly as the win luck is (null where it is null, NaN
    where it is NaN, a number where it is one) wherever the part has the column; then
    per game, where stored: finite; exactly 0 without a roll in the game; within 1 a roll
    of the game, every seat's (each roll's part is a difference of two chances); the
    seats' parts of each roll sum to 0; at 2 players winluck_0 - winluck_1."""
    vec, won, rolls = v["winvec"], v["winluck"], v["rolls"]
    state_vec = _state(vec, v["winvec_null"])
    state_won = _state(won, v["winluck_null"])
    found = at.first(v["winvec_kept"] & (state_vec != state_won))
    if found is not None:
        row, seat = found
        return at(
            row,
            seat,
            f"winvec is {_shown(vec, state_vec, found)} where winluck is "
            f"{_shown(won, state_won, found)}: the vector is stored exactly where the win luck is",
        )
    held = state_vec != _NULL
    found = at.first(held.any(axis=1, keepdims=True) & ~held)
    if found is not None:
        row, seat = found
        return at(
            row,
            seat,
            "winvec is null where the game's other seats store theirs: a game keeps it for all",
        )
    total = rolls.sum(axis=1, keepdims=True)  # every seat's rolls: each adds to every seat
    slack = VECTOR_SLACK * (total + 1)
    stored = ~np.isnan(vec)
    checks = [
        (stored & ~np.isfinite(vec), ": a stored account is finite"),
        (stored & (total == 0) & (vec != 0), " in a game without a roll: the vector is exactly 0"),
        (
            stored & (np.abs(vec) > total * (1 + 1e-9) + slack),
            " beyond 1 a roll of the game (every seat's rolls: chances)",
        ),
    ]
    for bad, why in checks:
        found = at.first(bad)
        if found is not None:
            row, seat = found
            total_rolls = int(total[row, 0])
            return at(row, seat, f"winvec is {_num(vec[row, seat])} over {total_rolls} rolls{why}")
    return _vector_sum_problem(vec, won, slack, at)


def _vector_sum_problem(
    vec: np.ndarray, won: np.ndarray, slack: np.ndarray, at: _Where
) -> str | None:
    """A game's vector sums to 0 over its seats; at 2 players seat 0's is winluck_0 -
    winluck_1 (the other seat's rolls are its own luck's negative)."""
    whole = ~np.isnan(vec).any(axis=1, keepdims=True)
    total = np.where(whole, vec, 0.0).sum(axis=1, keepdims=True)
    found = at.first(whole & ~(np.abs(total) <= slack))
    if found is not None:
        row = found[0]
        return at(
            row,
            None,
            f"winvec sums to {_num(total[row, 0])} over the seats: the seats' parts of "
            "each roll sum to 0",
        )
    if vec.shape[1] != 2:
        return None
    off = vec[:, :1] - (won[:, :1] - won[:, 1:])
    found = at.first(whole & ~(np.abs(off) <= slack))
    if found is None:
        return None
    row = found[0]
    return at(
        row,
        0,
        f"winvec is {_num(vec[row, 0])}, but winluck of seat 0 - seat 1 is "
        f"{_num(won[row, 0] - won[row, 1])}: at 2 players the vector is the difference",
    )


_NULL, _NAN, _NUMBER = 0, 1, 2  # how a win account value is stored


def _state(values: np.ndarray, null: np.ndarray) -> np.ndarray:
    """Per value: null, NaN (a native batch without an evaluator) or a number."""
    return np.where(null, _NULL, np.where(np.isnan(values), _NAN, _NUMBER))


def _shown(values: np.ndarray, state: np.ndarray, at: tuple[int, int]) -> str:
    """A value as a finding names it: "null", "nan" or the number."""
    kind = state[at]
    return "null" if kind == _NULL else "nan" if kind == _NAN else _num(values[at])


@np.errstate(all="ignore")  # an inf or a nan edited in is a finding, not a warning
def _values_problem(
    v: dict[str, np.ndarray], players: int, at: _Where, rows: np.ndarray | None = None
) -> str | None:
    """The identities of stored accounts, in order (``rows``: the rows that keep one;
    None: every row). Exact but for the bounds and the swing (:func:`tolerance`)."""
    if rows is not None and not rows.all():
        v = {k: a[rows] for k, a in v.items()}
        at = at.only(rows)
    rolls = v["rolls"]
    checks: list[tuple[str, np.ndarray, str]] = []
    checks += [(f, ~np.isfinite(v[f]), ": a stored account is finite") for f in _FLOATS]
    checks += [(f, np.isnan(v[f]), " (null) beside an account") for f in BOARD_FIELDS]
    checks += [(f, v[f] < 0, ": a count is never negative") for f in (*_COUNTS, *BOARD_FIELDS)]
    checks += [
        (f, v[f] > rolls, ", more than its rolls: every such decision follows a roll")
        for f in ("picks", "stops", "claims")
    ]
    for regret, count in _REGRETS:
        checks.append((regret, v[regret] < 0, ": a regret is never negative"))
        checks.append(
            (
                regret,
                (v[count] == 0) & (v[regret] != 0),
                f" with {count} 0: a move without a choice costs exactly 0",
            )
        )
    checks += [
        (f, (rolls == 0) & (v[f] != 0), " without a roll: par, luck and wluck are exactly 0")
        for f in ("par", "luck", "wluck")
    ]
    for field, bad, why in checks:
        found = at.first(bad)
        if found is not None:
            row, seat = found
            return at(row, seat, f"{field} is {_num(v[field][row, seat])}{why}")
    tol = tolerance(2 * rolls + v["picks"] + v["stops"] + v["claims"], players)
    return (
        _win_luck_problem(v, tol / span(players), at)
        or _win_vector_problem(v, at)
        or _bounds_problem(v, players, tol, at)
        or _swing_problem(v, players, tol, at)
    )


def _bounds_problem(
    v: dict[str, np.ndarray], players: int, tol: np.ndarray, at: _Where
) -> str | None:
    """Every term within the values' span: the sums within span x their count."""
    wide, rolls, top = span(players), v["rolls"], best_swing(players)
    slope = slope_bound(players) * wide
    limits = [
        ("luck", np.abs(v["luck"]), wide * rolls, f"{wide:g} worms a roll"),
        ("wluck", np.abs(v["wluck"]), slope * rolls, f"{slope:.3g} a roll (the steepest slope)"),
        ("par", v["par"], top * rolls, f"{top:g} worms a turn"),
        ("par", -v["par"], MOST_WORMS * rolls, f"-{MOST_WORMS} worms a turn"),
    ]
    limits += [(r, v[r], wide * v[c], f"{wide:g} worms a decision") for r, c in _REGRETS]
    for field, value, limit, what in limits:
        # (a turn value is itself a rounded mean, so it may pass its range by a few
        # hundred u: the relative slack covers that; the bounds are never near in play)
        found = at.first(value > limit * (1 + 1e-9) + tol)
        if found is not None:
            row, seat = found
            return at(
                row,
                seat,
                f"{field} is {_num(v[field][row, seat])} over "
                f"{int(rolls[row, seat])} rolls: beyond {what}",
            )
    return None


def _swing_problem(
    v: dict[str, np.ndarray], players: int, tol: np.ndarray, at: _Where
) -> str | None:
    """par + luck - regret = the seat's turns' swings: its worms plus whole stolen worms."""
    p1 = players - 1
    worms_ = v["worms"]
    swing = v["par"] + v["luck"] - v["regret_pick"] - v["regret_stop"] - v["regret_claim"]
    if players == 2:
        margin = worms_[:, 0] - worms_[:, 1]
        off = (swing[:, 0] - swing[:, 1]) - margin
        found = at.first((~(np.abs(off) <= tol.sum(axis=1)))[:, None])
        if found is not None:
            row = found[0]
            return at(
                row,
                None,
                f"the margin does not telescope: worms {int(worms_[row, 0])} - "
                f"{int(worms_[row, 1])} = {int(margin[row])}, but (par + luck - regret) of "
                f"seat 0 - seat 1 = {_num(swing[row, 0] - swing[row, 1])}",
            )
    stolen = p1 * (swing - worms_)  # St + (P - 1) Lo: whole worms
    whole = np.rint(stolen)
    least = v["steals"] + p1 * v["stolen"]
    bad = ~(np.abs(stolen - whole) <= tol) | (whole < least * _LEAST_WORMS)
    found = at.first(bad | (whole > least * MOST_WORMS))
    if found is None:
        return None
    row, seat = found
    low = worms_[row, seat] + least[row, seat] * _LEAST_WORMS / p1
    high = worms_[row, seat] + least[row, seat] * MOST_WORMS / p1
    step = "" if players == 2 else f" in steps of 1/{p1}"
    return at(
        row,
        seat,
        f"par + luck - regret = {_num(swing[row, seat])}, but its turns' swings "
        f"add up to its {int(worms_[row, seat])} worms plus the worms of its "
        f"{plural(int(v['steals'][row, seat]), 'steal')} made and {int(v['stolen'][row, seat])} "
        f"suffered: {_num(low)} to {_num(high)}{step}",
    )


def _num(x: float) -> str:
    return f"{float(x):.12g}"


class _Where:
    """Names a row of the chunk: its number, deal and seat order, for the one line."""

    def __init__(self, table: Any, players: int, rows: np.ndarray | None = None) -> None:
        self.table = table
        self.players = players
        self.rows = rows  # the table's row of each row looked at (None: the same)

    def only(self, keep: np.ndarray) -> _Where:
        """The same, for the rows where ``keep`` holds."""
        return _Where(self.table, self.players, np.flatnonzero(keep))

    @staticmethod
    def first(bad: np.ndarray) -> tuple[int, int] | None:
        """The first (row, seat) where ``bad`` holds, rows first; None where it never does."""
        if not bad.any():
            return None
        row = int(np.argmax(bad.any(axis=1)))
        return row, int(np.argmax(bad[row]))

    def __call__(self, row: int, seat: int | None, what: str) -> str:
        if self.rows is not None:
            row = int(self.rows[row])
        names = self.table.column_names
        at = []
        for name, label in (("deal", "deal"), ("seating", "seat order")):
            if name in names:
                at.append(f"{label} {self.table.column(name)[row].as_py()}")
        where = f"row {row}" + (f" ({', '.join(at)})" if at else "")
        who = "" if seat is None else f", seat {seat}"
        return f"{where}{who}: {what} ({_WHERE})"
