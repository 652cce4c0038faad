"""Turning a run summary into ``report.md`` and a self-contained ``report.html``.

Both come from one list of blocks (heading, paragraph, list, table, image), so they
always say the same thing. The HTML embeds every plot as base64 PNG and carries its own
style: it opens from disk with no server and no network. Every text is written as text
in both: escaped for HTML or Markdown, its non-printing characters shown escaped.
"""

from __future__ import annotations

import base64
import html
import math
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import printable
from harness.report.order import config_order

DASH = "—"


# -- number formatting: None (an undefined number) is always a dash ----------------------
def pct(value: float | None, digits: int = 1) -> str:
    return DASH if value is None or math.isnan(value) else f"{value * 100:.{digits}f}%"


def num(value: float | None, digits: int = 2, sign: bool = False) -> str:
    if value is None or math.isnan(value):
        return DASH
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


# Every interval of every table (files and terminal) is written one way: ``low to high``,
# with the digits and sign of its estimate (``79.1 to 82.5%``, ``11.50 to 12.00``,
# ``+265 to +301``): a dash between two signed numbers (``-917–-884``) reads as a sign.
def span(low: float | None, high: float | None, fmt: str = "pct", digits: int | None = None) -> str:
    """An interval as ``low to high`` (``pct``: ``79.1 to 82.5%``; ``num``: ``11.50 to
    12.00``); a dash when undefined."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return DASH
    if fmt == "pct":
        d = 1 if digits is None else digits
        return f"{low * 100:.{d}f} to {high * 100:.{d}f}%"
    d = 2 if digits is None else digits
    return f"{num(low, d)} to {num(high, d)}"


def signed_span(low: float | None, high: float | None, scale: float, digits: int) -> str:
    """An interval of a signed figure (a difference, a rating), signs shown: ``-1.2 to
    +3.4``."""
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


def points(share: float | None) -> str:
    """A difference of shares in percentage points, signed: ``+1.2 pts``; a dash if undefined."""
    return DASH if share is None or math.isnan(share) else f"{share * 100:+.1f} pts"


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
    gauntlet = summary.get("gauntlet")
    if gauntlet:
        out += gauntlet_blocks(summary, plots)
    out += _standings(summary, plots)
    if not gauntlet:  # a gauntlet's field is not ranked: the challenger's table says it
        out += _convergence(summary, plots)
    out += _mirrors(summary)
    out += _ratings(summary, plots)
    out += _head_to_head(summary, plots)
    out += _worms(summary, plots)
    out += _seats(summary, plots)
    out += _luck(summary, plots)
    out += _speed(summary)
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
                *_reading_notes(summary),
            ]
        ),
    ]
    return out


def _reading_notes(summary: dict[str, Any]) -> list[str]:
    notes = []
    if summary.get("gauntlet"):
        notes.append(
            "Gauntlet: the challenger plays every table, the field only with the challenger. "
            "Its head to head with each opponent is the result; the field's order is by "
            "rating and indirect (measured through the challenger)."
        )
    if summary.get("mirrors"):
        notes.append(
            "Mirror match: one strategy (same reference, class, parameters and code) "
            "entered under two names. Its halves should agree: their difference's 95% "
            "interval holds 0 (their head to head's holds 50%) in 95% of runs."
        )
    return notes


def _timed_note(summary: dict[str, Any]) -> str:
    timed = (summary.get("forfeit_kinds") or {}).get("machine_dependent")
    return f", {count(timed)} of them on time: machine-dependent" if timed else ""


def _img(plots: dict[str, Path], name: str, alt: str) -> list[Block]:
    return [image(plots[name], alt)] if name in plots else []


def _standings(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    rated = summary["ratings"].get("model") is not None
    ranking = summary.get("ranking") or {}
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
            row += [num(r["elo"], 0, sign=True), signed_span(r["elo_low"], r["elo_high"], 1, 0)]
        row += [pct(r["bust_rate"]), num(r["steals"]), num(r["stolen"])]
        rows.append(row)
    notes = f"{summary['intervals']}. Bust rate is busts per turn played (R9); steals per "
    notes += "game made (R7) and suffered."
    if ranking.get("indirect"):
        return [
            h2("All entrants, by rating (an indirect ranking)"),
            para(ranking["note"]),
            table(header, rows),
            para(notes),
        ]
    return [
        h2("Standings"),
        table(header, rows),
        para(notes),
        *_img(plots, "standings", "Standings: win share and mean worms with 95% intervals"),
    ]


def gauntlet_blocks(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """The challenger against each opponent, and its overall rating."""
    g = summary["gauntlet"]
    who = g["challenger"]
    verdicts = {"ahead": "ahead", "behind": "behind", "open": "not separated", None: DASH}
    rows = [
        [
            o["opponent"],
            count(o["games"]),
            pct(o["share"]),
            span(o["low"], o["high"]),
            num(o["elo"], 0, sign=True),
            signed_span(o["elo_low"], o["elo_high"], 1, 0),
            los_text(o["los"]),
            verdicts[o["verdict"]] if o["games"] else "never met",
        ]
        for o in g["opponents"]
    ]
    rating = g["rating"]
    return [
        h2(f"Gauntlet: {who} against each opponent"),
        para(g["note"]),
        table(
            [
                "opponent",
                "games together",
                f"{who} ahead",
                "95% CI",
                "Elo difference",
                "95% CI",
                "LOS",
                "at 95%",
            ],
            rows,
        ),
        para(
            f"{who} overall: rating {num(rating['elo'], 0, sign=True)} Elo against the "
            f"field's average ({signed_span(rating['low'], rating['high'], 1, 0)}, 95%); "
            f"win share {pct(g['win_share'])} ({span(g['win_low'], g['win_high'])}) of "
            f"{count(g['games'])} games, fair share {pct(g['fair_share'])}."
        ),
        *_img(plots, "gauntlet", f"{who} against each opponent, with 95% intervals"),
    ]


def _mirrors(summary: dict[str, Any]) -> list[Block]:
    """Mirror matches: do the two halves of one strategy agree?"""
    mirrors = summary.get("mirrors") or []
    if not mirrors:
        return []
    rows = []
    for m in mirrors:
        share, h2h = m["share"], m["head_to_head"]
        rows.append(
            [
                f"{m['a']} / {m['b']}",
                DASH if share is None else points(share["diff"]),
                DASH if share is None else signed_span(share["low"], share["high"], 100, 1),
                DASH if share is None else _yes_no(share["holds_zero"]),
                DASH if h2h is None else f"{pct(h2h['share'])} of {count(h2h['games'])}",
                DASH if h2h is None else span(h2h["low"], h2h["high"]),
                DASH if h2h is None else _yes_no(h2h["holds_half"]),
                "yes (identical)"
                if m["identical"]
                else {True: "yes", False: "NO", None: DASH}[m["agree"]],
            ]
        )
    notes = [f"{m['a']} / {m['b']}: {m['share_note']}." for m in mirrors if m["share_note"]]
    notes += [
        f"{m['a']} / {m['b']}: {m['seat_order_note']}." for m in mirrors if m["seat_order_note"]
    ]
    return [
        h2("Mirror matches"),
        para(
            "The same strategy (reference, class, parameters and code digest) entered under "
            "two names. Its halves should agree: the difference of their win shares (first "
            "minus second, by deal of the run) and their head to head (first ahead of "
            "second; 50% is no difference), each with its 95% interval. With balanced "
            "seating both halves sit in every seat equally often, so seat advantage cancels."
        ),
        table(
            [
                "mirror",
                "Δ win share",
                "95% CI",
                "holds 0",
                "head to head",
                "95% CI",
                "holds 50%",
                "agree",
            ],
            rows,
        ),
        *([bullets(notes)] if notes else []),
    ]


def _yes_no(value: bool | None) -> str:
    return {True: "yes", False: "no", None: DASH}[value]


def _convergence(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    conv = summary["convergence"]
    if not conv["neighbours"]:
        return []
    rows = []
    for c in conv["neighbours"]:
        if c.get("mirror"):
            verdict = "a mirror pair (one strategy): not ranked"
        elif c["overlap"] is None:
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
                f"{c['places'][0]} and {c['places'][1]}",
                f"{c['upper']} / {c['lower']}",
                verdict,
                h2h,
                los_text(c["los"]),
            ]
        )
    mirrored = any(c.get("mirror") for c in conv["neighbours"])
    ranked = [c for c in conv["neighbours"] if not c.get("mirror")]
    if conv["settled"]:
        apart = " (mirror pairs apart)" if mirrored else ""
        head = f"Yes: every pair of neighbours{apart} is separated at 95%."
    elif ranked:
        head = "Not yet: some neighbours' 95% intervals of win share overlap."
    else:
        head = "Nothing to settle: the only neighbours are mirror pairs (one strategy)."
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
    order = config_order(summary["run"].get("entrants"), h2h["order"])  # as its heatmap
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
            points(s["edge"]),
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


def _luck(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """Luck and skill (docs/luck.md): the estimates raw and luck-adjusted, and each
    strategy's account; nothing when no game kept the account."""
    luck = summary.get("luck")
    if not luck:
        return []
    by_name = {r["strategy"]: r for r in summary["standings"]}
    rows = [r for r in luck["standings"] if r["games_accounted"] and r["strategy"] in by_name]
    estimates, account = [], []
    for r in rows:
        s = by_name[r["strategy"]]
        estimates.append(
            [
                r["strategy"],
                count(r["games_accounted"]),
                f"{pct(s['win_share'])} ({span(s['win_low'], s['win_high'])})",
                f"{pct(s['win_adj'])} ({span(s['win_adj_low'], s['win_adj_high'])})",
                _times(r["win_gain"]),
                f"{num(s['margin'], sign=True)} ({span(s['margin_low'], s['margin_high'], 'num')})",
                f"{num(s['margin_adj'], sign=True)} "
                f"({span(s['margin_adj_low'], s['margin_adj_high'], 'num')})",
                _times(r["margin_gain"]),
            ]
        )
        kinds = r["by_kind"]
        account.append(
            [
                r["strategy"],
                num(r["par_per_turn"], 3),
                num(r["luck_per_game"], 2, sign=True),
                num(r["regret_per_game"], 2),
                num(r["regret_per_turn"], 3),
                *(num(kinds[k]["regret_per_decision"], 3) for k in ("pick", "stop", "claim")),
                num(sum(kinds[k]["decisions_per_game"] or 0 for k in kinds), 1),
            ]
        )
    share = luck["accounted"]
    kept = (
        "every game kept the account"
        if share == 1
        else f"{pct(share)} of the games kept the account (the others enter unadjusted)"
    )
    return [
        h2("Luck and skill"),
        para(f"{luck['note']} Here {kept}."),
        table(
            [
                "strategy",
                "games",
                "win share",
                "luck-adjusted",
                "gain",
                "margin",
                "luck-adjusted",
                "gain",
            ],  # fmt: skip
            estimates,
        ),
        *_img(plots, "luck", "Luck and skill: win share raw and luck-adjusted, regret, luck"),
        table(
            [
                "strategy",
                "par/turn",
                "luck/game",
                "regret/game",
                "regret/turn",
                "regret/pick",
                "regret/stop",
                "regret/claim",
                "choices/game",
            ],  # fmt: skip
            account,
        ),
        para(
            "Margin: worms minus the mean of the other seats' worms. Par: what a turn was "
            "worth before its first roll. Regret per decision counts the decisions that "
            "offered a choice (two faces or more, a stop with dice left, two claims or more)."
        ),
    ]


