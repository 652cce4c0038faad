"""The games behind a comparison: which are twins in two runs, and their differences.

Part of :mod:`harness.report.comparisons.compare` (its docstring says what a pair is). A run's games
are read once (:func:`appearances`: one row per scored game and seat, names coded in run
A's namespace, after ``--match``); :class:`Twins` merges two runs' rows on what makes two
games twins (same deal, ``game_seed``, seat and opponents) and gives each strategy's
difference between them, paired (clustered by deal, :mod:`harness.report.comparisons.paired`), with
its luck-adjusted twin where both kept the account, or unpaired (:func:`unpaired`) with
the reason. Any two runs of a comparison can be compared: a run with the first, or with
the one before it.
"""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from harness import stats
from harness.errors import plural
from harness.report.comparisons.paired import paired_difference, t_pvalue
from harness.runfolder.games import iter_games
from harness.runfolder.reader import RunInfo, open_run
from harness.runfolder.schema import STATUSES, TURN_CAP, seat_column

MIN_SHARED_DEALS = 2  # a paired interval needs two deals at least
# What a stored game is, beside who played it: equal in two runs means the same game.
OUTCOME_COLUMNS = ("status", "turns")
OUTCOME_SEAT_FIELDS = ("worms", "rank", "busts", "steals", "stolen")


def label(i: int) -> str:
    """Run i's letter: A, B, ... Z, then R27, R28..."""
    return string.ascii_uppercase[i] if i < 26 else f"R{i + 1}"


def entrants_of(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in run.get("entrants") or [] if isinstance(e, dict)]


# -- reading the games of a run for pairing --------------------------------------------------
# The account's columns a comparison reads (docs/luck.md): null where a run kept none.
LUCK_SEAT_FIELDS = ("luck", "wluck", "winluck", "winvec")


def _read_columns(players: int) -> list[str]:
    cols = ["table", "deal", "seating", "game_seed", *OUTCOME_COLUMNS]
    return cols + [
        seat_column(i, f)
        for i in range(players)
        for f in ("strategy",) + OUTCOME_SEAT_FIELDS + LUCK_SEAT_FIELDS
    ]


class _Codes:
    """Integer codes of strings (display names in the baseline's namespace, code
    identities), shared by all runs of a comparison so that codes mean the same in each."""

    def __init__(self) -> None:
        self.code: dict[str, int] = {}

    def of(self, name: str) -> int:
        if name not in self.code:
            self.code[name] = len(self.code)
        return self.code[name]


