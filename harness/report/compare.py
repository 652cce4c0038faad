"""Comparing runs: what they share, what differs, and whether the differences matter.

The first run is the baseline; every other run is compared with it on the strategies
all runs share (win share and mean worms) and on the head-to-head pairs all runs share.
A strategy of the baseline is matched in another run by its display name, or by
``--match OLD=NEW`` (an edited bot under a new name).

**Paired where the games are twins.** Runs with the same seed and dice mode play deal d
on the same dice at every table (duplicate dice: one stream per deal; independent dice:
one per seat order, keyed by ``game_seed``). A game of the strategy in the baseline and
one in the other run are a pair when they have the same deal, the same ``game_seed``
(so the same dice), the strategy in the same seat and the same opponents in every other
seat. Opponents are matched by display name (after ``--match``), not by code: an
opponent whose code changed still plays the same dice from the same seat, so the pair
stays a pair; its change is listed under "What differs", and its games are not identical
any more. The paired differences are clustered by deal (:mod:`harness.report.paired`),
which is far narrower than the unpaired interval for a small change. Pairs cover what
both runs played: games against an entrant only one run has are left out, and each row
says how many games and deals it is paired on.

**Identical games.** Where every pair is the same game (both runs reused the same
chunks, or played the same code on the same dice), the difference is exactly 0: shown
as identical, not as an interval, and left out of the Holm family.

**Otherwise unpaired.** Runs with other seeds, dice modes or player counts, or rows
with fewer than two shared deals, are compared as independent samples (standard errors
in quadrature), and the row says so and why. Shares at different player counts are
compared relative to the fair share 1/n (a share of 2/n is 2.0), and mean worms not at
all (tiles split among more players). p-values are Holm-adjusted over the whole
comparison, since one table holds many tests.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from harness import stats
from harness.jsonsafe import json_safe
from harness.plugins import FILE_MODULE
from harness.report.order import config_order
from harness.report.paired import paired_difference, t_pvalue
from harness.runfolder.games import iter_games
from harness.runfolder.reader import ReportError, RunInfo, open_run
from harness.runfolder.schema import STATUSES, TURN_CAP, seat_column

ALPHA = 0.05
MIN_SHARED_DEALS = 2  # a paired interval needs two deals at least
MAX_MATCHES = 100  # --match options in one comparison
# What run.json records of an entrant's identity, and how a difference in it is said.
IDENTITY_FIELDS = (
    ("ref", "reference differs"),
    ("class", "class differs"),
    ("params", "parameters differ"),
    ("code", "code digest differs"),
)
# What a stored game is, beside who played it: equal in two runs means the same game.
OUTCOME_COLUMNS = ("status", "turns")
OUTCOME_SEAT_FIELDS = ("worms", "rank", "busts", "steals", "stolen")


class CompareError(ReportError):
    """A comparison that cannot be made as asked (a bad --match, say): one line."""


def _label(i: int) -> str:
    return string.ascii_uppercase[i] if i < 26 else f"R{i + 1}"


# -- matching strategies between runs ----------------------------------------------------
def parse_matches(items: Iterable[str]) -> dict[str, str]:
    """``["old=new", ...]`` as a mapping; one-line CompareError for a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        if len(out) >= MAX_MATCHES:
            raise CompareError(f"--match: at most {MAX_MATCHES} of them")
        old, sep, new = str(item).partition("=")
        old, new = old.strip(), new.strip()
        if not sep or not old or not new:
            raise CompareError(f"--match {item[:80]!r}: write OLD=NEW (display names)")
        if old in out and out[old] != new:
            raise CompareError(f"--match: {old!r} is matched twice ({out[old]!r}, {new!r})")
        out[old] = new
    if len(set(out.values())) < len(out):
        raise CompareError("--match: two strategies are matched to the same new name")
    return out


def _check_matches(match: dict[str, str], names: list[set[str]]) -> None:
    """Every OLD is a baseline strategy and every NEW a strategy of some other run."""
    for old, new in match.items():
        if old not in names[0]:
            raise CompareError(f"--match {old}={new}: run A has no strategy {old!r}")
        if not any(new in n for n in names[1:]):
            raise CompareError(f"--match {old}={new}: no other run has a strategy {new!r}")
        for k, n in enumerate(names[1:], start=1):
            if old in n and new in n:
                raise CompareError(
                    f"--match {old}={new}: run {_label(k)} has both; compare it without --match"
                )


def _name_in(name: str, names: set[str], match: dict[str, str]) -> str | None:
    """The baseline strategy ``name`` as another run names it (matched first), or None."""
    new = match.get(name)
    if new is not None and new in names:
        return new
    return name if name in names else None