def _times(value: float | None) -> str:
    return DASH if value is None else f"x{value:.1f}"


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


# -- how long the strategies took, and what they printed ---------------------------------
TIMING_HEADER = [
    "strategy",
    "decisions timed",
    "mean",
    "99th percentile",
    "per game",
    "CPU per game (its tables)",
]


def timing_rows(summary: dict[str, Any], *, timed_only: bool = False) -> list[list[str]]:
    """Each strategy's decision times (:data:`TIMING_HEADER`), in the standings' order;
    ``timed_only``: only the strategies whose decisions were timed (the terminal's)."""
    from harness.runfolder.timing import seconds_text

    rows = []
    for t in summary.get("timing") or []:
        if timed_only and not t["decisions"]:
            continue
        timed = bool(t["decisions"])
        rows.append(
            [
                t["strategy"],
                count(t["decisions"]) if timed else DASH,
                seconds_text(t["mean"]) if timed else DASH,
                seconds_text(t["p99"]) if timed else DASH,
                seconds_text(t["per_game"]) if timed else DASH,
                seconds_text(t["cpu_per_game"]),
            ]
        )
    return rows


def output_lines(summary: dict[str, Any]) -> list[str]:
    """Who wrote how much plugin output (print(), logging) to run.log; empty if nobody."""
    out = summary.get("output") or {}
    written = out.get("by_strategy") or {}
    if not written:
        return []
    parts = ", ".join(f"{name} {_size(chars)}" for name, chars in written.items())
    kept = _size(out.get("kept_per_chunk") or 0)
    line = f"Plugin output went to run.log, not the terminal: {parts}."
    if out.get("cut_chunks"):
        line += (
            f" run.log keeps the first {kept} of each chunk's output; "
            f"{count(out['cut_chunks'])} chunk(s) were cut there."
        )
    return [line]


