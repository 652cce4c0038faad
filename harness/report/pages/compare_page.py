"""The comparison of several runs (:mod:`harness.report.comparisons.compare`) as page blocks.

One set of blocks (:func:`compare_tables`: the runs' figures, the differences of win share
and of mean worms, the head-to-head changes, the legend and the notes) is what
``compare.md`` and ``compare.html`` show (:func:`compare_blocks`) and what ``harness
compare`` prints, fitted to the terminal's width (:func:`harness.report.pages.page.
terminal_lines`): every cell of a difference, its mark and its interval, is written by
one function here (:func:`diff_cells`, :func:`luck_cells`, :func:`pair_cells`) from the
``verdict`` the comparison gives each tested cell, so the outputs cannot say different
things about one row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import plural
from harness.report.pages.formats import DASH, count, num, pct, points, signed_span, span
from harness.report.pages.page import Block, bullets, h1, h2, image, para, table

# The mark a difference carries after its figure, by its verdict
# (harness.report.comparisons.compare): as wide for every tested difference, so that the
# digits of a column line up.
MARKS = {"significant": " *", "interval only": " °", "not significant": "  ", None: ""}


def mark(cell: dict[str, Any] | None) -> str:
    """`` *`` (significant after Holm), `` °`` (its 95% interval alone excludes 0) or
    blank: the one mark of a tested difference in every output."""
    return MARKS.get((cell or {}).get("verdict"), "")


def luck_cells(cell: dict[str, Any] | None) -> list[str]:
    """A luck-adjusted paired difference (docs/luck.md) as three cells: the difference
    with its mark, its interval, and the share of the pairs it adjusts (the pairs that
    kept the account in both runs); dashes without one."""
    if not cell:
        return [DASH, DASH, DASH]
    accounted = cell.get("accounted")
    return [
        points(cell["diff"]) + mark(cell),
        signed_span(cell["low"], cell["high"], 100, 1),
        DASH if accounted is None else pct(accounted, 0),
    ]


def _luck_worms_cells(cell: dict[str, Any] | None) -> list[str]:
    if not cell:
        return [DASH, DASH, DASH]
    accounted = cell.get("accounted")
    return [
        num(cell["diff"], 2, sign=True) + mark(cell),
        signed_span(cell["low"], cell["high"], 1, 2),
        DASH if accounted is None else pct(accounted, 0),
    ]


def compared_how(diff: dict[str, Any]) -> str:
    """How a difference was compared: ``identical, N games``, ``paired, N deals``, ``unpaired``."""
    if diff.get("identical"):
        return f"identical, {plural(diff.get('paired_games') or 0, 'game')}"
    if diff.get("paired"):
        return f"paired, {plural(diff.get('shared_deals') or 0, 'deal')}"
    return "unpaired"


def diff_cells(diff: dict[str, Any], key: str) -> tuple[str, str]:
    """A difference (``key`` win_share or worms) with its mark, and its 95% interval.

    Identical games differ by exactly 0: the word "identical" and no interval. A win share
    compared relative to the fair share (different player counts) is in multiples of it
    ("x fair"), otherwise in percentage points; a refused test says "not compared".
    """
    cell = diff[key]
    if diff.get("identical"):
        return "identical", DASH
    if cell.get("refused") or cell.get("diff") is None:
        return "not compared", DASH
    if key == "worms":
        text, interval = (
            num(cell["diff"], 2, sign=True),
            signed_span(cell["low"], cell["high"], 1, 2),
        )
    elif diff.get("scale") == "fair_share":
        text = f"{num(cell['diff'], 2, sign=True)} x fair"
        interval = signed_span(cell["low"], cell["high"], 1, 2)
    else:
        text, interval = points(cell["diff"]), signed_span(cell["low"], cell["high"], 100, 1)
    return text + mark(cell), interval


def pair_cells(diff: dict[str, Any]) -> tuple[str, str]:
    """A head-to-head change with its mark, and its 95% interval (points; identical:
    exactly 0)."""
    if diff.get("identical"):
        return "identical", DASH
    if diff.get("diff") is None:
        return "not compared", DASH
    return points(diff["diff"]) + mark(diff), signed_span(diff["low"], diff["high"], 100, 1)


def run_pair(diff: dict[str, Any]) -> str:
    """Which runs a difference is between: ``B − A`` (run minus its base)."""
    return f"{diff['run']} − {diff.get('base', 'A')}"


# -- the tables ----------------------------------------------------------------------------
def _runs_figures(comparison: dict[str, Any]) -> Block:
    """Each shared strategy's win share and mean worms in each run (the terminal leaves
    the intervals out when it is narrow)."""
    runs = comparison["runs"]
    header = ["strategy"]
    for r in runs:
        header += [f"{r['label']} win", "95% CI"]
    for r in runs:
        header += [f"{r['label']} worms", "95% CI"]
    rows = []
    for s in comparison["strategies"]:
        row = [s["strategy"]]
        for v in s["runs"]:
            row += [pct(v["win_share"]), span(v["win_low"], v["win_high"])]
        for v in s["runs"]:
            row += [num(v["worms"]), span(v["worms_low"], v["worms_high"], "num")]
        rows.append(row)
    intervals = [i for i, h in enumerate(header) if h == "95% CI"]
    return table(header, rows, give_way=[("the runs' 95% CIs", intervals)])


def _lucky(comparison: dict[str, Any], key: str) -> bool:
    return any(d[key].get("luck_adjusted") for s in comparison["strategies"] for d in s["diffs"])


def _differences(comparison: dict[str, Any], key: str) -> Block:
    """One row per strategy and compared run: the difference with its mark and interval,
    its luck-adjusted twin where the runs kept the account, how it was compared."""
    lucky = _lucky(comparison, key)
    header = ["strategy", "run", "difference", "95% CI"]
    header += ["luck-adjusted", "95% CI", "adj. on"] if lucky else []
    header += ["compared"]
    rows = []
    for s in comparison["strategies"]:
        for d in s["diffs"]:
            row = [s["strategy"], run_pair(d), *diff_cells(d, key)]
            if lucky:
                adjusted = d[key].get("luck_adjusted")
                row += luck_cells(adjusted) if key == "win_share" else _luck_worms_cells(adjusted)
            rows.append([*row, compared_how(d)])
    groups = [[2, 3]] + ([[4, 5, 6]] if lucky else [])
    last = len(header) - 1
    return table(
        header, rows, key=2, left=2, groups=groups, fold=[1, last], give_way=[("compared", [last])]
    )


def _pairs_table(comparison: dict[str, Any], focus: str | None = None) -> Block:
    """The head-to-head changes: one row per pair and compared run, the shares in the
    run's base and in the run, the change with its mark and interval. ``focus``: only
    its pairs, each named by the opponent."""
    pairs = comparison["head_to_head"]
    if focus is not None:
        pairs = [p for p in pairs if focus in (p["a"], p["b"])]
    labels = [r["label"] for r in comparison["runs"]]
    header = ["opponent" if focus else "pair", "run", "before", "after", "change", "95% CI"]
    header += ["compared"]
    rows = []
    for p in pairs:
        for k, d in enumerate(p["diffs"], start=1):
            before = p["runs"][labels.index(d.get("base", labels[0]))]["share"]
            name = (
                (p["b"] if p["a"] == focus else p["a"]) if focus else f"{p['a']} ahead of {p['b']}"
            )
            row = [name, run_pair(d), pct(before), pct(p["runs"][k]["share"]), *pair_cells(d)]
            rows.append([*row, compared_how(d)])
    last = len(header) - 1
    return table(
        header,
        rows,
        key=2,
        left=2,
        groups=[[4, 5]],
        fold=[1, last],
        give_way=[("compared", [last])],
    )


def compare_legend(comparison: dict[str, Any]) -> list[str]:
    """What the marks and the words of the difference columns mean (only those the
    comparison uses), column by column."""
    cells = [d for s in comparison["strategies"] for d in s["diffs"]]
    tests, luck = comparison.get("tests", 0), comparison.get("luck_tests", 0)
    out = []
    if tests or luck:  # without a test no difference carries a mark
        out.append(
            "* after a difference: significant, a Holm-adjusted p below 0.05; in the "
            f"difference and change columns among the {tests} tests of win share, mean "
            "worms and head to head"
            + (
                f", in the luck-adjusted columns among the {luck} luck-adjusted tests"
                if luck
                else ""
            )
            + ". ° after a difference: its 95% interval excludes 0, but not once the tests "
            "of its family are allowed for (Holm): a hint, not a finding."
        )
    out.append(
        "paired: the same deals, dice, seats and opponents in both runs, clustered by deal; "
        "identical: every such game the same (a difference of exactly 0, not tested); "
        "unpaired: independent samples."
    )
    if luck:
        out.append(
            "luck-adjusted: each pair's difference minus b x the twins' difference of luck, b "
            "fitted on the other half of the deals (docs/luck.md); adj. on: the share of the "
            "pairs that kept the luck account in both runs, the others entering as played."
        )
    if any(d.get("scale") == "fair_share" for d in cells):
        out.append("x fair: win shares relative to the fair share 1/players (1.0 = fair).")
    return out


def compare_notes(comparison: dict[str, Any]) -> list[str]:
    """Why rows are unpaired or partly paired and which tests were refused, one line each.

    The runs not paired at all come first (``pairing``); then each row's note, said once
    for all strategies it applies to, and left out where it only repeats its run's reason;
    then each refusal (a worms test across player counts), once per run.
    """
    out = list(comparison.get("pairing") or [])
    notes: dict[tuple[str, str], list[str]] = {}
    refusals: dict[tuple[str, str, str], None] = {}  # (runs, test, why), in order, once
    for s in comparison["strategies"]:
        for d in s["diffs"]:
            note = _beyond_run_reason(d.get("note"), _unpaired_prefix(d), out)
            if note:
                notes.setdefault((run_pair(d), note), []).append(s["strategy"])
            for key in ("win_share", "worms"):
                refused = (d.get(key) or {}).get("refused")
                if refused:
                    refusals[run_pair(d), key, refused] = None
    for p in comparison.get("head_to_head") or []:
        for d in p["diffs"]:
            note = _beyond_run_reason(d.get("note"), _unpaired_prefix(d), out)
            if note:
                notes.setdefault((run_pair(d), note), []).append(f"{p['a']} ahead of {p['b']}")
    for (runs, note), names in notes.items():
        out.append(f"{runs}, {', '.join(names)}: {note}")
    for runs, key, why in refusals:
        shown = "win share" if key == "win_share" else "mean worms"
        out.append(f"{runs}: {shown} not compared ({why})")
    return out


def _unpaired_prefix(diff: dict[str, Any]) -> str:
    return f"run {diff['run']} is compared unpaired with {diff.get('base', 'A')}: "


def _beyond_run_reason(note: str | None, prefix: str, pairing: list[str]) -> str | None:
    """What a row's note adds to its run's line in ``pairing`` (which starts ``prefix``):
    "unpaired: <the run's reason>" adds nothing; "unpaired: <reason>; more" adds "more"."""
    if not note or not note.startswith("unpaired: "):
        return note
    body = note[len("unpaired: ") :]
    for line in pairing:
        if line.startswith(prefix):
            reason = line[len(prefix) :]
            if body == reason:
                return None
            if body.startswith(reason + "; "):
                return body[len(reason) + 2 :]
    return note


def against_text(comparison: dict[str, Any]) -> str:
    """Which run each run is compared with, in words."""
    runs = comparison["runs"]
    if len(runs) < 3:
        return f"{runs[-1]['label']} is compared with {runs[0]['label']}."
    if comparison.get("against") == "previous":
        return (
            "Each run is compared with the run before it ("
            + ", ".join(
                f"{r['label']} − {p['label']}" for p, r in zip(runs, runs[1:], strict=False)
            )
            + ")."
        )
    return f"Each run is compared with run {runs[0]['label']}."


def compare_tables(comparison: dict[str, Any], *, focus_only: bool = False) -> list[Block]:
    """The comparison's figures, differences, head-to-head changes, legend and notes: what
    the files show and the terminal prints. ``focus_only``: head to head only for the
    ``--focus`` strategy (the terminal's), none without one."""
    out = [
        h2("Win share and mean worms per run"),
        _runs_figures(comparison),
        h2("Win share: each run minus the run it is compared with (percentage points)"),
        _differences(comparison, "win_share"),
        h2("Mean worms: each run minus the run it is compared with"),
        _differences(comparison, "worms"),
    ]
    focus = comparison.get("focus")
    if comparison["head_to_head"] and (focus or not focus_only):
        pairs = _pairs_table(comparison, focus if focus_only else None)
        if pairs.rows:
            who = f"{focus}'s" if focus_only else "Shared"
            out += [
                h2(f"{who} head to head: the share of games finished ahead, before and after"),
                pairs,
            ]
    out.append(bullets(compare_legend(comparison)))
    notes = compare_notes(comparison)
    if notes:
        out += [h2("How the rows were compared"), bullets(notes)]
    return out


def _runs_table(runs: list[dict[str, Any]]) -> Block:
    """The compared runs, one row each: label, folder, rules, players, dice, seed, games."""
    return table(
        ["run", "folder", "rules", "players", "dice", "seed", "scored games"],
        [
            [
                r["label"],
                r["path"],
                r["rules_text"],
                str(r["players"]),
                r["dice"],
                DASH if r.get("seed") is None else str(r["seed"]),
                count(r["games"]),
            ]
            for r in runs
        ],
    )


def compare_blocks(comparison: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """A comparison of runs as blocks, in reading order (compare.md, compare.html)."""
    runs = comparison["runs"]
    out = [h1("Runs compared: " + " vs ".join(f"{r['name']}/{r['run_id']}" for r in runs))]
    out.append(_runs_table(runs))
    diffs = comparison["differences"]
    out.append(h2("What differs"))
    out.append(
        bullets(diffs) if diffs else para("Nothing: same rules, players, dice and entrants.")
    )
    match = comparison.get("match") or {}
    if match:
        out.append(
            para(
                "Matched by --match (run A's name = the other runs' name): "
                + ", ".join(f"{old} = {new}" for old, new in match.items())
                + "."
            )
        )
    if not comparison["shared"]:
        out.append(para("The runs share no strategy with games: there is nothing to compare."))
        return out
    out.append(h2("Shared strategies"))
    out.append(para(f"{against_text(comparison)} {comparison['method']}"))
    out += compare_tables(comparison)
    out += [image(plots[k], k) for k in ("compare", "compare_diffs") if k in plots]
    if comparison["not_shared"]:
        out.append(
            para("Not in every run (left out): " + ", ".join(comparison["not_shared"]) + ".")
        )
    return out
