"""Comparing runs: what they share, what differs, and whether the differences matter.

The first run (A) is the baseline: its config orders the rows and names the strategies.
Every other run is compared with its base on the strategies all runs share (win share
and mean worms) and on the head-to-head pairs all runs share: with the first run
(``against="first"``: B - A, C - A) or with the run before it (``"previous"``: B - A,
C - B, what "did my last edit help?" asks of a config's history). A strategy of run A is
matched in another run by its display name, or by ``--match OLD=NEW`` (an edited bot
under a new name).

**Paired where the games are twins.** Runs with the same seed and dice mode play deal d
on the same dice at every table (duplicate dice: one stream per deal; independent dice:
one per seat order, keyed by ``game_seed``). A game of the strategy in the baseline and
one in the other run are a pair when they have the same deal, the same ``game_seed``
(so the same dice), the strategy in the same seat and the same opponents in every other
seat. Opponents are matched by display name (after ``--match``), not by code: an
opponent whose code changed still plays the same dice from the same seat, so the pair
stays a pair; its change is listed under "What differs", and its games are not identical
any more. The paired differences are clustered by deal (:mod:`harness.report.comparisons.paired`),
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
comparison, since one table holds many tests; the luck-adjusted differences are a
family of their own. Each tested cell carries its ``verdict`` (:data:`VERDICTS`), the one
every output shows (the terminal, ``--json``, compare.md and compare.html).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from harness import stats
from harness.jsonsafe import json_safe
from harness.plugins import FILE_MODULE
from harness.report.comparisons.compare_twins import Twins, entrants_of, label
from harness.report.order import config_order
from harness.runfolder.reader import ReportError, RunInfo

ALPHA = 0.05
MAX_MATCHES = 100  # --match options in one comparison
AGAINST = ("first", "previous")  # what each run is compared with: run A, or the run before
# A tested difference's verdict: significant after Holm's adjustment over its family;
# its 95% interval alone excludes 0 (not after the adjustment); neither.
VERDICTS = ("significant", "interval only", "not significant")
# What run.json records of an entrant's identity, and how a difference in it is said.
IDENTITY_FIELDS = (
    ("ref", "reference differs"),
    ("class", "class differs"),
    ("params", "parameters differ"),
    ("code", "code digest differs"),
)


class CompareError(ReportError):
    """A comparison that cannot be made as asked (a bad --match, say): one line."""


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
                    f"--match {old}={new}: run {label(k)} has both; compare it without --match"
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
    labels = [label(i) for i in range(len(runs))]
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
            for e in entrants_of(r)
        }
        for k, r in enumerate(runs)
    ]
    everyone = list(dict.fromkeys(n for mine in entrants for n in mine if n))
    for name in everyone:
        missing = [lab for lab, mine in zip(labels, entrants, strict=True) if name not in mine]
        shown = name if name not in match else f"{name} (matched to {match[name]})"
        if missing:
            runs_ = "run" if len(missing) == 1 else "runs"
            out.append(f"entrant {shown} is not in {runs_} {', '.join(missing)}")
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


# -- the comparison --------------------------------------------------------------------------
def bases_of(runs: int, against: str = "first") -> list[int]:
    """Each run's base (the run it is compared with; run A's is itself): run A, or the
    run before it."""
    if against not in AGAINST:
        raise CompareError(f"against={against!r}: one of {', '.join(AGAINST)}")
    return [0] + [0 if against == "first" else k - 1 for k in range(1, runs)]


def compare(
    summaries: list[dict[str, Any]],
    *,
    match: dict[str, str] | None = None,
    paired: bool = True,
    infos: Sequence[RunInfo] | None = None,
    focus: str | None = None,
    against: str = "first",
) -> dict[str, Any]:
    """The comparison of two or more run summaries (JSON-safe); the first is run A.

    ``against``: each other run is compared with run A (``"first"``) or with the run
    before it (``"previous"``); each difference says its run and its ``base``.
    ``match`` maps run A's display names to other runs' (``--match OLD=NEW``).
    ``paired`` reads the runs' games (``infos``, else each summary's run folder) to pair
    them; False compares every row as independent samples. Strategies are in run A's
    config order; ``focus`` (a shared strategy, ``--focus``) comes first, and so do its
    head-to-head pairs, each with it first.
    """
    match = dict(match or {})
    labels = [label(i) for i in range(len(summaries))]
    bases = bases_of(len(summaries), against)
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
    twins = Twins(summaries, infos, match, paired, bases)
    tests: list[tuple[dict[str, Any], float]] = []
    rows = []
    for name in shared:
        row: dict[str, Any] = {"strategy": name, "runs": [], "diffs": []}
        for b, m in zip(by_run, names_in, strict=True):
            r = b[m[name]]
            row["runs"].append({"strategy": r["strategy"], **{k: r[k] for k in _RUN_FIELDS}})
        for k, lab in enumerate(labels[1:], start=1):
            base = bases[k]
            found = by_run[base][names_in[base][name]]
            diff = twins.diff(k, name, found, by_run[k][names_in[k][name]])
            diff.update(run=lab, base=labels[base])
            for key in ("win_share", "worms"):
                cell = diff[key]
                if cell.get("p") is not None and not diff["identical"]:
                    tests.append((cell, cell["p"]))
            row["diffs"].append(diff)
        row["paired"] = all(d["paired"] for d in row["diffs"])
        row["shared_deals"] = min(d["shared_deals"] for d in row["diffs"])
        rows.append(row)
    pairs = _shared_pairs(summaries, labels, bases, shared, names_in, twins, tests)
    luck_tests = _holm_adjust(tests, rows, pairs)
    return json_safe(
        {
            "runs": runs,
            "baseline": labels[0],
            "against": against,
            "match": match,
            "focus": focus,
            "differences": differences(summaries, match),
            "shared": shared,
            "not_shared": only,
            "strategies": rows,
            "head_to_head": pairs,
            "tests": len(tests),
            "luck_tests": len(luck_tests),
            "pairing": twins.notes(),
            "method": _method(len(tests), any(r["paired"] for r in rows), len(luck_tests)),
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
    """Holm-adjust the tests' p-values in place (``p_holm``, ``significant`` and the
    ``verdict`` every output shows); every cell without a test gets None, False and None.
    Returns the luck-adjusted family's tests."""
    # The luck-adjusted differences are a family of their own (the same questions asked
    # of less noisy data): Holm within it.
    luck_tests = [
        (cell["luck_adjusted"], cell["luck_adjusted"]["p"])
        for cell, _ in tests
        if cell.get("luck_adjusted") and cell["luck_adjusted"]["p"] is not None
    ]
    for family in (tests, luck_tests):
        adjusted = stats.holm([p for _, p in family])
        for (cell, p), q in zip(family, adjusted, strict=True):
            cell["p_holm"] = q
            cell["significant"] = bool(q == q and q < ALPHA)
            cell["verdict"] = _verdict(p, q)
    cells = [d[key] for row in rows for d in row["diffs"] for key in ("win_share", "worms")]
    cells += [c["luck_adjusted"] for c in cells if c.get("luck_adjusted")]
    cells += [d for pair in pairs for d in pair["diffs"]]
    for cell in cells:
        cell.setdefault("p_holm", None)
        cell.setdefault("significant", False)
        cell.setdefault("verdict", None)
    return luck_tests


