"""The one-game commands: ``harness play`` (play a game and tell it) and ``harness replay``
(re-apply a game record, checking every step).

A command module like the others: it imports :mod:`harness.commands.common` and lower modules,
never :mod:`harness.commands.group`, which registers it. The engine, the seats and the narrator are
imported when a command runs, so that ``harness --help`` stays quick.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from harness.commands.common import (
    EXIT_FORFEITS,
    complete_strategy,
    engine_option,
    limits_options,
    max_turns_option,
    parse_variants,
    rules_options,
    seat_settings_of,
    strict_option,
    user_errors,
)
from harness.errors import plural


@click.command("play")
@click.argument("strategies", nargs=-1, required=True, shell_complete=complete_strategy)
@rules_options
@click.option("--seed", type=int, default=None, help="Seed of the dice (random if not given).")
@click.option(
    "--dice",
    type=click.Choice(["independent", "duplicate"]),
    default="independent",
    show_default=True,
    help="independent: one seeded stream; duplicate: dice fixed by (seed, seat, turn, roll), "
    "as a tournament deal with that seed deals them.",
)
@click.option(
    "--record",
    "record_path",
    type=click.Path(),  # checked by _check_record_path: one line, before playing
    help="Write the game record (JSON) to this file.",
)
@max_turns_option("Turn cap: stop the game unfinished after this many turns.")
@limits_options(
    isolation_default=None,
    isolation_unset="a plugin in a process of its own, no sandbox: its crash is its forfeit",
)
@engine_option(config=False)
@click.option(
    "--traceback",
    "show_traceback",
    is_flag=True,
    help="On a forfeit, also print the plugin's traceback (to stderr; in --json, a field).",
)
@strict_option("the game ends in a forfeit")
@click.option(
    "--analyze",
    is_flag=True,
    help="After the game, its exact luck and skill: each seat's par, luck, regret, the "
    "margin split and the costliest decisions (--json: the whole account; docs/luck.md).",
)
@click.option(
    "--hints",
    is_flag=True,
    help="With a person's seat (you): every option's exact value and regret before each "
    "decision (as `harness analyze roll` prints them).",
)
@click.option(
    "--tutor",
    is_flag=True,
    help="With a person's seat (you): warn before a choice that gives up more than "
    "--tutor-at (in the unit), and ask to confirm.",
)
@click.option(
    "--tutor-at",
    type=click.FloatRange(0, 100),
    default=None,
    metavar="X",
    help="The tutor's threshold [default: the coach's inaccuracy band: 0.01 of a win, "
    "or 0.25 worm with --unit worms].",
)
@click.option(
    "--unit",
    type=click.Choice(["win", "worms"]),
    default="win",
    show_default=True,
    help="With a person's seat (you): hints, the tutor and the summary in chances to win "
    "or in worms of swing.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the final scores.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead.")
@user_errors
def play(
    strategies: tuple[str, ...],
    preset: str,
    variants: tuple[str, ...],
    seed: int | None,
    dice: str,
    record_path: str | None,
    max_turns: int | None,
    isolation: str | None,
    move_time: float | None,
    game_time: float | None,
    engine: str,
    show_traceback: bool,
    strict: bool,
    analyze: bool,
    hints: bool,
    tutor: bool,
    tutor_at: float | None,
    unit: str,
    quiet: bool,
    as_json: bool,
) -> None:
    """Play one game between STRATEGIES (one per seat; seat 0 starts) and tell it.

    A strategy is a built-in name (see `harness strategies`), an installed plugin's
    name, or path/to/file.py:ClassName; parameters go in parentheses:
    'threshold(target=28)'. The name `you` is a seat for a person: you play it at the
    terminal (--hints, --tutor; the game is recorded: docs/coach.md).

    \b
    Example:
      harness play greedy 'threshold(target=28)' random --seed 7
      harness play bots/mine.py:MyBot greedy --isolation process --move-time 1
      harness play you greedy optimal --hints
    """
    import random

    from harness.game.dice import DuplicateDice
    from harness.game.engine import DEFAULT_MAX_TURNS, observing
    from harness.play import open_seats, play_game

    rules, seat_settings = _checked_rules(
        strategies, preset, variants, record_path, seed=seed, max_turns=max_turns,
        seat_options={"move_time": move_time, "game_time": game_time, "isolation": isolation,
                      "engine": engine},
    )  # fmt: skip
    from harness.people.table import seat_of_person

    if seat_of_person(strategies) is not None:  # a person plays: harness.people
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        refused = {"--json": as_json, "--quiet": quiet, "--move-time": move_time,
                   "--game-time": game_time, "--isolation process": isolation == "process",
                   "--engine native": engine == "native"}  # fmt: skip
        return _play_person(
            strategies, rules, seed, dice, record_path, max_turns, hints, tutor, (tutor_at, unit),
            analyze, strict, [k for k, v in refused.items() if v],
        )  # fmt: skip
    if hints or tutor:
        raise click.UsageError("--hints and --tutor help a person: name a seat `you`")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    if engine == "native":  # what it cannot do: one line, before anything is loaded or told
        _check_native(strategies, seed, seat_settings, record_path,
                      narrated=not (quiet or as_json), analyze=analyze)  # fmt: skip
    # Every strategy loaded (in its own process with --isolation process) before the
    # first line: a bad reference is one line, nothing told. Unless told --isolation
    # none, a plugin plays in a process of its own (its death is its forfeit) and what
    # it writes reaches stderr escaped, labelled and capped, never stdout.
    output = _plugin_output()
    contain = isolation is None and seat_settings.engine != "native"
    with open_seats(list(strategies), seat_settings.limits, display=True, contain=contain,
                    output=output) as seats:  # fmt: skip
        names = seats.names
        narrator, accountant = _watchers(seats, rules, seed, dice, quiet=quiet,
                                         as_json=as_json, analyze=analyze)  # fmt: skip
        result = play_game(
            seats.strategies,
            rules,
            seed,
            dice=DuplicateDice(seed) if dice == "duplicate" else None,
            record=bool(record_path),
            observer=observing(narrator, accountant),
            max_turns=max_turns or DEFAULT_MAX_TURNS,
            forfeit=True,
            names=names,
            engine=seat_settings.engine,  # the limits are the seats' own (open_seats)
        )
    _finish(result, rules, seed, names, accountant, record_path,
            spaced=narrator is not None, as_json=as_json, show_traceback=show_traceback,
            strict=strict)  # fmt: skip


def _finish(
    result: Any, rules: Any, seed: int, names: list[str], accountant: Any,
    record_path: str | None, *, spaced: bool, as_json: bool, show_traceback: bool,
    strict: bool,
) -> None:  # fmt: skip
    """A machine game's end: its account, record and telling; exit 3 on a forfeit with
    --strict."""
    from harness.game.record import save_record
    from harness.seats import plugin_traceback

    trace = plugin_traceback(result.error) if show_traceback else None
    account = None
    if accountant is not None:
        from harness.analysis.game import account_of

        account = account_of(rules, names, accountant, result)
    if record_path:
        result.record["seats"] = names
        save_record(result.record, record_path)
    if as_json:
        payload = _game_json(result, seed, rules, names, account, show_traceback, trace)
        click.echo(json.dumps(payload))
    else:
        _tell_end(result, account, record_path, trace, spaced=spaced)
    if result.error is not None and strict:  # a forfeit ends the game: it is finished
        sys.exit(EXIT_FORFEITS)


def _plugin_output() -> Any:
    """Where the seats' processes' lines go: stderr, each escaped and labelled, at most
    the tourney's allowance per game (:class:`harness.seats.output.PluginOutput`)."""
    from harness.commands.common import echo_err
    from harness.seats.output import Playing, PluginOutput

    sink = PluginOutput(echo_err, Playing())

    def line(text: str) -> None:
        sink.count(len(text) + 1)
        sink.line(text)

    return line