# -- what differs ------------------------------------------------------------------------
def differences(summaries: list[dict[str, Any]], match: dict[str, str] | None = None) -> list[str]:
    """Sentences naming everything that differs between the runs' setups.

    Per entrant (matched by display name or ``match``): its reference, class, parameters
    and code digest as run.json records them, so an edited class in one file shows.
    """
    match = match or {}
    runs = [s["run"] for s in summaries]
    labels = [_label(i) for i in range(len(runs))]
    out = []

    def per_run(values: list[Any]) -> str:
        return ", ".join(f"{lab}: {v}" for lab, v in zip(labels, values, strict=True))

    for key, what in (
        ("players", "players per table"),
        ("dice", "dice"),
        ("format", "format"),
        ("seed", "seeds"),
        ("seating", "seating modes"),
    ):
        values = [r.get(key) for r in runs]
        if len(set(map(str, values))) > 1:
            out.append(f"{what} differ ({per_run(values)})")
    keys = sorted({k for r in runs for k in (r.get("rules") or {}) if k != "players"})
    for key in keys:
        values = [(r.get("rules") or {}).get(key) for r in runs]
        if len(set(map(str, values))) > 1:
            out.append(f"rule {key} differs ({per_run(values)})")
    back = {new: old for old, new in match.items()}
    # Each run's entrants by baseline name (another run's NEW under its OLD).
    entrants = [
        {
            (back.get(e.get("name"), e.get("name")) if k else e.get("name")): e
            for e in _entrants_of(r)
        }
        for k, r in enumerate(runs)
    ]
    everyone = list(dict.fromkeys(n for mine in entrants for n in mine if n))
    for name in everyone:
        missing = [lab for lab, mine in zip(labels, entrants, strict=True) if name not in mine]
        shown = name if name not in match else f"{name} (matched to {match[name]})"
        if missing:
            out.append(f"entrant {shown} is not in run(s) {', '.join(missing)}")
            continue
        specs = [mine[name] for mine in entrants]
        changed = [
            f"{what} ({per_run([_shown_field(s, field) for s in specs])})"
            for field, what in IDENTITY_FIELDS
            if len({_shown_field(s, field) for s in specs}) > 1
        ]
        if changed:
            where = {_plugin_place(s) for s in specs} - {None}
            if len(where) == 1:
                shown += f" ({where.pop()})"
            out.append(f"entrant {shown}: " + "; ".join(changed))
    versions = [r.get("version") for r in runs]
    if len(set(map(str, versions))) > 1:
        out.append(f"harness versions differ ({per_run(versions)})")
    return out


def _entrants_of(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in run.get("entrants") or [] if isinstance(e, dict)]


def _plugin_place(entrant: dict[str, Any]) -> str | None:
    """A file plugin as people name it, ``path/to/bot.py:Class`` (its reference without
    parameters); None for anything else."""
    cls, ref = entrant.get("class"), entrant.get("ref")
    if not (isinstance(cls, str) and cls.startswith(FILE_MODULE) and isinstance(ref, str)):
        return None
    return f"{ref.rpartition(':')[0] or ref}:{cls.rpartition(':')[2]}"


def _shown_field(entrant: dict[str, Any], field: str) -> str:
    """An identity field as "What differs" shows it. A file plugin's class is its file
    and class name, never the module harness loaded it under (``harness_plugin_`` and a
    hash of the file's path and content, which changes with every edit: the code
    digest says that)."""
    if field == "class":
        place = _plugin_place(entrant)
        if place is not None:
            return place
    return _shown_value(entrant.get(field))


def _shown_value(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True) if value else "none"
    return "none" if value is None else str(value)


# -- reading the games of a run for pairing --------------------------------------------------
# The account's columns a comparison reads (docs/luck.md): null where a run kept none.
LUCK_SEAT_FIELDS = ("luck", "wluck")


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
        # Each seat's luck controls (nan without the account): win-weighted luck and luck,
        # each against the others' mean (harness.stats.luck).
        c_win, c_margin = (
            stats.versus_others(scored[[seat_column(i, f) for i in range(n)]].to_numpy(np.float64))
            for f in ("wluck", "luck")
        )
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
    for e in _entrants_of(run):
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