def appearances(
    info: RunInfo,
    names: _Codes,
    idents: _Codes,
    rename: dict[str, str],
    identity: dict[str, str],
) -> pd.DataFrame:
    """One row per (scored game, seat) of a run: who, where, against whom, and how it went.

    Columns: ``who`` (name code, after ``rename``: another run's NEW as the baseline's
    OLD), ``deal``, ``game_seed``, ``seat``, ``opp0..`` (the name code in each seat, -1 in
    its own), ``occ`` (which repeat of that game, for a seat design that lists an order
    twice), ``points`` (win points, a shared first split), ``worms`` and ``game`` (a hash
    of the whole stored game with the code identities of its seats: equal means the same
    game). Games stopped by the turn cap are not results and are left out.
    """
    n = info.players
    frames = []
    for batch in iter_games(info, _read_columns(n)):
        scored = batch[batch["status"].astype(str) != STATUSES[TURN_CAP]].reset_index(drop=True)
        if not len(scored):
            continue
        who = np.empty((len(scored), n), dtype=np.int32)
        ident = np.empty((len(scored), n), dtype=np.int32)
        for i in range(n):
            col = scored[seat_column(i, "strategy")].astype(str)
            local, uniq = pd.factorize(col)
            lookup = np.array([names.of(rename.get(u, u)) for u in uniq], dtype=np.int32)
            who[:, i] = lookup[local]
            lookup = np.array(
                [idents.of(identity.get(u, f"name:{u}")) for u in uniq], dtype=np.int32
            )
            ident[:, i] = lookup[local]
        outcome = scored[
            list(OUTCOME_COLUMNS)
            + [seat_column(i, f) for i in range(n) for f in OUTCOME_SEAT_FIELDS]
        ].copy()
        outcome["status"] = outcome["status"].astype(str)
        # The entrants' code identities by seat are part of the game: another code in a
        # seat is another game, even where its outcome happens to be the same.
        game = pd.util.hash_pandas_object(outcome, index=False).to_numpy() ^ (
            pd.util.hash_pandas_object(pd.DataFrame(ident), index=False).to_numpy()
            * np.uint64(0x9E3779B97F4A7C15)
        )
        ranks = scored[[seat_column(i, "rank") for i in range(n)]].to_numpy(np.int64)
        worms = scored[[seat_column(i, "worms") for i in range(n)]].to_numpy(np.float64)
        # Each seat's luck controls (nan without the account): the vector, else win luck,
        # else win-weighted luck, where stored (stats.win_control), and luck, each against
        # the others' mean.
        wluck, winluck, winvec, luck = (
            scored[[seat_column(i, f) for i in range(n)]].to_numpy(np.float64)
            for f in ("wluck", "winluck", "winvec", "luck")
        )
        c_win = stats.versus_others(stats.win_control(wluck, winluck, winvec))
        c_margin = stats.versus_others(luck)
        firsts = (ranks == 1).sum(axis=1)
        points = np.where(ranks == 1, 1.0 / np.maximum(firsts, 1)[:, None], 0.0)
        deal = scored["deal"].to_numpy(np.int64)
        gseed = scored["game_seed"].to_numpy(np.int64)
        for i in range(n):
            part = {"who": who[:, i], "deal": deal, "game_seed": gseed}
            part["seat"] = np.full(len(scored), i, dtype=np.int8)
            for j in range(n):
                part[f"opp{j}"] = who[:, j] if j != i else np.full(len(scored), -1, np.int32)
                part[f"rank{j}"] = ranks[:, j].astype(np.int8)
            part.update(points=points[:, i], worms=worms[:, i], game=game)
            part.update(c_win=c_win[:, i], c_margin=c_margin[:, i])
            frames.append(pd.DataFrame(part))
    if not frames:
        ranks_of = [f"rank{j}" for j in range(n)]
        empty = _key_columns(n) + ranks_of + ["points", "worms", "game", "c_win", "c_margin"]
        return pd.DataFrame(columns=empty, dtype=np.int64)
    out = pd.concat(frames, ignore_index=True)
    out["occ"] = out.groupby(_key_columns(n)[:-1], sort=False).cumcount()
    return out


def _key_columns(players: int) -> list[str]:
    """What makes two games twins (see the module docstring)."""
    return ["who", "deal", "game_seed", "seat"] + [f"opp{j}" for j in range(players)] + ["occ"]


def _identities(run: dict[str, Any]) -> dict[str, str]:
    """Each entrant's code identity (class, parameters, code digest) by display name."""
    out = {}
    for e in entrants_of(run):
        name = e.get("name")
        if isinstance(name, str):
            fields = {k: e.get(k) for k in ("class", "params", "code")}
            out[name] = json.dumps(fields, sort_keys=True, default=str)
    return out


def pairing_problem(base: dict[str, Any], other: dict[str, Any]) -> str | None:
    """Why two runs' games cannot be twins (one line), or None if they may be."""
    for key, what in (("players", "player counts"), ("seed", "seeds"), ("dice", "dice modes")):
        a, b = base.get(key), other.get(key)
        if str(a) != str(b):
            return f"different {what} ({a} and {b})"
    return None