def _checked_rules(
    strategies: tuple[str, ...],
    preset: str,
    variants: tuple[str, ...],
    record_path: str | None,
    seat_options: dict[str, Any],
    **bounded: Any,
) -> tuple[Any, Any]:
    """The game's rules and seat settings, once every option is checked (the player
    count, the ``bounded`` numbers and the ``seat_options``, the variants, where the
    record goes): before anything is played or told."""
    if not 2 <= len(strategies) <= 7:
        raise click.UsageError(
            f"{plural(len(strategies), 'strategy', 'strategies')} given; a game has 2 to 7 "
            "players (R3)"
        )
    from harness.people.seat import SEAT_NAME
    from harness.play import GAME_SETTINGS
    from harness.plugins import check_names
    from harness.tourney.config import check_bounds

    check_names([s for s in strategies if s != SEAT_NAME])  # every unknown name, at once
    check_bounds(**bounded)
    seat_settings = seat_settings_of(GAME_SETTINGS, **seat_options)
    rules = parse_variants(preset, variants, players=len(strategies))
    if record_path:
        _check_record_path(record_path)
    return rules, seat_settings


def _watchers(
    seats: Any, rules: Any, seed: int, dice: str, *, quiet: bool, as_json: bool, analyze: bool
) -> tuple[Any, Any]:
    """The narrator (None when quiet or JSON) and the luck accountant (None without
    --analyze) of a game about to start at ``seats``; the seats' notes and the header
    told first."""
    from harness.play.narrate import Narrator

    names = seats.names
    if not quiet:
        for note in seats.notes():
            click.echo(f"Note: {note}.", err=True)
    narrator = None if (quiet or as_json) else Narrator(names, click.echo)
    accountant = None
    if analyze:  # the turn programme loads only when asked for (numpy, ~0.3 s)
        from harness.analysis.account import Accountant

        accountant = Accountant(rules, detail=True)
    if narrator is not None:
        shown = "" if dice == "independent" else " (duplicate dice)"
        click.echo(f"Pickomino: {rules.describe()}, seed {seed}{shown}")
        for seat, name in enumerate(names):
            click.echo(f"  seat {seat}: {name}")
    return narrator, accountant