# -- the comparison --------------------------------------------------------------------------
def compare(
    summaries: list[dict[str, Any]],
    *,
    match: dict[str, str] | None = None,
    paired: bool = True,
    infos: Sequence[RunInfo] | None = None,
    focus: str | None = None,
) -> dict[str, Any]:
    """The comparison of two or more run summaries (JSON-safe); the first is the baseline.

    ``match`` maps baseline display names to other runs' (``--match OLD=NEW``).
    ``paired`` reads the runs' games (``infos``, else each summary's run folder) to pair
    them; False compares every row as independent samples. Strategies are in the
    baseline config's order; ``focus`` (a shared strategy, ``--focus``) comes first, and
    so do its head-to-head pairs, each with it as "A".
    """
    match = dict(match or {})
    labels = [_label(i) for i in range(len(summaries))]
    runs = [_run_entry(lab, s) for lab, s in zip(labels, summaries, strict=True)]
    by_run = [{r["strategy"]: r for r in s["standings"] if r["games"]} for s in summaries]
    _check_matches(match, [set(b) for b in by_run])
    names_in = [{n: _name_in(n, set(b), match) for n in by_run[0]} for b in by_run]
    shared = [n for n in by_run[0] if all(m[n] is not None for m in names_in[1:])]
    # One order for every table and chart: the baseline's config order, the focus first.
    shared = config_order(summaries[0]["run"].get("entrants"), shared)
    if focus is not None:
        if focus not in shared:
            known = ", ".join(shared) or "none"
            raise CompareError(f"--focus {focus!r}: not a strategy every run has; shared: {known}")
        shared = [focus] + [n for n in shared if n != focus]
    matched = {n for n in shared for m in names_in[1:] if m[n] != n}
    only = sorted(
        {n for b in by_run for n in b} - set(shared) - {match[n] for n in matched if n in match}
    )
    twins = _Twins(summaries, infos, match, paired)
    tests: list[tuple[dict[str, Any], float]] = []
    rows = []
    for name in shared:
        row: dict[str, Any] = {"strategy": name, "runs": [], "diffs": []}
        for b, m in zip(by_run, names_in, strict=True):
            r = b[m[name]]
            row["runs"].append({"strategy": r["strategy"], **{k: r[k] for k in _RUN_FIELDS}})
        for k, lab in enumerate(labels[1:], start=1):
            diff = twins.diff(k, name, by_run[0][name], by_run[k][names_in[k][name]])
            diff["run"] = lab
            for key in ("win_share", "worms"):
                cell = diff[key]
                if cell.get("p") is not None and not diff["identical"]:
                    tests.append((cell, cell["p"]))
            row["diffs"].append(diff)
        row["paired"] = all(d["paired"] for d in row["diffs"])
        row["shared_deals"] = min(d["shared_deals"] for d in row["diffs"])
        rows.append(row)
    pairs = _shared_pairs(summaries, labels, shared, names_in, twins, tests)
    luck_tests = _holm_adjust(tests, rows, pairs)
    return json_safe(
        {
            "runs": runs,
            "baseline": labels[0],
            "match": match,
            "focus": focus,
            "differences": differences(summaries, match),
            "shared": shared,
            "not_shared": only,
            "strategies": rows,
            "head_to_head": pairs,
            "tests": len(tests),
            "pairing": twins.notes(labels),
            "method": _method(len(tests), any(r["paired"] for r in rows), bool(luck_tests)),
        }
    )


def _run_entry(label: str, summary: dict[str, Any]) -> dict[str, Any]:
    """What a comparison says of one of its runs (``runs``: label, name, rules, games)."""
    run = summary["run"]
    return {
        "label": label,
        "path": run["path"],
        "name": run["name"],
        "run_id": run["run_id"],
        "created": run.get("created"),
        "rules_text": run["rules_text"],
        "players": run["players"],
        "dice": run["dice"],
        "seed": run.get("seed"),
        "games": summary["games"]["scored"],
    }


def _holm_adjust(
    tests: list[tuple[dict[str, Any], float]],
    rows: list[dict[str, Any]],
    pairs: list[dict[str, Any]],
) -> list[tuple[dict[str, Any], float]]:
    """Holm-adjust the tests' p-values in place (``p_holm``, ``significant``); every cell
    without a test gets None and False. Returns the luck-adjusted family's tests."""
    # The luck-adjusted differences are a family of their own (the same questions asked
    # of less noisy data): Holm within it.
    luck_tests = [
        (cell["luck_adjusted"], cell["luck_adjusted"]["p"])
        for cell, _ in tests
        if cell.get("luck_adjusted") and cell["luck_adjusted"]["p"] is not None
    ]
    for family in (tests, luck_tests):
        adjusted = stats.holm([p for _, p in family])
        for (cell, _), q in zip(family, adjusted, strict=True):
            cell["p_holm"] = q
            cell["significant"] = bool(q == q and q < ALPHA)
    for row in rows:
        for diff in row["diffs"]:
            for key in ("win_share", "worms"):
                diff[key].setdefault("p_holm", None)
                diff[key].setdefault("significant", False)
    for pair in pairs:
        for diff in pair["diffs"]:
            diff.setdefault("p_holm", None)
            diff.setdefault("significant", False)
    return luck_tests


