"""Turning a run summary into ``report.md`` and a self-contained ``report.html``.

Both come from one list of blocks (heading, paragraph, list, table, image), so they
always say the same thing. The HTML embeds every plot as base64 PNG and carries its own
style: it opens from disk with no server and no network.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DASH = "—"


# -- number formatting: None (an undefined number) is always a dash ----------------------
def pct(value: float | None, digits: int = 1) -> str:
    return DASH if value is None or math.isnan(value) else f"{value * 100:.{digits}f}%"


def num(value: float | None, digits: int = 2, sign: bool = False) -> str:
    if value is None or math.isnan(value):
        return DASH
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def span(low: float | None, high: float | None, fmt: str = "pct", digits: int = 1) -> str:
    """An interval as ``low–high``; a dash when undefined."""
    if low is None or high is None:
        return DASH
    if fmt == "pct":
        return f"{low * 100:.{digits}f}–{high * 100:.{digits}f}%"
    return f"{num(low, digits)} – {num(high, digits)}"


def signed_span(low: float | None, high: float | None, scale: float, digits: int) -> str:
    """An interval of a difference, signs shown: ``-1.2 to +3.4``."""
    if low is None or high is None:
        return DASH
    return f"{num(low * scale, digits, sign=True)} to {num(high * scale, digits, sign=True)}"


def los_text(value: float | None) -> str:
    """A likelihood of superiority; never shown as a flat 0% or 100%."""
    if value is None or math.isnan(value):
        return DASH
    if value > 0.999:
        return ">99.9%"
    if value < 0.001:
        return "<0.1%"
    return pct(value)


def count(value: float | None) -> str:
    return DASH if value is None else f"{int(value):,}"


# -- blocks ------------------------------------------------------------------------------
@dataclass
class Block:
    kind: str  # h1 h2 p ul table img
    text: str = ""
    items: list[str] | None = None
    header: list[str] | None = None
    rows: list[list[str]] | None = None
    path: Path | None = None


def h1(text: str) -> Block:
    return Block("h1", text)


def h2(text: str) -> Block:
    return Block("h2", text)


def para(text: str) -> Block:
    return Block("p", text)


def bullets(items: list[str]) -> Block:
    return Block("ul", items=items)


def table(header: list[str], rows: list[list[str]]) -> Block:
    return Block("table", header=header, rows=rows)


def image(path: Path, alt: str) -> Block:
    return Block("img", alt, path=path)


# -- the report --------------------------------------------------------------------------
def report_blocks(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """The whole report as blocks, in reading order."""
    run, games = summary["run"], summary["games"]
    out = [h1(f"Tournament report: {run['name']} / {run['run_id']}")]
    out.append(
        para(
            f"Rules: {run['rules_text']}. Format: {run.get('format') or DASH}, "
            f"{games['tables']} table(s), {run['dice']} dice, seed {run.get('seed', DASH)}, "
            f"harness {run.get('version') or DASH}. Games: {count(games['stored'])} stored, "
            f"{count(games['scored'])} scored ({count(games['forfeit'])} forfeits"
            f"{_timed_note(summary)}), "
            f"{count(games['turn_cap'])} unfinished (turn cap); mean length "
            f"{num(games['mean_turns'], 1)} turns."
        )
    )
    if summary["messages"]:
        out.append(bullets(summary["messages"]))
    if not games["scored"]:
        return out
    out += _standings(summary, plots)
    out += _convergence(summary, plots)
    out += _ratings(summary, plots)
    out += _head_to_head(summary, plots)
    out += _worms(summary, plots)
    out += _seats(summary, plots)
    out += _faults(summary)
    out += [
        h2("How to read this report"),
        bullets(
            [
                "Win share: the share of games won; a shared first place is split between "
                "the players who share it.",
                summary["intervals"] + ".",
                "Head to head: the share of the games two strategies played together in "
                "which the row strategy finished ahead of the column one (a tie counts half).",
                "LOS (likelihood of superiority): the probability that the higher-placed "
                "strategy really finishes ahead of its neighbour more often than not, from "
                "their head-to-head games.",
                "Games with status turn-cap never finished: they are not results and are "
                "left out of every statistic. Forfeits are results: the forfeiting seat is "
                "ranked last.",
            ]
        ),
    ]
    return out


def _timed_note(summary: dict[str, Any]) -> str:
    timed = (summary.get("forfeit_kinds") or {}).get("machine_dependent")
    return f", {count(timed)} of them on time: machine-dependent" if timed else ""


def _img(plots: dict[str, Path], name: str, alt: str) -> list[Block]:
    return [image(plots[name], alt)] if name in plots else []


def _standings(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    rated = summary["ratings"].get("model") is not None
    header = ["#", "strategy", "games", "win share", "95% CI", "mean worms", "95% CI"]
    header += ["mean rank"] + (["rating (Elo)", "95% CI"] if rated else [])
    header += ["bust rate", "steals/game", "stolen/game"]
    rows = []
    for r in summary["standings"]:
        row = [
            str(r["place"]),
            r["strategy"],
            count(r["games"]),
            pct(r["win_share"]),
            span(r["win_low"], r["win_high"]),
            num(r["worms"]),
            span(r["worms_low"], r["worms_high"], "num"),
            num(r["mean_rank"]),
        ]
        if rated:
            row += [num(r["elo"], 0, sign=True), span(r["elo_low"], r["elo_high"], "num", 0)]
        row += [pct(r["bust_rate"]), num(r["steals"]), num(r["stolen"])]
        rows.append(row)
    return [
        h2("Standings"),
        table(header, rows),
        para(
            f"{summary['intervals']}. Bust rate is busts per turn played (R9); steals per "
            "game made (R7) and suffered."
        ),
        *_img(plots, "standings", "Standings: win share and mean worms with 95% intervals"),
    ]


def _convergence(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    conv = summary["convergence"]
    if not conv["neighbours"]:
        return []
    rows = []
    for c in conv["neighbours"]:
        if c["overlap"] is None:
            verdict = "unknown (too few games)"
        elif c["overlap"]:
            needed = c["games_needed"]
            more = (
                f"; about {count(needed)} games in all would separate them if the gap holds"
                if needed is not None and needed < 1e12
                else ""
            )
            verdict = "overlap" + more
        else:
            verdict = "separated"
        h2h = (
            f"{pct(c['head_to_head'])} of {count(c['head_to_head_games'])}"
            if c["head_to_head_games"]
            else "never met"
        )
        rows.append(
            [
                f"{c['places'][0]}–{c['places'][1]}",
                f"{c['upper']} / {c['lower']}",
                verdict,
                h2h,
                los_text(c["los"]),
            ]
        )
    head = (
        "Yes: every pair of neighbours is separated at 95%."
        if conv["settled"]
        else "Not yet: some neighbours' 95% intervals of win share overlap."
    )
    return [
        h2("Is the ranking settled?"),
        para(head),
        table(["places", "neighbours", "95% intervals", "head to head (upper ahead)", "LOS"], rows),
        *_img(plots, "convergence", "Win share against games played, with 95% bands"),
    ]


def _ratings(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    ratings = summary["ratings"]
    return [h2("Ratings"), para(ratings["note"]), *_img(plots, "ratings", "Ratings, Elo scale")]


def _head_to_head(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    h2h = summary["head_to_head"]
    order = h2h["order"]
    if len(order) < 2:
        return []
    cells = {(c["a"], c["b"]): c for c in h2h["pairs"]}
    rows = []
    for a in order:
        row = [a]
        for b in order:
            c = cells.get((a, b))
            row.append(
                DASH
                if c is None
                else f"{pct(c['share'], 0)} ({span(c['low'], c['high'], 'pct', 0)})"
            )
        rows.append(row)
    return [
        h2("Head to head"),
        para(
            "Share of games in which the row strategy finished ahead of the column strategy, "
            "with its 95% interval."
        ),
        table(["", *order], rows),
        *_img(plots, "head_to_head", "Head-to-head heatmap"),
    ]


def _worms(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    rows = []
    for r in summary["standings"]:
        hist = summary["worm_histogram"].get(r["strategy"]) or []
        total = sum(hist)
        if not total:
            continue
        cum, median, p90 = 0, None, None
        for worms, c in enumerate(hist):
            cum += c
            if median is None and cum >= total / 2:
                median = worms
            if p90 is None and cum >= 0.9 * total:
                p90 = worms
        rows.append(
            [
                r["strategy"],
                num(r["worms"]),
                str(median),
                str(p90),
                str(max(i for i, c in enumerate(hist) if c)),
                pct(hist[0] / total),
            ]
        )
    return [
        h2("Worm scores"),
        table(["strategy", "mean", "median", "90th percentile", "best", "no worms"], rows),
        *_img(plots, "worms", "Worm-score distribution per strategy"),
    ]


def _seats(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    seats = summary["seats"]
    rows = [
        [
            f"seat {s['seat']}" + (" (starts)" if s["seat"] == 0 else ""),
            count(s["games"]),
            pct(s["share"]),
            span(s["low"], s["high"]),
            num(None if s["edge"] is None else s["edge"] * 100, 1, sign=True) + " pts",
        ]
        for s in seats["overall"]
    ]
    return [
        h2("Seat advantage"),
        para(
            f"Win share by seat over all games (fair share {pct(seats['fair_share'])}); the "
            "per-strategy split is in the chart."
        ),
        table(["seat", "games", "win share", "95% CI", "edge vs fair"], rows),
        *_img(plots, "seats", "Win share by seat"),
    ]


def _kind_label(kind: str) -> str:
    return f"{kind} (machine-dependent)" if kind == "time" else kind


def _forfeit_kinds(summary: dict[str, Any]) -> list[Block]:
    """Forfeits by kind; time forfeits apart, marked as depending on the machine."""
    kinds = summary.get("forfeit_kinds") or {}
    if not kinds.get("by_kind"):
        return []
    rows = [[_kind_label(k["kind"]), k["meaning"], count(k["games"])] for k in kinds["by_kind"]]
    blocks = [table(["kind", "what it is", "games"], rows)]
    if kinds.get("machine_dependent"):
        blocks.append(
            para(
                f"{count(kinds['machine_dependent'])} forfeit(s) were over a time limit: "
                "machine-dependent. Whether a decision takes longer than the limit depends "
                "on the speed and load of the machine that played it, so these games may "
                "end otherwise elsewhere; the other forfeits depend only on the strategies."
            )
        )
    return blocks


def _faults(summary: dict[str, Any]) -> list[Block]:
    out: list[Block] = []
    if summary["forfeits"]:
        rows = [
            [
                g["strategy"],
                _kind_label(g.get("kind", "unknown")),
                g["error"],
                count(g["count"]),
                "table {table}, deal {deal}, rotation {rotation}, seat {seat}, seed {seed}".format(
                    **g["example"]
                ),
            ]
            for g in summary["forfeits"]
        ]
        out += [h2("Forfeits"), *_forfeit_kinds(summary)]
        out.append(table(["strategy", "kind", "error", "games", "first example"], rows))
        if summary["forfeit_groups_dropped"]:
            out.append(
                para(f"{summary['forfeit_groups_dropped']} more forfeits with other errors.")
            )
    capped = summary["turn_capped"]
    if capped["total"]:
        rows = [
            [t, ", ".join(v["entrants"]) or DASH, count(v["games"])]
            for t, v in capped["by_table"].items()
        ]
        out += [
            h2("Unfinished games (turn cap)"),
            para(
                f"{count(capped['total'])} game(s) hit the turn cap and were left out of "
                "every statistic."
            ),
            table(["table", "entrants", "games"], rows),
        ]
    return out


# -- markdown and HTML -------------------------------------------------------------------
def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(blocks: list[Block], base: Path) -> str:
    """Markdown; images are linked relative to ``base`` (the report's folder)."""
    lines: list[str] = []
    for b in blocks:
        if b.kind == "h1":
            lines += [f"# {b.text}", ""]
        elif b.kind == "h2":
            lines += [f"## {b.text}", ""]
        elif b.kind == "p":
            lines += [b.text, ""]
        elif b.kind == "ul":
            lines += [f"- {item}" for item in b.items or []] + [""]
        elif b.kind == "table":
            header = b.header or []
            lines.append("| " + " | ".join(_md_cell(h) for h in header) + " |")
            lines.append("|" + "|".join("---" for _ in header) + "|")
            for row in b.rows or []:
                lines.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
            lines.append("")
        elif b.kind == "img" and b.path is not None:
            lines += [f"![{b.text}]({b.path.relative_to(base).as_posix()})", ""]
    return "\n".join(lines).rstrip() + "\n"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;border-bottom:2px solid #ddd;padding-bottom:.3em}
h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #eee;padding-bottom:.2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.3em .6em;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
tr:nth-child(even) td{background:#fafafa}
img{max-width:100%;height:auto;display:block;margin:1em 0}
ul{padding-left:1.3em}
"""


def to_html(blocks: list[Block], title: str) -> str:
    """One self-contained HTML page: inline style, plots embedded as base64 PNG."""
    esc = html.escape
    body: list[str] = []
    for b in blocks:
        if b.kind in ("h1", "h2"):
            body.append(f"<{b.kind}>{esc(b.text)}</{b.kind}>")
        elif b.kind == "p":
            body.append(f"<p>{esc(b.text)}</p>")
        elif b.kind == "ul":
            body.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in b.items or []) + "</ul>")
        elif b.kind == "table":
            head = "".join(f"<th>{esc(h)}</th>" for h in b.header or [])
            rows = "".join(
                "<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>"
                for row in b.rows or []
            )
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif b.kind == "img" and b.path is not None:
            data = base64.b64encode(b.path.read_bytes()).decode("ascii")
            body.append(f'<img alt="{esc(b.text)}" src="data:image/png;base64,{data}">')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


# -- comparisons -------------------------------------------------------------------------
def _verdict(cell: dict[str, Any]) -> str:
    if cell.get("p_holm") is None:
        return DASH
    return "yes" if cell["significant"] else "no"


def compare_blocks(comparison: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """A comparison of runs as blocks, in reading order."""
    runs = comparison["runs"]
    out = [h1("Runs compared: " + " vs ".join(f"{r['name']}/{r['run_id']}" for r in runs))]
    out.append(
        table(
            ["run", "folder", "rules", "players", "dice", "scored games"],
            [
                [
                    r["label"],
                    r["path"],
                    r["rules_text"],
                    str(r["players"]),
                    r["dice"],
                    count(r["games"]),
                ]
                for r in runs
            ],
        )
    )
    diffs = comparison["differences"]
    out.append(h2("What differs"))
    out.append(
        bullets(diffs) if diffs else para("Nothing: same rules, players, dice and entrants.")
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
    header = ["strategy", "run"]
    header += ["Δ win share", "95% CI", "significant", "Δ worms", "95% CI", "significant"]
    rows = []
    for s in comparison["strategies"]:
        for d in s["diffs"]:
            w, m = d["win_share"], d["worms"]
            rows.append(
                [
                    s["strategy"],
                    f"{d['run']} − {comparison['baseline']}",
                    num(None if w["diff"] is None else w["diff"] * 100, 1, sign=True) + " pts",
                    signed_span(w["low"], w["high"], 100, 1),
                    _verdict(w),
                    num(m["diff"], 2, sign=True),
                    signed_span(m["low"], m["high"], 1, 2),
                    _verdict(m),
                ]
            )
    out.append(table(header, rows))
    out += [image(plots[k], k) for k in ("compare", "compare_diffs") if k in plots]
    if comparison["head_to_head"]:
        out.append(h2("Shared head-to-head pairs"))
        header = ["A ahead of B"] + [f"{r['label']}" for r in runs]
        header += [f"{d} − {comparison['baseline']}" for d in [r["label"] for r in runs[1:]]]
        rows = []
        for p in comparison["head_to_head"]:
            row = [f"{p['a']} ahead of {p['b']}"]
            row += [f"{pct(v['share'])} ({span(v['low'], v['high'])})" for v in p["runs"]]
            row += [
                num(None if d["diff"] is None else d["diff"] * 100, 1, sign=True)
                + " pts"
                + (" *" if d.get("significant") else "")
                for d in p["diffs"]
            ]
            rows.append(row)
        out.append(table(header, rows))
        out.append(para("* significant after Holm correction."))
    if comparison["not_shared"]:
        out.append(
            para("Not in every run (left out): " + ", ".join(comparison["not_shared"]) + ".")
        )
    return out


def text_table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """Lines of a plain-text table for the terminal; the first ``left`` columns flush left."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(c).ljust(w) if i < left else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]