def _check_native(
    strategies: tuple[str, ...],
    seed: int,
    seat_settings: Any,
    record_path: str | None,
    *,
    narrated: bool,
    analyze: bool,
) -> None:
    """``--engine native``: what it cannot do for this game, as one line (HarnessError),
    before anything is loaded or told."""
    from harness.errors import HarnessError
    from harness.play import native_problem

    if narrated:
        why = "it does not narrate a game: add --quiet or --json"
    elif analyze:
        why = "--analyze follows the game move by move on the Python engine"
    else:
        why = native_problem(
            list(strategies), seed, record=bool(record_path), settings=seat_settings
        )
    if why is not None:
        raise HarnessError(f"--engine native: {why}; or use --engine auto")


def _game_json(
    result: Any,
    seed: int,
    rules: Any,
    names: list[str],
    account: Any,
    show_traceback: bool,
    trace: str | None,
) -> dict[str, Any]:
    """``harness play --json``'s object for a played game (a forfeit's traceback if asked
    for, its luck account if kept)."""
    payload = {
        "seed": seed,
        "rules": rules.to_dict(),
        "seats": names,
        "status": result.status,
        "turns": result.turns,
        "ranks": result.ranks,
        **result.state(),
        "error": str(result.error) if result.error else None,
    }
    if result.error is not None:
        payload["error_kind"] = result.error.kind
    if show_traceback:
        payload["traceback"] = trace
    if account is not None:
        from harness.analysis.game import account_json

        payload["account"] = account_json(account)
    return payload


def _tell_end(
    result: Any, account: Any, record_path: str | None, trace: str | None, *, spaced: bool
) -> None:
    """The end of a game for people: the summary, the luck account if kept, where the
    record went, and a forfeit's traceback (on stderr) if asked for."""
    from harness.play.narrate import summary_lines

    for line in summary_lines(result, spaced=spaced):
        click.echo(line)
    if account is not None:
        from harness.analysis.game import account_lines

        click.echo("Luck and skill (exact; docs/luck.md):")
        for line in account_lines(account, turns=False):
            click.echo(f"  {line}")
    if record_path:
        click.echo(f"Record written to {record_path}")
    if trace:
        click.echo(trace.rstrip("\n"), err=True)


def _threshold(tutoring: tuple[float | None, str]) -> float:
    """The tutor's threshold: as given, else the coach's inaccuracy band of the unit."""
    from harness.coach.situations import UNIT_BANDS

    at, unit = tutoring
    return UNIT_BANDS[unit][0] if at is None else at


