"""An adaptive run's comparisons in its report: which were settled, tied or left open, and
the games each took.

The runner keeps its schedule's record in run.json (``adaptive``: the target, how the
run ended, each comparison's verdict, deals, games, share and confidence-sequence
interval, each batch); this module reads it back checked (run.json is input like any
other: a value of the wrong type is left out, never a traceback) into the summary's
``adaptive`` section, and turns that into the report's blocks and the terminal's lines.
"""

from __future__ import annotations

import math
from typing import Any

from harness.report.pages.formats import count, pct
from harness.report.pages.page import Block, h2, para, table, text_table, wrap
from harness.report.pages.race import race_blocks, race_lines, race_section

VERDICT_TEXT = {"a": "{a} ahead", "b": "{b} ahead", "tie": "tie", "open": "open"}
ENDED_TEXT = {
    "settled": "every comparison settled",
    "deals": "every open table reached deals:",
    "budget": "the budget: the next batch would have passed it",
}
_NUMBERS = ("deals", "games", "share", "low", "high", "stop_low", "stop_median", "stop_high")
#: What each pair of interval keys of a comparison is, said where a program reads them
#: (``--json``, report.json, ``Run.report``): two intervals, two guarantees.
INTERVALS = {
    "low, high": (
        "the verdict's interval: the anytime-valid confidence sequence the schedule "
        "decides with, at the target's confidence for all comparisons at once (each alone "
        "at 1 - (1 - confidence) / comparisons); it covers more often than its level"
    ),
    "stop_low, stop_high": (
        "the estimate interval at the stop (stop_level, 95%, each comparison alone): exact "
        "for the stopping rule that stopped it (stagewise ordering, normal batch sums, the "
        "plug-in variance, the luck coefficients as used); it decides nothing; "
        "stop_median: the median-unbiased share"
    ),
}


def _number(value: Any) -> float:
    """A number of run.json, nan for anything else (a bool, a string, null)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return float(value) if ok else math.nan


def adaptive_section(config: dict[str, Any]) -> dict[str, Any] | None:
    """The summary's ``adaptive`` section from run.json (None: not an adaptive run)."""
    record = config.get("adaptive")
    if not isinstance(record, dict):
        return None
    comparisons = []
    for item in record.get("comparisons") or []:
        if not isinstance(item, dict) or item.get("verdict") not in VERDICT_TEXT:
            continue
        a, b = str(item.get("a", "")), str(item.get("b", ""))
        row = {"a": a, "b": b, "verdict": item["verdict"]}
        dropped = item.get("dropped")  # left open when a racing sweep's value went out
        row["dropped"] = str(dropped) if dropped and item["verdict"] == "open" else ""
        row.update({key: _number(item.get(key)) for key in _NUMBERS})
        comparisons.append(row)
    target = record.get("target") if isinstance(record.get("target"), dict) else {}
    tally = {v: sum(c["verdict"] == v for c in comparisons) for v in ("a", "b", "tie", "open")}
    stopped = sum(bool(c["dropped"]) for c in comparisons)
    return {
        "target": {k: target.get(k) for k in ("zone", "zone_elo", "confidence", "batch", "budget")},
        "ended": record.get("ended") if record.get("ended") in ENDED_TEXT else None,
        "comparisons": comparisons,
        "settled": tally["a"] + tally["b"],
        "tied": tally["tie"],
        "open": tally["open"] - stopped,
        "stopped": stopped,
        "batches": len(record.get("batches") or []),
        "races": race_section(record),
        "intervals": INTERVALS,
    }


SHORT_VERDICT = {"a": "first ahead", "b": "second ahead", "tie": "tie", "open": "open"}


def _rows(section: dict[str, Any], short: bool = False) -> list[list[str]]:
    """The comparisons' rows; ``short``: verdicts without names (long names in 100
    columns: "first ahead" is the comparison's first entrant)."""
    rows = []
    for c in section["comparisons"]:
        verdict = VERDICT_TEXT[c["verdict"]].format(a=c["a"], b=c["b"])
        if short:
            verdict = SHORT_VERDICT[c["verdict"]]
        if c.get("dropped"):
            verdict = "stopped" if short else f"stopped: {c['dropped']} out"
        rows.append(
            [
                f"{c['a']} v {c['b']}",
                verdict,
                pct(c["share"]),
                f"{pct(c['low'])} to {pct(c['high'])}",
                _interval(c.get("stop_low", math.nan), c.get("stop_high", math.nan)),
                count(c["deals"]) if not math.isnan(c["deals"]) else "-",
                count(c["games"]) if not math.isnan(c["games"]) else "-",
            ]
        )
    return rows


