"""The comparison of several runs (:mod:`harness.report.compare`) as page blocks.

Each difference is told in words shared by ``compare.md`` / ``compare.html``
(:func:`compare_blocks`) and the ``harness compare`` terminal table (the ``*_cells``
functions, :func:`compare_legend`, :func:`compare_notes`), so the files and the terminal
never say different things about one row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.report.formats import DASH, count, num, pct, points, signed_span, span
from harness.report.page import Block, bullets, h1, h2, image, para, table


# -- comparisons -------------------------------------------------------------------------
# How each difference of a comparison (harness.report.compare) is told, in words shared
# by compare.md / compare.html and the ``harness compare`` terminal table, so the files
# and the terminal never say different things about one row.
def _verdict(cell: dict[str, Any]) -> str:
    if cell.get("p_holm") is None:
        return DASH
    return "yes" if cell["significant"] else "no"


def luck_cells(cell: dict[str, Any] | None) -> list[str]:
    """A luck-adjusted paired difference of win share (docs/luck.md) as two cells: the
    difference in points (``*`` when significant) and its interval; dashes without one."""
    if not cell:
        return [DASH, DASH]
    star = " *" if cell.get("significant") else ""
    return [points(cell["diff"]) + star, signed_span(cell["low"], cell["high"], 100, 1)]


def compared_how(diff: dict[str, Any]) -> str:
    """How a difference was compared: ``identical, N games``, ``paired, N deals``, ``unpaired``."""
    if diff.get("identical"):
        return f"identical, {count(diff.get('paired_games'))} games"
    if diff.get("paired"):
        return f"paired, {count(diff.get('shared_deals'))} deals"
    return "unpaired"


def diff_cells(diff: dict[str, Any], key: str) -> tuple[str, str]:
    """A difference (``key`` win_share or worms) and its 95% interval, as text.

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
        return num(cell["diff"], 2, sign=True), signed_span(cell["low"], cell["high"], 1, 2)
    if diff.get("scale") == "fair_share":
        text = f"{num(cell['diff'], 2, sign=True)} x fair"
        return text, signed_span(cell["low"], cell["high"], 1, 2)
    return points(cell["diff"]), signed_span(cell["low"], cell["high"], 100, 1)


def pair_cells(diff: dict[str, Any]) -> tuple[str, str]:
    """A head-to-head change and its 95% interval, as text (points; identical: exactly 0)."""
    if diff.get("identical"):
        return "identical", DASH
    if diff.get("diff") is None:
        return "not compared", DASH
    return points(diff["diff"]), signed_span(diff["low"], diff["high"], 100, 1)


def compare_legend(comparison: dict[str, Any]) -> list[str]:
    """What the words of the difference columns mean (only those the comparison uses)."""
    cells = [d for s in comparison["strategies"] for d in s["diffs"]]
    out = [
        "paired: the same deals, dice, seats and opponents in both runs, clustered by deal; "
        "identical: every such game the same (a difference of exactly 0, not tested); "
        "unpaired: independent samples."
    ]
    if any(d.get("scale") == "fair_share" for d in cells):
        out.append("x fair: win shares relative to the fair share 1/players (1.0 = fair).")
    return out


def compare_notes(comparison: dict[str, Any]) -> list[str]:
    """Why rows are unpaired or partly paired and which tests were refused, one line each.

    The runs not paired at all come first (``pairing``); then each row's note, said once
    for all strategies it applies to, and left out where it only repeats its run's reason;
    then each refusal (a worms test across player counts), once per run.
    """
    base = comparison.get("baseline", "A")
    out = list(comparison.get("pairing") or [])
    notes: dict[tuple[str, str], list[str]] = {}
    refusals: dict[tuple[str, str, str], None] = {}  # (run, test, why), in order, once
    for s in comparison["strategies"]:
        for d in s["diffs"]:
            note = _beyond_run_reason(
                d.get("note"), f"run {d['run']} is compared unpaired with {base}: ", out
            )
            if note:
                notes.setdefault((d["run"], note), []).append(s["strategy"])
            for key in ("win_share", "worms"):
                refused = (d.get(key) or {}).get("refused")
                if refused:
                    refusals[d["run"], key, refused] = None
    for p in comparison.get("head_to_head") or []:
        for d in p["diffs"]:
            note = _beyond_run_reason(
                d.get("note"), f"run {d['run']} is compared unpaired with {base}: ", out
            )
            if note:
                notes.setdefault((d["run"], note), []).append(f"{p['a']} ahead of {p['b']}")
    for (run, note), names in notes.items():
        out.append(f"{run} − {base}, {', '.join(names)}: {note}")
    for run, key, why in refusals:
        shown = "win share" if key == "win_share" else "mean worms"
        out.append(f"{run} − {base}: {shown} not compared ({why})")
    return out


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


def _head_to_head_blocks(comparison: dict[str, Any]) -> list[Block]:
    """The shared head-to-head pairs: each run's share, and each run's change from A."""
    runs, base = comparison["runs"], comparison["baseline"]
    header = ["A ahead of B"] + [f"{r['label']}" for r in runs]
    for r in runs[1:]:
        header += [f"{r['label']} − {base}", "95% CI", "significant", "compared"]
    rows = []
    for p in comparison["head_to_head"]:
        row = [f"{p['a']} ahead of {p['b']}"]
        row += [f"{pct(v['share'])} ({span(v['low'], v['high'])})" for v in p["runs"]]
        for d in p["diffs"]:
            row += [*pair_cells(d), _verdict(d), compared_how(d)]
        rows.append(row)
    return [
        h2("Shared head-to-head pairs"),
        para(
            "The share of the games the two met in which the first finished ahead of the "
            "second (a tie counts half), per run, and each run's change from "
            f"{base}: paired where the runs played the same games, as the rows above."
        ),
        table(header, rows),
    ]


def compare_blocks(comparison: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """A comparison of runs as blocks, in reading order."""
    runs = comparison["runs"]
    base = comparison["baseline"]
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
    out.append(para(comparison["method"]))
    header = ["strategy"]
    for r in runs:
        header += [f"{r['label']} win share (95% CI)", f"{r['label']} worms (95% CI)"]
    rows = []
    for s in comparison["strategies"]:
        row = [s["strategy"]]
        for v in s["runs"]:
            row += [
                f"{pct(v['win_share'])} ({span(v['win_low'], v['win_high'])})",
                f"{num(v['worms'])} ({span(v['worms_low'], v['worms_high'], 'num')})",
            ]
        rows.append(row)
    out.append(table(header, rows))
    header = ["strategy", "run", "compared"]
    header += ["Δ win share", "95% CI", "significant", "Δ worms", "95% CI", "significant"]
    rows = []
    for s in comparison["strategies"]:
        for d in s["diffs"]:
            win, worms = diff_cells(d, "win_share"), diff_cells(d, "worms")
            rows.append(
                [
                    s["strategy"],
                    f"{d['run']} − {base}",
                    compared_how(d),
                    *win,
                    _verdict(d["win_share"]),
                    *worms,
                    _verdict(d["worms"]),
                ]
            )
    out.append(table(header, rows))
    out.append(bullets(compare_legend(comparison)))
    notes = compare_notes(comparison)
    if notes:
        out.append(h2("How the rows were compared"))
        out.append(bullets(notes))
    out += [image(plots[k], k) for k in ("compare", "compare_diffs") if k in plots]
    if comparison["head_to_head"]:
        out += _head_to_head_blocks(comparison)
    if comparison["not_shared"]:
        out.append(
            para("Not in every run (left out): " + ", ".join(comparison["not_shared"]) + ".")
        )
    return out