def _size(chars: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("kB", 1 << 10)):
        if chars >= scale:
            return f"{chars / scale:.1f} {unit}"
    return f"{chars} characters"


def _speed(summary: dict[str, Any]) -> list[Block]:
    rows = timing_rows(summary)
    said = [para(line) for line in output_lines(summary)]
    if not any(t["decisions"] for t in summary.get("timing") or []):
        return [h2("Plugin output"), *said] if said else []
    out = [
        h2("Decision times"),
        para(
            "How long each strategy took to decide (pick, stop, claim), on the wall clock of "
            "the process that played it, in one game of 16 (the first of each chunk among "
            "them); the 99th percentile is within 12%. A wall clock counts a pause of the "
            "process too (a busy machine, garbage collection): a few such decisions can "
            "lift the mean above the 99th percentile. Built-ins are not timed (a dash: "
            "project code, played in C where they can be). CPU per game: the worker CPU per "
            "game of the tables the strategy sat at, every seat and the engine together."
        ),
        table(TIMING_HEADER, rows),
    ]
    return out + said


def reproduce_hint(summary: dict[str, Any], example: dict[str, Any]) -> str:
    """The command that plays a stored game again, narrated: ``harness tourney CONFIG
    --game TABLE:DEAL:SEATING`` (the game's coordinates alone for a config given as a
    mapping, from Python)."""
    where = f"{example['table']}:{example['deal']}:{example['seating']}"
    config = summary["run"].get("config_file")
    if not isinstance(config, str) or not config or config.startswith("<"):
        return f"--game {where} (of the config this run was played with)"
    return shlex.join(["harness", "tourney", config, "--game", where])