class Twins:
    """The paired (or unpaired) difference of a strategy between run k and its base,
    ``bases[k]`` (the first run, or the one before k): every figure is run k minus its
    base. Names are coded in run A's namespace (``match``: A's OLD for another run's NEW)."""

    def __init__(
        self,
        summaries: list[dict[str, Any]],
        infos: Sequence[RunInfo] | None,
        match: dict[str, str],
        paired: bool,
        bases: Sequence[int] | None = None,
    ) -> None:
        self.summaries = summaries
        self.bases = list(bases) if bases is not None else [0] * len(summaries)
        self.infos = list(infos) if infos is not None else None
        self.match = match
        self.paired = paired
        self.names = _Codes()
        self.idents = _Codes()
        self.frames: dict[int, pd.DataFrame] = {}
        self.problems: dict[int, str | None] = {}
        self.merged: dict[int, pd.DataFrame] = {}

    def _info(self, k: int) -> RunInfo:
        if self.infos is not None:
            return self.infos[k]
        return open_run(self.summaries[k]["run"]["path"])

    def _frame(self, k: int) -> pd.DataFrame:
        if k not in self.frames:
            info = self._info(k)
            rename = {new: old for old, new in self.match.items()} if k else {}
            self.frames[k] = appearances(
                info, self.names, self.idents, rename, _identities(info.config)
            )
        return self.frames[k]

    def problem(self, k: int) -> str | None:
        """Why run k's games are not paired with its base's at all, or None."""
        if k not in self.problems:
            if not self.paired:
                self.problems[k] = "pairing turned off"
            else:
                base, other = (self.summaries[i]["run"] for i in (self.bases[k], k))
                self.problems[k] = pairing_problem(base, other)
        return self.problems[k]

    def pairs(self, k: int, name: str) -> pd.DataFrame:
        """The twin rows of ``name``'s games in run k's base (``_a``) and run k (``_b``)."""
        if k not in self.merged:
            base, other = self._frame(self.bases[k]), self._frame(k)
            keys = _key_columns(int(self.summaries[0]["run"]["players"]))
            self.merged[k] = base.merge(other, on=keys, suffixes=("_a", "_b"))
        merged = self.merged[k]
        return merged[merged["who"] == self.names.of(name)]

    def diff(
        self, k: int, name: str, base_row: dict[str, Any], row: dict[str, Any]
    ) -> dict[str, Any]:
        problem = self.problem(k)
        if problem is None:
            pairs = self.pairs(k, name)
            deals = int(pairs["deal"].nunique())
            if deals >= MIN_SHARED_DEALS:
                return self._paired(k, name, pairs, deals)
            problem = (
                "no game shared (same deal, dice, seat and opponents)"
                if not deals
                else f"only {deals} shared deal"
            )
        return unpaired(self.summaries[self.bases[k]], self.summaries[k], base_row, row, problem)

    def _paired(self, k: int, name: str, pairs: pd.DataFrame, deals: int) -> dict[str, Any]:
        identical = bool((pairs["game_a"].to_numpy() == pairs["game_b"].to_numpy()).all())
        code = self.names.of(name)
        base = self.bases[k]
        games = [int((self._frame(i)["who"] == code).sum()) for i in (base, k)]
        out: dict[str, Any] = {
            "paired": True,
            "shared_deals": deals,
            "paired_games": len(pairs),
            "games": games,
            "identical": identical,
            "scale": "share",
            "note": None,
        }
        if len(pairs) < max(games):
            out["note"] = (
                f"paired on {plural(len(pairs), 'game')} ({label(base)} has {games[0]:,}, "
                f"{label(k)} {games[1]:,}): the others have no twin (opponents only one run "
                "has, or unfinished in one run)"
            )
        deal = pairs["deal"].to_numpy()
        for key, control in (("points", "c_win"), ("worms", "c_margin")):
            cell_key = "win_share" if key == "points" else key
            if identical:  # exactly 0: no interval, no test
                out[cell_key] = {"diff": 0.0, "low": 0.0, "high": 0.0, "p": None}
                out[cell_key].update(p_holm=None, significant=False)
                continue
            a, b = pairs[f"{key}_a"].to_numpy(), pairs[f"{key}_b"].to_numpy()
            found = paired_difference(deal, a, b)
            out[cell_key] = found.cell()
            c = pairs[f"{control}_b"].to_numpy(float) - pairs[f"{control}_a"].to_numpy(float)
            adjusted = luck_adjusted_difference(deal, b - a, c)
            if adjusted is not None:
                out[cell_key]["luck_adjusted"] = adjusted
        return out

    def pair_diff(
        self, k: int, a: str, b: str, base_cell: dict[str, Any], cell: dict[str, Any]
    ) -> dict[str, Any]:
        """Run k's change in "a ahead of b" from its base: paired on the games the two met
        in both runs with the same deal, dice, seats and opponents, else unpaired."""
        problem = self.problem(k)
        if problem is None:
            deal, before, after, same = self._meetings(k, a, b)
            deals = len(np.unique(deal))
            if deals >= MIN_SHARED_DEALS:
                out: dict[str, Any] = {
                    "paired": True,
                    "shared_deals": deals,
                    "paired_games": len(deal),
                    "identical": same,
                    "note": None,
                }
                if same:  # exactly 0: no interval, no test
                    return {**out, "diff": 0.0, "low": 0.0, "high": 0.0, "p": None}
                return {**out, **paired_difference(deal, before, after).cell()}
            problem = (
                "no game shared (same deal, dice, seats and opponents)"
                if not deals
                else f"only {deals} shared deal"
            )
        d, se, p = stats.diff_test(
            _f(base_cell["share"]), _f(base_cell["se"]), _f(cell["share"]), _f(cell["se"])
        )
        return {
            "paired": False,
            "shared_deals": 0,
            "paired_games": 0,
            "identical": False,
            "note": f"unpaired: {problem}",
            "diff": d,
            "low": d - stats.Z95 * se,
            "high": d + stats.Z95 * se,
            "p": p,
        }

    def _meetings(self, k: int, a: str, b: str) -> tuple[np.ndarray, ...]:
        """The twin games of a and b (a's seat rows whose opponents include b): their
        deals, "a ahead of b" in run k's base and in run k (1, a half for a tie, 0), and
        whether every one is the same game in both."""
        pairs = self.pairs(k, a)
        n = int(self.summaries[0]["run"]["players"])
        opponents = pairs[[f"opp{j}" for j in range(n)]].to_numpy()
        is_b = opponents == self.names.of(b)
        met = is_b.any(axis=1)
        pairs, seat_b = pairs[met], is_b[met].argmax(axis=1)
        rows = np.arange(len(pairs))
        seat_a = pairs["seat"].to_numpy(np.int64)
        ahead = []
        for side in ("a", "b"):
            ranks = pairs[[f"rank{j}_{side}" for j in range(n)]].to_numpy(np.int64)
            mine, theirs = ranks[rows, seat_a], ranks[rows, seat_b]
            ahead.append(np.where(mine < theirs, 1.0, np.where(mine == theirs, 0.5, 0.0)))
        same = bool((pairs["game_a"].to_numpy() == pairs["game_b"].to_numpy()).all())
        return pairs["deal"].to_numpy(), ahead[0], ahead[1], same

    def notes(self) -> list[str]:
        """One line per run that is not paired with its base at all, and why."""
        out = []
        for k in range(1, len(self.summaries)):
            problem = self.problem(k)
            if problem is not None:
                base = label(self.bases[k])
                out.append(f"run {label(k)} is compared unpaired with {base}: {problem}")
        return out