_RUN_FIELDS = ("games", "win_share", "win_low", "win_high", "worms", "worms_low", "worms_high")


def _method(tests: int, any_paired: bool, luck: bool = False) -> str:
    text = "Differences are run minus baseline (run A) with 95% intervals. "
    if any_paired:
        text += (
            "Paired rows compare the same games in both runs (same deal, dice, seat and "
            "opponents): the mean paired difference, clustered by deal. "
        )
    text += (
        "Unpaired rows treat the runs as independent samples (standard errors in "
        "quadrature). Identical rows (every paired game the same) differ by exactly 0 "
        "and are not tested. 'significant' means a Holm-adjusted p below "
        f"{ALPHA} over all {tests} tests of this comparison."
    )
    if luck:
        text += (
            " Where both runs kept the luck account, a paired difference is also given "
            "luck-adjusted: each pair's difference minus b x the twins' difference of luck, "
            "b fitted on the other half of the deals (the same expectation, less noise; "
            "docs/luck.md), Holm-adjusted among the luck-adjusted tests."
        )
    return text


class _Twins:
    """The paired (or unpaired) difference of a strategy between the baseline and run k."""

    def __init__(
        self,
        summaries: list[dict[str, Any]],
        infos: Sequence[RunInfo] | None,
        match: dict[str, str],
        paired: bool,
    ) -> None:
        self.summaries = summaries
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
        """Why run k's games are not paired with the baseline's at all, or None."""
        if k not in self.problems:
            if not self.paired:
                self.problems[k] = "pairing turned off"
            else:
                base, other = (self.summaries[i]["run"] for i in (0, k))
                self.problems[k] = pairing_problem(base, other)
        return self.problems[k]

    def pairs(self, k: int, name: str) -> pd.DataFrame:
        if k not in self.merged:
            base, other = self._frame(0), self._frame(k)
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
        return _unpaired(self.summaries[0], self.summaries[k], base_row, row, problem)

    def _paired(self, k: int, name: str, pairs: pd.DataFrame, deals: int) -> dict[str, Any]:
        identical = bool((pairs["game_a"].to_numpy() == pairs["game_b"].to_numpy()).all())
        code = self.names.of(name)
        games = [int((self._frame(i)["who"] == code).sum()) for i in (0, k)]
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
                f"paired on {len(pairs):,} games (A has {games[0]:,}, {_label(k)} "
                f"{games[1]:,}): the others have no twin (opponents only one run has, or "
                "unfinished in one run)"
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
        """Run k's change in "a ahead of b" from the baseline: paired on the games the two
        met in both runs with the same deal, dice, seats and opponents, else unpaired."""
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
        deals, "a ahead of b" in the baseline and in run k (1, a half for a tie, 0), and
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

    def notes(self, labels: list[str]) -> list[str]:
        """One line per run that is not paired with the baseline at all, and why."""
        out = []
        for k in range(1, len(self.summaries)):
            problem = self.problem(k)
            if problem is not None:
                out.append(f"run {labels[k]} is compared unpaired with A: {problem}")
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


def _unpaired(
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


def _shared_pairs(
    summaries: list[dict[str, Any]],
    labels: list[str],
    order: list[str],
    names_in: list[dict[str, str | None]],
    twins: _Twins,
    tests: list[tuple[dict[str, Any], float]],
) -> list[dict[str, Any]]:
    """Head-to-head shares of the pairs every run has, in ``order`` (each pair once, its
    earlier strategy as "a": the focus, when there is one, comes first), each run's
    difference from the baseline paired where the games are twins (as the strategies'
    rows), else unpaired."""
    cells = [{(c["a"], c["b"]): c for c in s["head_to_head"]["pairs"]} for s in summaries]
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            keys = [(m.get(a), m.get(b)) for m in names_in]
            if not all(key in c for key, c in zip(keys, cells, strict=True)):
                continue
            got = [c[key] for key, c in zip(keys, cells, strict=True)]
            row: dict[str, Any] = {
                "a": a,
                "b": b,
                "runs": [{k: g[k] for k in ("games", "share", "low", "high")} for g in got],
                "diffs": [],
            }
            for k, lab in enumerate(labels[1:], start=1):
                cell = twins.pair_diff(k, a, b, got[0], got[k])
                cell["run"] = lab
                if cell.get("p") is not None and not cell["identical"]:
                    tests.append((cell, cell["p"]))
                row["diffs"].append(cell)
            out.append(row)
    return out