def forfeit_rows(summary: dict[str, Any]) -> list[list[str]]:
    """The forfeits by strategy, kind and cause: one row each, with how many games, how
    many distinct messages and one command to play one of them again."""
    rows = []
    for g in summary["forfeits"]:
        messages = g.get("messages") or 1
        rows.append(
            [
                g["strategy"],
                _kind_label(g.get("kind", "unknown")),
                g.get("detail") or g["error"],
                count(g["count"]),
                f"{messages}+" if messages >= 100 else str(messages),
                reproduce_hint(summary, g["example"]),
            ]
        )
    return rows


FORFEIT_HEADER = ["strategy", "kind", "error (the first)", "games", "messages", "play one again"]


def _faults(summary: dict[str, Any]) -> list[Block]:
    out: list[Block] = []
    if summary["forfeits"]:
        out += [h2("Forfeits"), *_forfeit_kinds(summary)]
        out.append(
            para(
                "Grouped by strategy, kind and cause: messages that differ only in their "
                "numbers (the turn, the face, a key) are one cause; 'messages' counts the "
                "distinct ones."
            )
        )
        out.append(table(FORFEIT_HEADER, forfeit_rows(summary)))
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
# Markdown that text written by a plugin or a user (display names, exception texts, run
# names) could start: escaped, so that it is shown as written and never rendered as a
# link, an image, emphasis, math, a table cell or HTML (report.md is read in viewers that
# render HTML: a backslash before the "<" of a tag, a comment or an autolink makes it
# text). The report's own text uses none of it ("<0.1%", "p < 0.05" are no tags).
_MD_INLINE = re.compile(r"([\\`*_\[\]|~$#]|<(?=[A-Za-z/!?]))")
_MD_ENTITY = re.compile(r"&(?=#?\w+;)")  # "&lt;" would show as "<": shown as typed
# A quote, a list item, a heading underline or a rule at a line's start:
_MD_BLOCK = re.compile(r"^(\s*)(>|[-+=]+(?=\s|$)|\d+[.)](?=\s|$))")