def luck_adjusted_difference(
    deal: np.ndarray, diff: np.ndarray, control: np.ndarray
) -> dict[str, Any] | None:
    """The paired difference with the dice's luck taken out (docs/luck.md): each pair's
    difference minus b x its control (the twins' luck difference, b cross-fitted on the
    other half of the deals: the same expectation, less noise); None where no pair kept
    the account in both runs. ``gain``: how many times the pairs the raw difference needs
    for this one's precision."""
    known = ~np.isnan(control)
    if not known.any():
        return None
    moments = stats.ControlMoments.of(diff, control, deal=deal)
    adjusted = moments.adjusted()
    low, high = adjusted.interval()
    return {
        "diff": adjusted.estimate,
        "low": low,
        "high": high,
        "p": t_pvalue(adjusted.estimate, adjusted.se, adjusted.deals - 1),
        "gain": moments.gain(),
        "accounted": float(known.mean()),
    }


def unpaired(
    base: dict[str, Any],
    other: dict[str, Any],
    base_row: dict[str, Any],
    row: dict[str, Any],
    why: str,
) -> dict[str, Any]:
    """Independent-sample differences from the summaries; shares relative to the fair share
    at different player counts, and no worms test there."""
    na, nb = int(base["run"]["players"]), int(other["run"]["players"])
    out: dict[str, Any] = {
        "paired": False,
        "shared_deals": 0,
        "paired_games": 0,
        "games": [base_row.get("games"), row.get("games")],
        "identical": False,
        "scale": "share" if na == nb else "fair_share",
        "note": f"unpaired: {why}",
    }
    scale_a, scale_b = (1.0, 1.0) if na == nb else (float(na), float(nb))
    d, se, p = stats.diff_test(
        _f(base_row["win_share"]) * scale_a,
        _f(base_row["win_se"]) * scale_a,
        _f(row["win_share"]) * scale_b,
        _f(row["win_se"]) * scale_b,
    )
    out["win_share"] = {"diff": d, "low": d - stats.Z95 * se, "high": d + stats.Z95 * se, "p": p}
    if na != nb:
        out["note"] += f"; win shares relative to the fair share (1/{na} and 1/{nb}): 1.0 is fair"
        out["worms"] = {
            "diff": None,
            "low": None,
            "high": None,
            "p": None,
            "refused": f"mean worms are not comparable between {na} and {nb} players",
        }
        return out
    d, se, p = stats.diff_test(
        _f(base_row["worms"]), _f(base_row["worms_se"]), _f(row["worms"]), _f(row["worms_se"])
    )
    out["worms"] = {"diff": d, "low": d - stats.Z95 * se, "high": d + stats.Z95 * se, "p": p}
    return out


def _f(value: float | None) -> float:
    return float("nan") if value is None else float(value)