def _interval(low: float, high: float) -> str:
    """An interval as the table shows it; a dash where it is not known (an older run)."""
    if math.isnan(low) or math.isnan(high):
        return "-"
    return f"{pct(low)} to {pct(high)}"


HEADER = [
    "comparison",
    "verdict",
    "share",
    "anytime 95% interval",
    "95% at the stop",
    "deals",
    "games",
]


def _headline(section: dict[str, Any]) -> str:
    target = section["target"]
    zone = target.get("zone_elo")
    zone_text = (
        f"{zone:g} Elo"
        if isinstance(zone, (int, float))
        else f"{_number(target.get('zone')) * 100:g} points"
    )
    conf = _number(target.get("confidence"))
    ended = ENDED_TEXT.get(section["ended"] or "", "not yet (the run stopped before)")
    stopped = section.get("stopped") or 0
    stopped_text = f", {stopped} stopped (a swept value out of its race)" if stopped else ""
    return (
        f"Adaptive schedule: {len(section['comparisons'])} comparisons, "
        f"{section['settled']} settled, {section['tied']} tied (within +-{zone_text}), "
        f"{section['open']} open{stopped_text} after {section['batches']} batches; "
        f"ended: {ended}. "
        f"Every verdict holds at once with {pct(conf, 0)} confidence."
    )


def adaptive_blocks(summary: dict[str, Any]) -> list[Block]:
    """The report's section on an adaptive run's comparisons (nothing for a fixed run)."""
    section = summary.get("adaptive")
    if not section:
        return []
    header = list(HEADER)
    conf = _number(section["target"].get("confidence"))
    header[3] = f"anytime {pct(conf, 0)} interval"
    comparisons = len(section["comparisons"])
    each = 1 - (1 - conf) / max(1, comparisons)
    return [
        h2("Adaptive schedule"),
        para(_headline(section)),
        table(header, _rows(section)),
        para(
            "Share: the first entrant's head-to-head share against the second (luck-adjusted "
            "where the games kept the account), when its comparison was settled (or now, if "
            "open). Its interval is a confidence sequence, valid however often it was looked "
            f"at; the {pct(conf, 0)} is for all {comparisons} intervals at once, each alone "
            f"a {pct(each, 2)} one (docs/tourney.md, adaptive tournaments: measured, they "
            "cover more often than that). It decides the verdicts. The 95% at the stop is "
            "another interval, for the estimate, not for the verdict: a 95% interval of the "
            "share for each comparison alone, exact for the stopping rule that stopped it "
            "(stagewise ordering over its batch ends, to the normal approximation of the "
            "batch sums, the variance estimated at the stop; docs/tourney.md, the estimate "
            "interval at the stop). It holds at the stop only, and no verdict is read from "
            "it. The standings above count every stored game, so their intervals are "
            "fixed-sample ones."
        ),
        *race_blocks(section.get("races") or []),
    ]


def adaptive_lines(summary: dict[str, Any]) -> list[str]:
    """The terminal's lines for an adaptive run (nothing for a fixed run)."""
    section = summary.get("adaptive")
    if not section:
        return []
    lines = wrap(_headline(section), 100, "")
    table = text_table(HEADER, _rows(section), left=2)
    apart: list[str] = []
    if max(len(line) for line in table) > 98:  # long names: verdicts without them
        short = [*HEADER[:3], "anytime interval", "at the stop", *HEADER[5:]]
        table = text_table(short, _rows(section, short=True), left=2)
    if max(len(line) for line in table) > 98:  # still too wide: the estimate's apart
        rows = _rows(section, short=True)
        table = text_table([*short[:4], *short[5:]], [[*r[:4], *r[5:]] for r in rows], left=2)
        apart = ["The estimate's 95% interval at the stop (not the verdict's):"]
        apart += [
            "  " + line
            for line in text_table(
                ["comparison", "95% at the stop"], [[r[0], r[4]] for r in rows], left=2
            )
        ]
    lines += ["  " + line for line in table] + apart
    return lines + race_lines(section.get("races") or [])
