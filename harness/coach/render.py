"""The coach's and the diff's answers for people: the terminal, Markdown and HTML.

Markdown and HTML are made from one list of blocks with the report's own helpers
(:mod:`harness.report.pages.render`: the same page style, number formats and writers), so the
two files always say the same thing; the terminal prints the same rows in 80 columns.
The examples' game records are written beside them (``examples/``), each playable
again (``harness replay``) and analysable (``harness analyze game``).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.coach.situations import BAND_PLURALS, KIND_NAMES
from harness.errors import plural
from harness.jsonsafe import json_safe
from harness.report.files import write_text_atomic
from harness.report.pages.render import (
    DASH,
    Block,
    bullets,
    h1,
    h2,
    num,
    para,
    pct,
    table,
    text_table,
    to_html,
    to_markdown,
)

WIDTH = 80

#: The words of each unit an answer is in (its ``unit``; an answer without one: worms).
UNIT_TEXT: dict[str, dict[str, str]] = {
    "worms": {
        "short": "worms",
        "title": "Worms",
        "payoff": "the turn's worm swing",
        "regret": "in worms of swing (your worms gained, a steal's loss to its victim, "
        "minus your top tile on a bust)",
        "gain": "worms of swing",
    },
    "win": {
        "short": "win chance",
        "title": "Chance to win",
        "payoff": "the chance to win the game (each way the turn can end valued by "
        "harness.winprob's evaluator, exact at the game's end)",
        "regret": "in the chance to win the game (each way the turn can end valued by the "
        "turn-taker's chance to win from the position it leaves: harness.winprob's "
        "evaluator, exact at the game's end; 0.01 is one point of win share)",
        "gain": "chance to win (an estimate of the difference in win share)",
    },
}


def unit_text(data: dict[str, Any]) -> dict[str, str]:
    """The words of the answer's unit."""
    return UNIT_TEXT[data.get("unit", "worms")]


def _ci(cell: dict[str, Any], digits: int = 2) -> str:
    low, high = cell.get("low"), cell.get("high")
    if low is None or high is None:
        return DASH
    return f"{num(low, digits)} to {num(high, digits)}"


def _est(cell: dict[str, Any], digits: int = 2, sign: bool = False) -> str:
    return num(cell.get("estimate"), digits, sign=sign)


def _share(cell: dict[str, Any]) -> str:
    return pct(cell.get("estimate"))


def _kind(kind: str) -> str:
    return KIND_NAMES.get(kind, "all decisions")


def _setting(data: dict[str, Any], who: str) -> str:
    games = data["games"] if isinstance(data["games"], int) else sum(data["games"].values())
    forfeits = (
        data["forfeits"] if isinstance(data["forfeits"], int) else sum(data["forfeits"].values())
    )
    played = f"{games + forfeits:,} games ({games:,} completed)" if forfeits else f"{games:,} games"
    limits = _limits(data.get("seat_settings") or {})
    return (
        f"{played}: {data['deals']:,} duplicate deals of {who} against "
        f"{', '.join(data['opponents'])}, {data['rules_text']}, every seat "
        f"order, seed {data['seed']}, {data['engine']} engine{limits}, "
        f"{data['cpu_seconds']:.1f} CPU-s."
    )


def _limits(settings: dict[str, Any]) -> str:
    """The seat limits in force, for the setting's line (nothing when there are none)."""
    words = [f"{key.replace('_', ' ')} {settings[key]:g} s" for key in ("move_time", "game_time")
             if settings.get(key) is not None]  # fmt: skip
    if settings.get("isolation", "none") != "none":
        words.append(f"isolation {settings['isolation']}")
    return f" ({', '.join(words)})" if words else ""


_ROLE = {"bot": "the bot", "opponent": "an opponent", "none": "no seat"}


def forfeit_lines(data: dict[str, Any], who: Callable[[dict[str, Any]], str]) -> list[str]:
    """The forfeits, for people: what the figures are computed from, then one line per
    (strategy, kind) with its count and its first game's line. Empty without forfeits."""
    if not data["forfeited"]:
        return []
    lines = [f"Forfeits: {data['figures_from']}."]
    for r in data["forfeited"]:
        lines.append(f"{who(r)}: {plural(r['games'], 'game')}, {r['kind']}; first: {r['example']}")
    return lines