def _verdict(p: float, q: float) -> str:
    """A tested difference's verdict (:data:`VERDICTS`) from its p-value and its
    Holm-adjusted one: a 95% interval excludes 0 exactly when p < 0.05."""
    if q == q and q < ALPHA:
        return VERDICTS[0]
    return VERDICTS[1] if p == p and p < ALPHA else VERDICTS[2]


_RUN_FIELDS = ("games", "win_share", "win_low", "win_high", "worms", "worms_low", "worms_high")


def _method(tests: int, any_paired: bool, luck: int = 0) -> str:
    text = "Differences are each run minus the run it is compared with, with 95% intervals. "
    if any_paired:
        text += (
            "Paired rows compare the same games in both runs (same deal, dice, seat and "
            "opponents): the mean paired difference, clustered by deal. "
        )
    text += (
        "Unpaired rows treat the runs as independent samples (standard errors in "
        "quadrature). Identical rows (every paired game the same) differ by exactly 0 "
        "and are not tested. A difference marked * is significant: a Holm-adjusted p "
        f"below {ALPHA} over all {tests} tests of this comparison (win share, mean worms "
        "and head to head); one marked ° has a 95% interval that excludes 0 but is not "
        "significant once the many tests are allowed for."
    )
    if luck:
        text += (
            " Where both runs kept the luck account, a paired difference is also given "
            "luck-adjusted: each pair's difference minus b x the twins' difference of luck, "
            "b fitted on the other half of the deals (the same expectation, less noise; "
            f"docs/luck.md), Holm-adjusted among the {luck} luck-adjusted tests; adj. on: "
            "the share of the pairs that kept the account in both runs (the others enter "
            "unadjusted)."
        )
    return text


def _shared_pairs(
    summaries: list[dict[str, Any]],
    labels: list[str],
    bases: list[int],
    order: list[str],
    names_in: list[dict[str, str | None]],
    twins: Twins,
    tests: list[tuple[dict[str, Any], float]],
) -> list[dict[str, Any]]:
    """Head-to-head shares of the pairs every run has, in ``order`` (each pair once, its
    earlier strategy as "a": the focus, when there is one, comes first), each run's
    difference from its base paired where the games are twins (as the strategies'
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
                cell = twins.pair_diff(k, a, b, got[bases[k]], got[k])
                cell.update(run=lab, base=labels[bases[k]])
                if cell.get("p") is not None and not cell["identical"]:
                    tests.append((cell, cell["p"]))
                row["diffs"].append(cell)
            out.append(row)
    return out
