"""A run's report as page blocks, and the rows the terminal shows of it.

:func:`report_blocks` is the whole report of one run, in reading order, from its summary
(:mod:`harness.report.summaries.summary`) and its charts; :func:`gauntlet_blocks` the
gauntlet's part.
The timing and output rows, :func:`reproduce_hint` and :func:`standings_lines` are shared
with the terminal (``harness tourney``, ``harness report``), so the two never say
different things.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from harness.errors import plural
from harness.report.order import config_order
from harness.report.pages.adaptive import adaptive_blocks
from harness.report.pages.formats import (
    DASH,
    count,
    estimate,
    los_text,
    num,
    pct,
    points,
    signed_span,
    span,
)
from harness.report.pages.page import (
    Block,
    bullets,
    fit_table,
    h1,
    h2,
    image,
    para,
    table,
    terminal_width,
    wrap,
)
from harness.report.pages.standings_text import (
    adjusted_on,
    luck_cells,
    luck_note,
    rows_of_summary,
    standings_text,
)


# -- the report --------------------------------------------------------------------------
def report_blocks(summary: dict[str, Any], plots: dict[str, Path]) -> list[Block]:
    """The whole report as blocks, in reading order."""
    run, games = summary["run"], summary["games"]
    out = [h1(f"Tournament report: {run['name']} / {run['run_id']}")]
    out.append(
        para(
            f"Rules: {run['rules_text']}. Format: {run.get('format') or DASH}, "
            f"{plural(games['tables'], 'table')}, {run['dice']} dice, seed "
            f"{run.get('seed', DASH)}, harness {run.get('version') or DASH}. Games: "
            f"{count(games['stored'])} stored, {count(games['scored'])} scored "
            f"({plural(games['forfeit'], 'forfeit')}"
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
    out += adaptive_blocks(summary)
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
    lucky = any(r.get("win_adj") is not None for r in summary["standings"])
    header = ["#", "strategy", "games", "win share", "95% CI"]
    header += ["luck-adjusted", "95% CI", "adj. on"] if lucky else []
    header += ["mean worms", "95% CI", "mean rank"]
    header += ["rating (Elo)", "95% CI"] if rated else []
    header += ["bust rate", "steals/game", "stolen/game"]
    rows = []
    for r in summary["standings"]:
        row = [
            str(r["place"]),
            r["strategy"],
            count(r["games"]),
            pct(r["win_share"]),
            span(r["win_low"], r["win_high"]),
            *(luck_cells(r) if lucky else []),
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
    said = luck_note(summary["standings"])
    notes += f" {said[0].upper()}{said[1:]}" if said else ""
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
                "games",
                "share ahead",
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
            f"{plural(g['games'], 'game')}, fair share {pct(g['fair_share'])}."
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
                count(s["games"]),
                adjusted_on(s),
                estimate(s["win_share"], s["win_low"], s["win_high"], "pct"),
                estimate(s["win_adj"], s["win_adj_low"], s["win_adj_high"], "pct"),
                _times(r["win_gain"]),
                estimate(s["margin"], s["margin_low"], s["margin_high"], sign=True),
                estimate(s["margin_adj"], s["margin_adj_low"], s["margin_adj_high"], sign=True),
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
        else f"{pct(share)} of the games kept the account: each estimate is over all of "
        "the strategy's games (games), of which those that kept the account are adjusted "
        "(adj. on: their share), the others enter as played; the account figures below "
        "are over the games that kept it"
    )
    return [
        h2("Luck and skill"),
        para(f"{luck['note']} Here {kept}."),
        table(
            [
                "strategy",
                "games",
                "adj. on",
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
                f"Over a time limit: {plural(kinds['machine_dependent'], 'forfeit')}, "
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


def timing_notes(summary: dict[str, Any]) -> list[str]:
    """A sentence for each timed strategy whose mean decision time is above its 99th
    percentile: fewer than 1 decision in 100 was that slow, so a few very slow ones
    lifted the mean (the terminal and the report say it where it happens)."""
    from harness.runfolder.timing import seconds_text

    out = []
    for t in summary.get("timing") or []:
        mean, p99 = t.get("mean"), t.get("p99")
        if not t.get("decisions") or mean is None or p99 is None or mean <= p99:
            continue
        out.append(
            f"{t['strategy']}: the mean decision ({seconds_text(mean)}) is above the 99th "
            f"percentile ({seconds_text(p99)}): a few very slow decisions (fewer than 1 in "
            "100) lift the mean; on the wall clock a pause of the process (a busy machine, "
            "garbage collection) counts as well as the bot's own slow moves."
        )
    return out


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
            f"cut there: {plural(out['cut_chunks'], 'chunk')}."
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
    notes = timing_notes(summary)
    return out + ([bullets(notes)] if notes else []) + said


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
                f"Unfinished at the turn cap: {plural(capped['total'], 'game')}, left out of "
                "every statistic."
            ),
            table(["table", "entrants", "games"], rows),
        ]
    return out


def standings_lines(summary: dict[str, Any], width: int | None = None) -> list[str]:
    """The terminal's standings of a report, in ``width`` columns (default: the
    terminal's; :func:`~harness.report.pages.standings_text.standings_text`, the table
    ``harness tourney`` prints too).

    A round robin: the field ranked by win share. A gauntlet: the challenger against each
    opponent (the report's own table) and then every entrant by rating, labelled as an
    indirect order and with no rank column: the field's win shares are taken against
    different opponents, so a place would claim what the games cannot show.
    """
    width = terminal_width() if width is None else width
    ranking = summary.get("ranking") or {}
    out: list[str] = []
    if summary.get("gauntlet") is not None:
        # The report's own gauntlet section: the terminal says what report.md says; its
        # heading, then the table, then its notes (the overall rating, what LOS means).
        blocks = gauntlet_blocks(summary, {})
        for block in (b for b in blocks if b.kind == "h2"):
            out.append(f"{block.text}:")
        for block in (b for b in blocks if b.kind == "table" and b.header and b.rows):
            lines = fit_table(block.header, block.rows, width - 2, groups=_ci_pairs(block))
            out += [f"  {line}" if line else "" for line in lines]
        for block in (b for b in blocks if b.kind == "p" and b.text):
            out += wrap(block.text, width, "  ")
    rows = rows_of_summary(summary)
    if ranking.get("indirect"):
        out.append(f"All entrants, by {ranking.get('by') or 'rating'} (indirect):")
        lines = standings_text(rows, width - 2, ranked=False, said=width)
        out += [f"  {line}" if line else "" for line in lines]
    else:
        out += standings_text(rows, width)
    return out


def _ci_pairs(block: Block) -> list[list[int]]:
    """A table's estimate-and-interval pairs (an interval column follows its estimate):
    kept together when a terminal table is cut to fit."""
    header = block.header or []
    return [[i - 1, i] for i, h in enumerate(header) if i and h == "95% CI"]