def output_lines(data: dict[str, Any], path: str | None) -> list[str]:
    """What the bots wrote, for people: characters by strategy and where the lines are
    (None: not written yet). Empty when no bot wrote anything."""
    found = data.get("plugin_output") or {}
    by = found.get("by_strategy") or {}
    if not by:
        return []
    who = ", ".join(f"{name} {chars:,}" for name, chars in by.items())
    where = f"; the lines are in {path}" if path else ""
    cut = " (cut: the first ones only)" if found.get("cut") else ""
    return [f"The bots' output (characters written, by strategy): {who}{where}{cut}."]


# -- the coach -----------------------------------------------------------------------------
def kind_table(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    lost = f"{unit_text(data)['short']} lost/game"
    header = ["decision", "per game", lost, "95% CI", "end game", "not best"]
    header += list(BAND_PLURALS)
    rows = []
    for r in data["kinds"]:
        rows.append(
            [
                _kind(r["kind"]),
                _est(r["decisions_per_game"], 1),
                _est(r["loss_per_game"], 3),
                _ci(r["loss_per_game"], 3),
                _est(r["end_game_loss_per_game"], 3),
                _share(r["not_best"]),
                *(f"{r[n]:,}" for n in BAND_PLURALS),
            ]
        )
    return header, rows


def phases(data: dict[str, Any]) -> str:
    """The loss per game before the end game and in it (a turn-optimal bot loses nothing
    before it: ties only)."""
    every = data["kinds"][-1]
    loss = every["loss_per_game"]["estimate"] or 0.0
    end = every["end_game_loss_per_game"]["estimate"] or 0.0
    return (
        f"Before the end game {data['bot']} loses {loss - end:.4f} "
        f"{unit_text(data)['short']} per game to its decisions, in the end game (4 grill "
        f"tiles or fewer) {end:.4f}."
    )


def band_table(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    regret = "regret (worms)" if data.get("unit", "worms") == "worms" else "regret (chance)"
    header = ["band", regret, "decisions", "per game", "95% CI", "of decisions"]
    rows = []
    for r in data["band_counts"]:
        below = r["below"]
        span = f">= {r['from']:g}" if below is None else f"{r['from']:g} to {below:g}"
        rows.append(
            [r["band"], span, f"{r['count']:,}", _est(r["per_game"], 2), _ci(r["per_game"], 2),
             _share(r["rate"])]
        )  # fmt: skip
    return header, rows


def situation_table(rows: list[dict[str, Any]], moves: tuple[str, str], value: str) -> Block:
    header = ["#", "decision", "dice", "roll", "total", "set aside", "in reach", "at risk"]
    header += ["phase", moves[0], moves[1], "times", f"mean {value}", f"{value}/game"]
    cells = []
    for n, r in enumerate(rows, 1):
        first, second = (r["did"], r["better"]) if "did" in r else (r["a"], r["b"])
        mean = r["mean_regret"] if "mean_regret" in r else r["mean_gain"]
        per = r["loss_per_game"] if "loss_per_game" in r else r["gain_per_game"]
        cells.append(
            [
                str(n), KIND_NAMES[r["kind"]], str(r["dice"]), r["roll"], str(r["total"]),
                r["set_aside"], r["in_reach"], r["at_risk"], "end game" if r["end_game"] else "",
                first, second, f"{r['count']:,}", num(mean, 3), num(per, 4),
            ]
        )  # fmt: skip
    return table(header, cells)


def _example_text(e: dict[str, Any], record: str, what: str) -> str:
    seats = ", ".join(e["seats"])
    kind = KIND_NAMES[e["kind"]]
    where = (
        f"Deal {e['deal']}, seat order {e['seating']} ({seats}), turn {e['turn']}, seat "
        f"{e['seat']}: {kind} with {e['dice']} {'die' if e['dice'] == 1 else 'dice'}"
        f" {'rolled' if e['kind'] == 'pick' else 'left'}, total {e['total']} "
        f"({e['set_aside']} set aside), grill {_tiles(e['grill'])}, tops "
        f"{' '.join(str(t or '-') for t in e['tops'])}. {what}"
    )
    return (
        f"{where} Record: {record} (`harness analyze game {record}`, `harness replay "
        f"{record}`); the roll: `{e['analyze']}`; the game told: `{e['play']}`."
    )


def numbered(items: list[str], after: list[str] | None = None) -> list[str]:
    """Items numbered from 1, each wrapped at 80 columns (its continuation indented), each
    followed by its line of ``after`` (indented) where given."""
    out = []
    for n, item in enumerate(items, 1):
        out += textwrap.wrap(f"{n:>2}. {item}", WIDTH, subsequent_indent="    ")
        if after is not None:
            out.append(f"    {after[n - 1]}")
    return out


def example_lines(items: list[str], records: list[str]) -> list[str]:
    """The examples, numbered, each with the command that shows it in its game."""
    if not records:
        return []
    commands = [f"harness analyze game {record}" for record in records]
    return ["", "Examples (played again, with their records):", *numbered(items, commands)]


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n:,} times"


def _tiles(tiles: list[int]) -> str:
    from harness.analysis.board import tile_ranges

    return tile_ranges(tiles)


def coach_blocks(data: dict[str, Any], records: list[str]) -> list[Block]:
    bot = data["bot"]
    u = unit_text(data)
    worms = data.get("unit", "worms") == "worms"
    out = [h1(f"Coach: {bot}")]
    out.append(
        para(
            _setting(data, bot) + f" Every decision of {bot} with a choice is valued exactly "
            f"against the best option for {u['payoff']} (docs/coach.md)."
        )
    )
    out += _trouble_blocks(data, _coach_who(bot))
    out.append(h2(f"{u['title']} lost per game, by kind of decision"))
    out.append(table(*kind_table(data)))
    end_game = (
        "where playing for the win may rightly cost worms"
        if worms
        else "judged for the win like every other decision"
    )
    out.append(
        para(
            phases(data) + f" {u['title']} lost per game: the sum of the regrets per game "
            "(95% interval by deal). "
            f"End game: the part of it taken with 4 grill tiles or fewer, {end_game}. Not "
            "best: the share of decisions whose regret exceeds a tie."
        )
    )
    out.append(h2("How often, and how badly"))
    out.append(table(*band_table(data)))
    rows = data["situations"]
    out.append(h2(f"Costliest recurring situations ({data['situation_count']:,} in all)"))
    if rows:
        out.append(situation_table(rows, ("did", "better"), "regret"))
    else:
        out.append(para(f"None: {bot} never gave up more than a tie."))
    if data["examples"]:
        out.append(h2("Example positions"))
        items = []
        for e, record in zip(data["examples"], records, strict=True):
            best = next(o["value"] for o in e["options"] if o["move"] == e["best"])
            chosen = next(o["value"] for o in e["options"] if o["move"] == e["chosen"])
            what = (
                f"{bot} chose to {e['did']} ({chosen:+.3f}); better: {e['better']} "
                f"({best:+.3f}), a regret of {e['regret']:.4f} {u['short']}."
            )
            items.append(_example_text(e, record, what))
        out.append(bullets(items))
    bands = data["bands"]
    out.append(h2("How to read this"))
    out.append(
        bullets(
            [
                "Regret: the exact value of the best option minus that of the option "
                f"chosen, {u['regret']}, under best play for the rest of the turn. "
                "It sums: a turn's result is its par, plus the luck of its rolls, minus its "
                "regrets (docs/luck.md).",
                f"Bands: inaccuracy from {bands['inaccuracy']:g} {u['short']}, mistake from "
                f"{bands['mistake']:g}, blunder from {bands['blunder']:g} (docs/coach.md says "
                "why); below the first, a decision is counted in the losses but not flagged.",
                "A situation is the kind of decision, the dice, the total set aside and its "
                "faces, what a stop would take now (in reach), your top tile (at risk), the "
                "phase, what was done and the better move; the table ranks them by the "
                f"{u['short']} they cost in all.",
                "optimal loses nothing outside its end game (ties only); in its end game it "
                "plays for the chance to win, not for worms, so the swing's regret there is "
                "what playing to win costs in worms, not a mistake."
                if worms
                else "win-optimal plays every turn for this payoff and loses nothing (ties "
                "only); before the game's end the evaluator is approximate, so a regret is "
                "measured against its judgement of each ending (docs/coach.md).",
            ]
        )
    )
    return out


def coach_lines(data: dict[str, Any], records: list[str]) -> list[str]:
    """The terminal's answer (80 columns)."""
    bot = data["bot"]
    out = textwrap.wrap(f"Coach: {bot}. " + _setting(data, bot), WIDTH)
    out += _forfeit_text(data, _coach_who(bot))
    title = unit_text(data)["title"]
    out += ["", f"{title} lost per game (regret against the turn optimum; 95% CI by deal):"]
    header, rows = kind_table(data)
    header[2] = "lost/game"
    keep = [0, 1, 2, 3, 4, 5]  # decision, per game, lost, CI, end game, not best
    out += ["  " + line for line in text_table([header[i] for i in keep],
                                               [[r[i] for i in keep] for r in rows])]  # fmt: skip
    out += textwrap.wrap(phases(data), WIDTH)
    header, rows = band_table(data)
    out += ["", "Errors by band (decisions with a choice):"]
    out += ["  " + line for line in text_table(header, rows)]
    sits = data["situations"]
    out += ["", f"Costliest recurring situations ({data['situation_count']:,} in all):"]
    if not sits:
        out.append(f"  none: {bot} never gave up more than a tie")
    out += numbered(
        [
            f"{r['describe']}: {_times(r['count'])}, mean regret {r['mean_regret']:.4f}, "
            f"{r['loss_per_game']:.4f}/game; did {r['did']}, better {r['better']}"
            for r in sits
        ]
    )
    out += example_lines(
        [
            f"deal {e['deal']}, turn {e['turn']}, seat {e['seat']}: {e['did']} instead of "
            f"{e['better']} (regret {e['regret']:.4f})"
            for e in data["examples"]
        ],
        records,
    )
    out += _trouble_lines(data)
    return out


def _coach_who(bot: str) -> Callable[[dict[str, Any]], str]:
    def who(r: dict[str, Any]) -> str:
        if r["role"] == "none":
            return "no seat (its process died outside any call)"
        return f"{r['strategy']} ({'the bot' if r['role'] == 'bot' else 'an opponent'})"

    return who


def _diff_who(r: dict[str, Any]) -> str:
    where = f"in {r['games_of']}'s games"
    if r["role"] == "none":
        return f"no seat {where} (its process died outside any call)"
    return f"{r['strategy']} ({_ROLE[r['role']]}, {where})"


def _trouble_blocks(data: dict[str, Any], who: Callable[[dict[str, Any]], str]) -> list[Block]:
    """The forfeits, the bots' output and the notes, for the pages (nothing if none)."""
    out: list[Block] = []
    lines = forfeit_lines(data, who)
    if lines:
        out += [h2("Forfeits"), para(lines[0]), bullets(lines[1:])]
    said = output_lines(data, "output.log") + [f"Note: {n}." for n in data.get("notes", [])]
    if said:
        out.append(bullets(said))
    return out


def _forfeit_text(data: dict[str, Any], who: Callable[[dict[str, Any]], str]) -> list[str]:
    """The forfeits for the terminal (after the setting), wrapped at 80 columns."""
    out: list[str] = []
    lines = forfeit_lines(data, who)
    if lines:
        out += ["", *textwrap.wrap(lines[0], WIDTH)]
        for line in lines[1:]:
            out += textwrap.wrap(line, WIDTH, initial_indent="  ", subsequent_indent="    ")
    return out


def _trouble_lines(data: dict[str, Any]) -> list[str]:
    """The bots' output and the notes for the terminal (at the end), in 80 columns."""
    out: list[str] = []
    path = data.get("files", {}).get("output")
    for line in output_lines(data, path) + [f"Note: {n}." for n in data.get("notes", [])]:
        out += ["", *textwrap.wrap(line, WIDTH)]
    return out


# -- the diff ------------------------------------------------------------------------------
def gain_table(data: dict[str, Any], games: str | None = None) -> tuple[list[str], list[list[str]]]:
    header = ["games", "decision", "questions", "partings", "part rate", "B's gain/game",
              "95% CI", "gained", "lost"]  # fmt: skip
    rows = []
    d = 3  # 80 columns on a terminal: the verdict line gives the estimate to 4 digits
    for r in data["gains"]:
        if games is not None and r["games"] != games:
            continue
        rows.append(
            [r["games"], _kind(r["kind"]), f"{r['asked']:,}", f"{r['parted']:,}",
             _share(r["part_rate"]), _est(r["gain_per_game"], d, sign=True),
             _ci(r["gain_per_game"], d), _est(r["gained_per_game"], d, sign=True),
             _est(r["lost_per_game"], d, sign=True)]
        )  # fmt: skip
    return header, rows


def _verdict_text(data: dict[str, Any]) -> str:
    v = data["verdict"]
    if not v["partings"]:
        return f"{data['a']} and {data['b']} never decide differently on these deals."
    digits = 4 if data.get("unit", "worms") == "win" else 3
    return (
        f"B ({data['b']}) against A ({data['a']}): {_est(v, digits, sign=True)} "
        f"{unit_text(data)['gain']} per game (95% CI {_ci(v, digits)}, "
        f"{v['partings']:,} partings): {v['says']}."
    )


def diff_blocks(data: dict[str, Any], records: list[str]) -> list[Block]:
    out = [h1(f"Diff: A = {data['a']}, B = {data['b']}")]
    out.append(para(_setting(data, "A and B")))
    out.append(para(_verdict_text(data)))
    out += _trouble_blocks(data, _diff_who)
    out.append(h2("Where they part, and what it is worth"))
    out.append(table(*gain_table(data)))
    for gains, title in ((True, "Where B gains most"), (False, "Where B loses most")):
        rows = data["where_b_gains" if gains else "where_b_loses"]
        out.append(h2(title))
        if rows:
            out.append(situation_table(rows, ("A does", "B does"), "gain"))
        else:
            out.append(para("Nowhere."))
    if data["examples"]:
        out.append(h2("Example positions"))
        items = []
        for e, record in zip(data["examples"], records, strict=True):
            what = (
                f"A chooses to {e['a']} ({e['a_value']:+.3f}), B to {e['b']} "
                f"({e['b_value']:+.3f}), valued under {e['valued_with']}'s play of the rest of "
                f"the turn: B gains {e['gain']:+.4f} {unit_text(data)['short']} (in "
                f"{e['side']}'s games)."
            )
            items.append(_example_text(e, record, what))
        out.append(bullets(items))
    out.append(h2("How to read this"))
    out.append(
        bullets(
            [
                "A parting: a question A and B answer differently. A's games are played with "
                "B asked every question A is asked (B's games the same, roles swapped).",
                f"Both answers are valued exactly for {unit_text(data)['payoff']}, the rest "
                "of the turn played by the bot that did not choose the game's move (B in A's "
                "games, A in B's); B's gain is the value of B's answer minus A's. Summed "
                "over a turn, this is an unbiased estimate of how much more B's play of the "
                "turn is worth than A's (the performance difference identity; docs/coach.md).",
                "Gain per game: the sum of B's gains per game, with a 95% interval clustered "
                "by deal; gained and lost split it into the partings where B's answer is "
                "worth more and those where it is worth less.",
                "No game outcome enters, only exact expectations, so a diff separates two "
                "versions with far fewer games than a compare of results.",
                "A row of where B gains or loses is one lesson: the situations that differ "
                "only in the tile at risk (what the bots do there does not turn on it) are "
                "one row, the tiles listed under at risk, counts and gains summed.",
                "Without --deals the diff stops once its answer is settled (a sequential "
                "rule: at most 5% error over all its looks; docs/coach.md), at most 500 "
                "deals. Only completed games count: a game with a forfeit is left out whole.",
            ]
        )
    )
    return out


def diff_lines(data: dict[str, Any], records: list[str]) -> list[str]:
    out = textwrap.wrap(
        f"Diff: A = {data['a']}, B = {data['b']}. " + _setting(data, "A and B"), WIDTH
    )
    out += [""] + textwrap.wrap(_verdict_text(data), WIDTH)
    out += _forfeit_text(data, _diff_who)
    header, rows = gain_table(data, "both")
    keep = [1, 3, 4, 5, 6, 7, 8]
    out += ["", "Where they part (both bots' games):"]
    out += ["  " + line for line in text_table([header[i] for i in keep],
                                               [[r[i] for i in keep] for r in rows])]  # fmt: skip
    for key, title in (
        ("where_b_gains", "Where B gains most"),
        ("where_b_loses", "Where B loses most"),
    ):
        rows_ = data[key]
        out += ["", f"{title}:"]
        if not rows_:
            out.append("  nowhere")
        out += numbered(
            [
                f"{r['describe']}: A {r['a']}, B {r['b']}; {_times(r['count'])}, mean "
                f"{r['mean_gain']:+.4f}, {r['gain_per_game']:+.4f}/game"
                for r in rows_
            ]
        )
    out += example_lines(
        [
            f"deal {e['deal']}, turn {e['turn']} ({e['side']}'s game): A {e['a']}, B {e['b']}, "
            f"B gains {e['gain']:+.4f}"
            for e in data["examples"]
        ],
        records,
    )
    failures = data["shadow_failures"]
    if any(failures.values()):
        line = (f"Shadow failures: {failures['A']:,} in A's games, {failures['B']:,} in B's "
                f"(first: {data['failure_examples'][0]})")  # fmt: skip
        out += ["", *textwrap.wrap(line, WIDTH)]
    out += _trouble_lines(data)
    return out


# -- files -----------------------------------------------------------------------------------
def write_answer(
    folder: Path,
    stem: str,
    title: str,
    data: dict[str, Any],
    records: list[dict[str, Any]],
    blocks: Callable[[dict[str, Any], list[str]], list[Block]],
    output: list[str] = (),  # type: ignore[assignment]
) -> tuple[dict[str, Any], dict[str, Path]]:
    """The examples' records, the bots' output (``output.log``, when they wrote any), then
    ``stem``.md, .html and .json, into ``folder``: the data written (with the records'
    paths, ``records``, and the files) and the files."""
    data["records"] = paths = write_records(folder, records)
    extra: dict[str, Path] = {}
    if output:
        folder.mkdir(parents=True, exist_ok=True)
        extra["output"] = write_text_atomic(folder / "output.log", "\n".join(output) + "\n")
    data["files"] = {k: str(v) for k, v in extra.items()}
    files = write_files(folder, stem, title, blocks(data, paths), data)
    files.update(extra)
    data["files"] = {k: str(v) for k, v in files.items()}
    return data, files


def write_records(folder: Path, records: list[dict[str, Any]]) -> list[str]:
    """The examples' game records, ``folder/examples/example-N.json``; their paths."""
    from harness.game.record import save_record

    paths = []
    for n, record in enumerate(records, 1):
        path = folder / "examples" / f"example-{n}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        save_record(record, path)
        paths.append(str(path))
    return paths


def write_files(
    folder: Path, stem: str, title: str, blocks: list[Block], data: dict[str, Any]
) -> dict[str, Path]:
    """``stem``.md, .html (from the blocks) and .json (``data``) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        "markdown": write_text_atomic(folder / f"{stem}.md", to_markdown(blocks, folder)),
        "html": write_text_atomic(folder / f"{stem}.html", to_html(blocks, title)),
        "json": write_text_atomic(
            folder / f"{stem}.json", json.dumps(json_safe(data), indent=1) + "\n"
        ),
    }


# -- for notebooks ---------------------------------------------------------------------------
def coach_summary(data: dict[str, Any]) -> list[str]:
    """A coach's result in a few lines (its repr): the setting, the loss per game, the
    forfeits, and where to look next."""
    every = data["kinds"][-1]["loss_per_game"]
    lines = textwrap.wrap(f"Coach: {data['bot']}. " + _setting(data, data["bot"]), WIDTH)
    lines.append(
        f"  {unit_text(data)['short']} lost per game to its decisions: {_est(every, 4)} "
        f"(95% CI {_ci(every, 4)})"
    )
    lines += ["  " + line for line in forfeit_lines(data, _coach_who(data["bot"]))[:1]]
    lines.append("  tables: c.kinds, c.situations, c.bands_frame; files: c.write(folder)")
    return lines


def diff_summary(data: dict[str, Any]) -> list[str]:
    """A diff's result in a few lines (its repr): the setting, the verdict, the forfeits,
    and where to look next."""
    lines = textwrap.wrap(
        f"Diff: A = {data['a']}, B = {data['b']}. " + _setting(data, "A and B"), WIDTH
    )
    lines += textwrap.wrap(_verdict_text(data), WIDTH, initial_indent="  ",
                           subsequent_indent="  ")  # fmt: skip
    lines += ["  " + line for line in forfeit_lines(data, _diff_who)[:1]]
    lines.append("  tables: d.gains, d.partings; files: d.write(folder)")
    return lines


def summary_html(text: str, frame: Any) -> str:
    """A notebook's view of a result: its summary lines, then a table (a DataFrame)."""
    import html

    return f"<pre>{html.escape(text)}</pre>" + (frame._repr_html_() or "")


__all__ = [
    "coach_blocks",
    "coach_summary",
    "diff_summary",
    "summary_html",
    "coach_lines",
    "diff_blocks",
    "diff_lines",
    "write_files",
    "write_records",
]
