"""The ``harness sprt A B`` command: a thin click layer over :mod:`harness.sprt.experiment`.

Registered by :mod:`harness.commands.group`; like every command module it imports
:mod:`harness.commands.common` and lower rooms, never the group. The experiment (and
scipy, through the SPRT statistics) is imported when the command runs, so that
``harness --help`` stays quick.
The check lines go to stderr as the test goes (like tourney's progress); the verdict,
or with ``--json`` the summary, to stdout.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from harness.commands.common import (
    EXIT_FORFEITS,
    EXIT_INTERRUPTED,
    complete_strategy,
    console_log,
    echo_err,
    engine_option,
    limits_options,
    luck_option,
    max_turns_option,
    parse_variants,
    rules_options,
    seat_settings_of,
    strict_option,
    user_errors,
    verbosity_options,
)
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS
from harness.jsonsafe import json_safe

SHOW_EVERY = 2.0  # seconds between check lines (the first and the last are always shown)


# -- formatting -----------------------------------------------------------------------------
def elo_text(value: float) -> str:
    """``+12.3``; ``+inf`` when one side won every counted deal; ``-`` when undefined."""
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}"  # + 0.0: no "-0.0"


def bound_text(value: float) -> str:
    return f"{value:+g}"


def deal_scores(counts: Any) -> str:
    """How many deals had each score, labelled with the score: A's points against B over
    the deal's games (1 a game A finished ahead, 0.5 a tie), e.g. ``0:12 0.5:80 1:210
    1.5:95 2:3`` for the 2 games of a 2-player deal (the pentanomial). Past 5 scores (more
    players, more games a deal) only the scores some deal had are listed."""
    counts = [int(c) for c in counts]
    pairs = [(i / 2, c) for i, c in enumerate(counts)]
    if len(pairs) > 5:
        pairs = [(score, c) for score, c in pairs if c]
    return " ".join(f"{score:g}:{c}" for score, c in pairs)


def check_line(tally: Any) -> str:
    """One look at the test, e.g. ``games 1,200  LLR +1.37  [-2.94, +2.94]  Elo +12.3
    (-5.7, +30.3)  deals 0:12 0.5:80 1:210 1.5:95 2:3`` (:func:`deal_scores`)."""
    elo, low, high = tally.elo()
    adjusted = f" (luck-adjusted; raw {tally.sprt.llr:+.2f})" if tally.adjusted else ""
    line = (
        f"games {tally.games:,}  LLR {tally.llr:+.2f}  "
        f"[{tally.sprt.lower:+.2f}, {tally.sprt.upper:+.2f}]{adjusted}  "
        f"Elo {elo_text(elo)} ({elo_text(low)}, {elo_text(high)})  "
        f"deals {deal_scores(tally.sprt.counts)}"
    )
    if tally.capped:
        line += f"  left out {tally.capped:,}"
    return line


def verdict_lines(result: Any) -> list[str]:
    """The end of a test for people: verdict, games, Elo, LLR, forfeits."""
    setup, tally = result.setup, result.tally
    pair = f"Elo({setup.a.name} - {setup.b.name})"
    if result.verdict == "H1":
        head = f"H1 accepted: {pair} >= {bound_text(setup.elo1)}"
    elif result.verdict == "H0":
        head = f"H0 accepted: {pair} <= {bound_text(setup.elo0)}"
    elif result.verdict == "inconclusive":
        head = f"Inconclusive: no verdict within --max-games {setup.max_games:,}"
    else:
        head = "Interrupted: no verdict"
    elo, low, high = tally.elo()
    deals = f"{tally.deals:,} deals of {setup.games_per_deal}"
    if tally.capped:
        deals += f", {tally.capped:,} left out for a turn-capped game"
    lines = [
        head,
        f"Games: {tally.games:,} ({deals})",
        _elo_line(elo, low, high),
        f"LLR: {tally.llr:+.2f} in [{tally.sprt.lower:+.2f}, {tally.sprt.upper:+.2f}] "
        f"for H0 Elo <= {bound_text(setup.elo0)}, H1 Elo >= {bound_text(setup.elo1)} "
        f"(alpha {setup.alpha:g}, beta {setup.beta:g})",
        f"Time: {result.wall:.1f} s, {result.games_per_second:,.0f} games/s, "
        f"{_workers_text(result.workers)}",
    ]
    if tally.adjusted is not None:
        raw_elo, raw_low, raw_high = tally.sprt.elo()
        control = "win luck" if setup.luck == "win" else "win-weighted worm luck"
        lines[3:3] = [
            f"Luck-adjusted: each deal's score minus {tally.adjusted.coef:.3f} x its luck "
            f"({control}, A's against B's), the coefficient fitted on the deals before "
            "(docs/luck.md)",
            f"Raw test: LLR {tally.sprt.llr:+.2f}, Elo {elo_text(raw_elo)} "
            f"(95% CI {elo_text(raw_low)} to {elo_text(raw_high)})",
        ]
    forfeits = tally.forfeits
    total = sum(forfeits.values())
    if total:
        by = ", ".join(f"{role} {k:,}" for role, k in forfeits.items() if k)
        lines.append(f"Forfeits: {total:,} ({by}; scored as results, the forfeiting seat last)")
        for example in tally.examples:
            lines.append(
                f"  deal {example['deal']}, order {example['order']}, seating "
                f"{example['seating']}: {example['error']}"
            )
    return lines


def _elo_line(elo: float, low: float, high: float) -> str:
    if math.isinf(elo):  # a mean deal score of 1 or 0: the Elo scale has no finite value
        side = "ahead of" if elo > 0 else "behind"
        return f"Elo: {elo_text(elo)} (A finished {side} B in every counted game)"
    if math.isnan(elo):
        return "Elo: - (no deal counted)"
    return f"Elo: {elo_text(elo)} (95% CI {elo_text(low)} to {elo_text(high)})"


def _workers_text(workers: int) -> str:
    return "in-process" if workers == 0 else f"{workers} worker{'s' if workers > 1 else ''}"


def header_lines(setup: Any, workers: int) -> list[str]:
    seats = [setup.a.name, setup.b.name, *(f.name for f in setup.fillers)]
    fillers = f" (fillers: {', '.join(seats[2:])})" if setup.fillers else ""
    orders = "" if len(setup.orders) == 1 else " in both A-B seat orders"
    lines = [
        f"SPRT {setup.a.name} vs {setup.b.name}{fillers}: {setup.rules.describe()}, seed "
        f"{setup.seed}, {_workers_text(workers)}",
        f"H0 Elo <= {bound_text(setup.elo0)}, H1 Elo >= {bound_text(setup.elo1)}, alpha "
        f"{setup.alpha:g}, beta {setup.beta:g}; a deal is one set of duplicate dice in "
        f"every seat rotation{orders} ({setup.games_per_deal} games); a check every "
        f"{setup.deals_per_check} deals",
        f"deals S:N below: N deals in which A scored S points against B over the deal's "
        f"{setup.games_per_deal} games (1 a game A finished ahead, 0.5 a tie)",
    ]
    if setup.settings.isolation == "process":
        from harness.seats.sandbox import missing_note

        missing = missing_note(_sandbox_missing(setup.settings))
        if missing is not None:
            lines.append(f"Note: {missing}.")
    if setup.same:
        lines.append(
            "Note: A and B are the same strategy: each deal's games mirror each other (same "
            "dice, A and B swapped), so every deal scores exactly 1/2 unless it plays "
            "differently from game to game. This checks the harness; expect H0."
        )
    return lines


def _sandbox_missing(settings: Any) -> list[str]:
    """What the isolated seats' sandbox lacks on this machine (empty when nothing is
    isolated): the note for people, and ``sandbox_missing`` in the JSON summary."""
    if settings.isolation != "process":
        return []
    from harness.seats.sandbox import probe

    return list(probe())


# -- the command ----------------------------------------------------------------------------
def check_teller() -> Callable[[Any], None]:
    """The test's ``on_check`` for people: a check line every :data:`SHOW_EVERY` seconds
    and at the end, and once a warning when most deals hit the turn cap."""
    shown = {"at": -math.inf, "warned": False}

    def on_check(tally: Any) -> None:
        now = time.monotonic()
        if now - shown["at"] >= SHOW_EVERY or tally.status != "continue":
            shown["at"] = now
            echo_err(check_line(tally))
        if not shown["warned"] and tally.checks >= 5 and 2 * tally.capped > tally.deals:
            shown["warned"] = True  # such a test may never decide: say so, once
            echo_err(
                f"Warning: {tally.capped:,} of {tally.deals:,} deals left out for a game that "
                "hit the turn cap; raise --max-turns or change the rules (bust_flip)"
            )

    return on_check


@click.command("sprt")
@click.argument("a", shell_complete=complete_strategy)
@click.argument("b", shell_complete=complete_strategy)
@click.option(
    "--players",
    type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
    default=2,
    show_default=True,
    help="Players per game; seats beyond A and B take --filler.",
)
@click.option(
    "--filler",
    "fillers",
    shell_complete=complete_strategy,
    multiple=True,
    metavar="STRATEGY",
    help="Strategy for the other seats when --players > 2: once for all of them or once per "
    "seat (repeat it). [default: greedy]",
)
@click.option("--elo0", type=float, default=0.0, show_default=True, help="H0: A - B Elo <= elo0.")
@click.option(
    "--elo1", type=float, default=10.0, show_default=True, help="H1: A - B Elo >= elo1 (> elo0)."
)
@click.option(
    "--alpha",
    type=float,
    default=0.05,
    show_default=True,
    help="Chance of accepting H1 when H0 holds (0 < alpha < 0.5).",
)
@click.option(
    "--beta",
    type=float,
    default=0.05,
    show_default=True,
    help="Chance of accepting H0 when H1 holds (0 < beta < 0.5).",
)
@rules_options
@click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed of the deals (duplicate dice)."
)
@click.option(
    "--workers",
    type=click.IntRange(0),
    default=None,
    help="Worker processes (default: one per CPU; 0 plays in-process).",
)
@click.option(
    "--max-games",
    type=click.IntRange(1),
    default=None,
    help="Stop after this many games (whole deals) without a verdict: inconclusive.",
)
@max_turns_option("Turn cap per game; a deal with a capped game is left out (default 1,000).")
@limits_options(isolation_default="none")
@engine_option(config=False)
@luck_option(config=False)
@strict_option("the test finished but had forfeits")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON instead.")
@verbosity_options(quiet="No header and no check lines on stderr; the verdict as ever.")
@user_errors
def sprt(
    a: str,
    b: str,
    players: int,
    fillers: tuple[str, ...],
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    preset: str,
    variants: tuple[str, ...],
    seed: int,
    workers: int | None,
    max_games: int | None,
    max_turns: int | None,
    isolation: str,
    move_time: float | None,
    game_time: float | None,
    engine: str,
    luck: str,
    strict: bool,
    as_json: bool,
    verbose: int,
    quiet: bool,
) -> None:
    """Play A against B until a sequential probability ratio test decides.

    A deal is one set of duplicate dice played in every seat rotation (and, with more
    than 2 players, with A and B swapped too); the test is the GSPRT of chess engine
    testing on deal outcomes. It prints the log-likelihood ratio and its bounds as it
    goes, then the verdict (H1: A is at least elo1 stronger; H0: at most elo0), the
    games played and A's Elo over B with a 95% interval. Same seed, same verdict, for
    any number of workers. A and B are named as everywhere: greedy,
    'threshold(target=28)', path/to/file.py:Class. Where the deals keep the luck and
    skill account (--luck; auto: with a plugin or optimal), the test runs on
    luck-adjusted deal scores: the same error rates from fewer games (docs/luck.md).

    \b
    Examples:
      harness sprt tactician greedy
      harness sprt optimal simple --elo0 0 --elo1 50
      harness sprt greedy simple --players 4 --filler tactician --max-games 20000 --json
    """
    from harness.game.engine import DEFAULT_MAX_TURNS
    from harness.sprt.experiment import make_setup, run_sprt
    from harness.tourney.runner import default_workers

    console_log(verbose)
    for item in variants:
        if item.partition("=")[0].strip().replace("-", "_") == "players":
            raise click.BadParameter("give the player count with --players", param_hint="--set")
    rules = parse_variants(preset, variants, players=players)
    seat_settings = seat_settings_of(
        move_time=move_time, game_time=game_time, isolation=isolation, engine=engine, luck=luck
    )
    setup = make_setup(
        a,
        b,
        players=players,
        fillers=fillers,
        rules=rules,
        seed=seed,
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        max_turns=max_turns or DEFAULT_MAX_TURNS,
        settings=seat_settings,
    )
    workers = default_workers() if workers is None else workers
    # Check lines for people: always without --json; with it, only on a terminal.
    talk = not quiet and (not as_json or sys.stderr.isatty())
    if talk:
        for line in header_lines(setup, workers):
            echo_err(line)
    result = run_sprt(setup, workers=workers, on_check=check_teller() if talk else None)
    if as_json:
        summary = result.summary()
        summary["sandbox_missing"] = _sandbox_missing(setup.settings)
        click.echo(json.dumps(json_safe(summary)))
    else:
        for line in verdict_lines(result):
            click.echo(line)
    if result.verdict == "interrupted":
        if talk:
            echo_err("Interrupted (Ctrl-C): the test stopped without a verdict.")
        sys.exit(EXIT_INTERRUPTED)
    forfeits = sum(result.tally.forfeits.values())
    if strict and forfeits:
        echo_err(f"--strict: {forfeits:,} forfeits in a finished test; exit status 3.")
        sys.exit(EXIT_FORFEITS)