def _md(text: str, line_start: bool = True) -> str:
    """Plain text as Markdown that shows exactly it (see the escapes above);
    ``line_start`` False for a table cell, which no block marker can start."""
    text = _MD_INLINE.sub(r"\\\1", _MD_ENTITY.sub("&amp;", printable(text)))
    return _MD_BLOCK.sub(_unmarked, text) if line_start else text


def _unmarked(found: re.Match[str]) -> str:
    marker = found.group(2)
    if marker[0].isdigit():  # "1." -> "1\.": the number stays, the list does not
        return found.group(1) + marker[:-1] + "\\" + marker[-1]
    return found.group(1) + "".join("\\" + c for c in marker)


def to_markdown(blocks: list[Block], base: Path) -> str:
    """Markdown; images are linked relative to ``base`` (the report's folder)."""
    lines: list[str] = []
    for b in blocks:
        if b.kind == "h1":
            lines += [f"# {_md(b.text)}", ""]
        elif b.kind == "h2":
            lines += [f"## {_md(b.text)}", ""]
        elif b.kind == "p":
            lines += [_md(b.text), ""]
        elif b.kind == "ul":
            lines += [f"- {_md(item)}" for item in b.items or []] + [""]
        elif b.kind == "table":
            header = b.header or []
            lines.append("| " + " | ".join(_md(h, False) for h in header) + " |")
            lines.append("|" + "|".join("---" for _ in header) + "|")
            for row in b.rows or []:
                lines.append("| " + " | ".join(_md(c, False) for c in row) + " |")
            lines.append("")
        elif b.kind == "img" and b.path is not None:
            lines += [f"![{_md(b.text)}]({b.path.relative_to(base).as_posix()})", ""]
    return "\n".join(lines).rstrip() + "\n"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1300px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;border-bottom:2px solid #ddd;padding-bottom:.3em}