def _play_person(
    strategies: tuple[str, ...],
    rules: Any,
    seed: int,
    dice: str,
    record_path: str | None,
    max_turns: int | None,
    hints: bool,
    tutor: bool,
    tutoring: tuple[float | None, str],
    analyze: bool,
    strict: bool,
    refused: list[str],
) -> None:
    """``harness play`` with a person's seat (harness.people): the game at the terminal,
    its record, the summary; stopped by the person: the record so far, exit 130.
    ``tutoring``: the tutor's threshold (None: the unit's inaccuracy band) and the unit."""
    import textwrap
    from pathlib import Path

    from harness.commands.common import EXIT_INTERRUPTED
    from harness.game.engine import DEFAULT_MAX_TURNS
    from harness.people.table import play_person, seat_of_person, summary_text
    from harness.plugins import entry_point_strategies

    if refused:
        raise click.UsageError(f"{', '.join(refused)}: not with a person at the table (you)")
    plugin = entry_point_strategies().get("you")
    if plugin is not None:  # the seat name wins; the plugin stays reachable by reference
        click.echo(
            f"Note: `you` is the person's seat here; the installed strategy `you` is "
            f"reached by its reference, {getattr(plugin, 'value', plugin)}.",
            err=True,
        )
    game = play_person(
        strategies,
        rules,
        seed,
        duplicate=dice == "duplicate",
        record_path=Path(record_path) if record_path else None,
        hints=hints,
        tutor=_threshold(tutoring) if tutor else None,
        unit=tutoring[1],
        max_turns=max_turns or DEFAULT_MAX_TURNS,
    )
    seat = seat_of_person(strategies)
    for line in summary_text(game, seat):  # type: ignore[arg-type]
        click.echo(line)
    if analyze and game.account is not None:
        from harness.analysis.game import account_lines

        click.echo("Every turn, exact (docs/luck.md):")
        for line in account_lines(game.account):  # in 80 columns, as the game was shown
            for part in textwrap.wrap(f"  {line}", 80, subsequent_indent="        ") or [""]:
                click.echo(part)
    # The game was drawn in 80 columns: the record and its two commands, a line each.
    click.echo(f"Record: {game.path}")
    click.echo(f"  replay it:  harness replay {game.path}")
    click.echo(f"  its luck:   harness analyze game {game.path}")
    if game.stopped is not None:
        sys.exit(EXIT_INTERRUPTED)
    if game.result is not None and game.result.error is not None and strict:
        sys.exit(EXIT_FORFEITS)


def _check_record_path(path: str) -> None:
    """One line before anything is played unless a record can be written at ``path``.

    A path that cannot name a file (a folder, a folder that does not exist, a file where a
    folder should be) is bad input (exit 2); a folder that cannot be written is what
    saving would hit later (RunFailed, exit 1, as save_record says it). Tried for real,
    the way save_record writes (a temporary file next to it, renamed into place):
    permissions alone do not tell (root, read-only mounts).
    """
    import os
    import tempfile

    from harness.errors import HarnessError, RunFailed, safe_text
    from harness.runfolder.layout import path_problem

    target = os.path.abspath(path)
    why = path_problem(target, folder=False)
    if why is not None:  # bad input: exit 2, before anything is played or written
        raise HarnessError(f"--record {safe_text(path, 200)}: {safe_text(why, 300)}")
    try:
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(target), prefix=".harness-"):
            pass
    except OSError as exc:
        reason = safe_text(exc.strerror or exc, 200)
        raise RunFailed(f"{path}: cannot write the record: {reason}") from None


@click.command("replay")
@click.argument("record_file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the final state as JSON.")
@user_errors
def replay(record_file: str, as_json: bool) -> None:
    """Re-apply a game record through the engine, checking every step, and print the state.

    An inconsistent or illegal record exits with status 2 and one line naming the
    turn, the seat and the rule (or the stored figure its moves contradict).
    """
    from harness.analysis.game import account_record
    from harness.game.record import load_record
    from harness.play.narrate import summary_lines

    data = load_record(record_file)
    # The one check of a record, the one `harness analyze game` makes: every move through
    # the engine, the stated result, and each turn's stored luck account against its moves.
    result = account_record(data).result
    if as_json:
        click.echo(json.dumps(result.state()))
        return
    accounts = sum(1 for turn in data["turns"] if "account" in turn)
    agree = f"; the stored account of {plural(accounts, 'turn')} matches its moves"
    agree = agree if accounts else ""
    click.echo(f"{record_file}: {len(data['turns'])} turns replayed, all legal{agree}.")
    click.echo(f"Grill: {' '.join(map(str, result.grill)) or '-'}")
    click.echo(f"Face down: {' '.join(map(str, result.flipped)) or '-'}")
    for line in summary_lines(result):
        click.echo(line)