h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #eee;padding-bottom:.2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.82em}
th,td{border:1px solid #ddd;padding:.22em .42em;text-align:right;white-space:nowrap}
th.t,td.t{text-align:left}
.wide{overflow-x:auto;max-width:100%}
th{background:#f4f4f4}
tr:nth-child(even) td{background:#fafafa}
img{max-width:100%;height:auto;display:block;margin:1em 0}
ul{padding-left:1.3em}
"""


# A cell that reads as a number: a figure, a signed one, a share, a count; a dash.
_NUMBER_CELL = re.compile(r"^(—|[<>]?[+\-−]?\d[\d,]*(\.\d+)?.*)$")


def _text_columns(header: list[str], rows: list[list[str]]) -> list[bool]:
    """Which columns hold words (flush left, as text is read), not figures (flush right,
    so that digits line up): the first column always, then any with a cell that does not
    start as a number."""
    return [
        i == 0 or any(not _NUMBER_CELL.match(str(row[i])) for row in rows if i < len(row))
        for i in range(len(header))
    ]


def to_html(blocks: list[Block], title: str) -> str:
    """One self-contained HTML page: inline style, plots embedded as base64 PNG."""

    def esc(text: str) -> str:
        return html.escape(printable(text))

    body: list[str] = []
    for b in blocks:
        if b.kind in ("h1", "h2"):
            body.append(f"<{b.kind}>{esc(b.text)}</{b.kind}>")
        elif b.kind == "p":
            body.append(f"<p>{esc(b.text)}</p>")
        elif b.kind == "ul":
            body.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in b.items or []) + "</ul>")
        elif b.kind == "table":
            text = _text_columns(b.header or [], b.rows or [])
            head = "".join(
                f"<th{' class=t' if text[i] else ''}>{esc(h)}</th>"
                for i, h in enumerate(b.header or [])
            )
            rows = "".join(
                "<tr>"
                + "".join(
                    f"<td{' class=t' if text[i] else ''}>{esc(c)}</td>" for i, c in enumerate(row)
                )
                + "</tr>"
                for row in b.rows or []
            )
            # In a scrolling box: a wide table scrolls instead of wrapping its cells.
            body.append(
                f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
                f"<tbody>{rows}</tbody></table></div>"
            )
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


def compare_blocks(comparison: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """A comparison of runs as blocks, in reading order."""
    runs = comparison["runs"]
    base = comparison["baseline"]
    out = [h1("Runs compared: " + " vs ".join(f"{r['name']}/{r['run_id']}" for r in runs))]
    out.append(
        table(
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
    )
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
        out.append(h2("Shared head-to-head pairs"))
        out.append(
            para(
                "The share of the games the two met in which the first finished ahead of the "
                "second (a tie counts half), per run, and each run's change from "
                f"{base}: paired where the runs played the same games, as the rows above."
            )
        )
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
        out.append(table(header, rows))
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


def standings_lines(summary: dict[str, Any]) -> list[str]:
    """The terminal's standings of a report.

    A round robin: the field ranked by win share. A gauntlet: the challenger against each
    opponent (the report's own table) and then every entrant by rating, labelled as an
    indirect order and with no rank column: the field's win shares are taken against
    different opponents, so a place would claim what the games cannot show.
    """
    # The report's own gauntlet section: the terminal says what report.md says.
    ranking = summary.get("ranking") or {}
    indirect = bool(ranking.get("indirect"))
    out: list[str] = []
    if summary.get("gauntlet") is not None:
        blocks = gauntlet_blocks(summary, {})
        # Heading, then the table, then its notes (the overall rating, what LOS means).
        for kind in ("h2", "table", "p"):
            for block in (b for b in blocks if b.kind == kind):
                if kind == "h2":
                    out.append(f"{block.text}:")
                elif kind == "table" and block.header and block.rows is not None:
                    out += ["  " + line for line in text_table(block.header, block.rows)]
                elif kind == "p" and block.text:
                    out.append(f"  {block.text}")
    header = ["strategy", "games", "win share", "95% CI", "worms", "Elo", "95% CI"]
    rows = [
        [
            r["strategy"],
            f"{r['games']:,}",
            pct(r["win_share"]),
            span(r["win_low"], r["win_high"]),
            num(r["worms"]),
            num(r["elo"], 0, sign=True),
            signed_span(r.get("elo_low"), r.get("elo_high"), 1, 0),
        ]
        for r in summary["standings"]
    ]
    if indirect:
        out.append(f"All entrants, by {ranking.get('by') or 'rating'} (indirect):")
        out += ["  " + line for line in text_table(header, rows)]
    else:
        ranked = [
            [str(r["place"]), *row] for r, row in zip(summary["standings"], rows, strict=True)
        ]
        out += ["  " + line for line in text_table(["#", *header], ranked, left=2)]
    return out
