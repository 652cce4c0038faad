"""The ``harness tourney CONFIG`` command: a thin click layer over :func:`run_tournament`."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from harness.commands.common import (
    EXIT_FAILED,
    EXIT_FORFEITS,
    EXIT_INTERRUPTED,
    check_out_folder,
    complete_config,
    console_log,
    deals_option,
    echo_err,
    engine_option,
    limits_options,
    luck_option,
    seat_settings_of,
    strict_option,
    user_errors,
    verbosity_options,
)
from harness.errors import plural
from harness.game.seating import SEATINGS
from harness.runfolder.layout import DEFAULT_OUT

if TYPE_CHECKING:
    from harness.seats.settings import SeatSettings
    from harness.tourney.config import TourneyConfig

# The runner (yaml, multiprocessing, ...) is imported when the command runs, so that
# `harness --help` and the other commands stay quick.


@click.command("tourney")
@click.argument("config", type=click.Path(dir_okay=False), shell_complete=complete_config)
@click.option(
    "--deals",
    type=click.IntRange(1),
    help="Deals per table (each played in every seat order of the seating); overrides the "
    "config's deals:.",
)
@click.option("--games", type=click.IntRange(1), help="The old name of --deals (deprecated).")
@click.option(
    "--seating",
    type=click.Choice(list(SEATINGS)),
    help="Seat orders of every deal: balanced (every entrant before every other and in every "
    "seat equally often; the default), cyclic (the n rotations of one order) or "
    "permutations (all n!, up to 5 players); overrides the config.",
)
@click.option("--seed", type=int, help="Tournament seed; overrides the config.")
@click.option(
    "--workers",
    type=click.IntRange(0),
    help="Worker processes, also of a local Dask cluster (default: the config's, else one "
    "per CPU; 0 plays in-process).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=DEFAULT_OUT,
    show_default=True,
    help="Folder for run folders: the run goes to OUT/<config name>/<run id>/.",
)
@click.option(
    "--fresh", is_flag=True, help="Start a new run: no resuming, no reuse of earlier chunks."
)
@click.option(
    "--fail-fast",
    is_flag=True,
    help="Stop at the first forfeit instead of recording it and going on.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a machine-readable summary (JSON) instead of the table.",
)
@click.option(
    "--no-report",
    is_flag=True,
    help="Skip writing report.md/report.html at the end (harness report RUN_DIR writes it later).",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    help="Where chunks are played: local worker processes (the default), or Dask "
    "(a local Dask cluster, or the scheduler at --address). Same games either way.",
)
@click.option(
    "--address",
    metavar="tcp://HOST:PORT",
    help="The Dask scheduler to play on (implies --backend dask); see docs/cluster.md.",
)
@click.option(
    "--dashboard",
    is_flag=True,
    help="Serve the local Dask cluster's dashboard on 127.0.0.1:8787, or the next free port "
    "(implies --backend dask).",
)
@click.option(
    "--game",
    metavar="TABLE:DEAL:SEATING",
    help="Play one game of the tournament again, narrated (e.g. a forfeit), and store nothing.",
)
@click.option(
    "--traceback",
    "show_traceback",
    is_flag=True,
    help="With --game: on a forfeit, also print the plugin's traceback (to stderr).",
)
@limits_options(isolation_default=None)
@engine_option(config=True)
@luck_option()
@strict_option("the run finished but had forfeits")
@verbosity_options(quiet="No notes and no progress on stderr (errors only); stdout as ever.")
@user_errors
def tourney(
    config: str,
    deals: int | None,
    games: int | None,
    seating: str | None,
    seed: int | None,
    workers: int | None,
    out: str,
    fresh: bool,
    fail_fast: bool,
    as_json: bool,
    no_report: bool,
    backend: str | None,
    address: str | None,
    dashboard: bool,
    game: str | None,
    show_traceback: bool,
    isolation: str | None,
    move_time: float | None,
    game_time: float | None,
    engine: str | None,
    luck: str | None,
    strict: bool,
    verbose: int,
    quiet: bool,
) -> None:
    """Play the tournament CONFIG describes and print the standings.

    CONFIG is a config file, or the name of a shipped one (round_robin, gauntlet, ...:
    `harness tourney NAME` with a name that is no file lists them).

    Games are played in chunks by worker processes and stored as Parquet under
    OUT/<name>/<run id>/ (with run.json, manifest.jsonl, run.log and summary.csv).
    Running the same command again resumes an interrupted run; chunks that earlier
    runs already played with the same content are reused, not played again.
    Exit status: 0 for a finished run, 1 when it cannot finish (failed chunks,
    --fail-fast), 2 for bad input, 3 with --strict when it had forfeits, 130 on Ctrl-C.

    \b
    Examples:
      harness tourney round_robin
      harness tourney configs/round_robin.yaml
      harness tourney configs/four_player.yaml --deals 500 --workers 2 --json
      harness tourney configs/million.yaml --address tcp://scheduler:8786
    """
    from harness.configs import config_path
    from harness.tourney.config import load_config
    from harness.tourney.runner import TourneyInterrupted, run_tournament

    path = config_path(config)  # a file, or the name of a shipped config
    console_log(verbose)
    deal_count = deals_option(deals, games) if game is None else {}  # said before the config
    loaded = load_config(path)
    limits = {"move_time": move_time, "game_time": game_time, "isolation": isolation}
    if game is not None:  # played again on the Python engine: the limits only
        settings = seat_settings_of(loaded.settings, **limits)
        _replay_one(loaded, game, seed, show_traceback, settings, seating)
        return
    settings = seat_settings_of(loaded.settings, **limits, engine=engine, luck=luck)
    check_out_folder(out)  # one line, exit 2, before anything is played
    if backend is None:
        backend = "dask" if address or dashboard else "local"
    try:
        run = run_tournament(
            loaded,
            **deal_count,
            seed=seed,
            workers=workers,
            out=out,
            fresh=fresh,
            fail_fast=fail_fast,
            echo=None if as_json or quiet else echo_err,
            progress=False if quiet else None,
            backend=backend,
            address=address,
            dashboard=dashboard,
            seating=seating,
            settings=settings,
        )
    except TourneyInterrupted as exc:
        _exit_interrupted(exc.run, as_json)
    except KeyboardInterrupt:  # before the run folder existed, or while summing up
        echo_err("Interrupted. Run the same command again to resume.")
        sys.exit(EXIT_INTERRUPTED)
    _tell_run(run, as_json=as_json, quiet=quiet, no_report=no_report, strict=strict)


def _tell_run(run: Any, *, as_json: bool, quiet: bool, no_report: bool, strict: bool) -> None:
    """A run's end: its report written, the standings or --json told, the exit status
    (1 unfinished, 3 forfeits with --strict)."""
    report, reported = (
        _write_report(run, as_json or quiet, write=not no_report) if run.stored else (None, None)
    )
    if as_json:
        summary = run.summary()
        summary["report"] = str(report) if report else None
        if reported and reported.get("adaptive"):  # schedule: adaptive's comparisons
            summary["adaptive"] = reported["adaptive"]
        click.echo(json.dumps(summary))
    else:
        _print_run(run, reported)
        if report:
            click.echo(f"Report: {report}")
    if run.status != "complete":
        sys.exit(EXIT_FAILED)
    if strict and run.forfeits:
        echo_err(f"--strict: {plural(run.forfeits, 'forfeit')} in a finished run; exit status 3.")
        sys.exit(EXIT_FORFEITS)


def _exit_interrupted(run: Any, as_json: bool) -> NoReturn:
    """A run stopped by Ctrl-C: its summary (with --json), what was saved, how to resume;
    exit status 130."""
    if as_json:
        click.echo(json.dumps(run.summary()))
    saved = f"{run.stored:,} of {plural(run.planned, 'game')}"
    echo_err(f"Interrupted: {saved} saved in {run.run_dir}.")
    echo_err("Run the same command again to resume.")
    sys.exit(EXIT_INTERRUPTED)


def _write_report(run: Any, quiet: bool, *, write: bool = True) -> tuple[Any, dict | None]:
    """The run's report and its figures in the run's counts.

    ``run`` is the finished Run (:func:`~harness.tourney.runner.report_run`, what
    ``run_tournament(report=True)`` does too). With ``write`` the report files are
    written; without (``--no-report``) the summary is read from a current report.json or
    computed, writing nothing. Either way the summary's 95% win-share intervals and
    ratings are copied into ``run.counts`` (what the table and ``--json`` show), so the
    terminal agrees with the report. A failure is told, never fails the run itself.
    Returns the path of report.html (or None) and the summary (None when it failed),
    which the terminal's table reuses rather than computing it again.
    """
    from harness.errors import HarnessError
    from harness.tourney.runner import report_run

    if not quiet and write:
        echo_err("Writing the report...")
    try:
        summary = report_run(run, write=write)
    except (HarnessError, OSError, ValueError) as exc:
        if write:
            echo_err(
                f"Report not written ({exc}); the games are stored: harness report {run.run_dir}"
            )
        else:
            echo_err(
                f"No intervals in the standings ({exc}); harness report {run.run_dir} shows them"
            )
        return None, None
    return run.report_file if write else None, summary


def _gauntlet_lines(run: Any, summary: dict | None = None) -> list[str]:
    """A gauntlet's table as the report has it: the challenger against each opponent, the
    field by rating (indirect), never ranked by win shares taken against other opponents.
    ``summary``: the run's, if already at hand."""
    from harness.errors import HarnessError
    from harness.report.api import cached_summary
    from harness.report.pages.render import standings_lines

    try:
        return standings_lines(summary if summary is not None else cached_summary(run.run_dir))
    except (HarnessError, OSError, ValueError):
        return []


def _print_run(run: Any, summary: dict | None = None) -> None:
    from harness.tourney.progress import duration
    from harness.tourney.standings import format_table

    if run.stored and not any("win_low" in row for row in run.counts):
        _, summary = _write_report(run, True, write=False)  # the intervals, nothing written
    lines = format_table(run.counts)
    if run.format == "gauntlet" and run.stored:
        lines = _gauntlet_lines(run, summary) or lines
    for line in lines:
        click.echo(line)
    if summary is not None and summary.get("adaptive"):
        from harness.report.pages.adaptive import adaptive_lines

        click.echo("")
        for line in adaptive_lines(summary):
            click.echo(line)
    click.echo("")
    click.echo(f"Run folder: {run.run_dir}")
    parts = [plural(run.stored, "game")]
    if run.reused or run.resumed:
        parts.append(
            f"({run.played:,} played now, {run.resumed:,} already stored, {run.reused:,} reused)"
        )
    rate = f", {run.games_per_second:,.0f} games/s" if run.played else ""
    click.echo(f"{' '.join(parts)} in {duration(run.wall)} wall ({run.wall:.1f} s){rate}")
    if summary is not None:
        _print_costs(summary)
    if run.forfeits:
        click.echo(f"{plural(run.forfeits, 'forfeit')} (ranked last, recorded in the results):")
        if summary is not None and summary.get("forfeits"):
            _print_forfeit_groups(summary)
        else:
            for example in run.forfeit_examples[:5]:
                click.echo(f"  {example['error']}")
                click.echo(f"    reproduce: {example['command']}")
    if run.failed:
        click.echo(f"{plural(len(run.failed), 'chunk')} failed twice and are missing:")
        for fail in run.failed[:5]:
            click.echo(
                f"  table {fail['table']} ({' v '.join(fail['entrants'])}), deals "
                f"{fail['deals'][0]}-{fail['deals'][1]}: {fail['reason']}"
            )
        click.echo("Run the same command again to retry them.")
    if run.status == "stopped":
        click.echo("Stopped at the first forfeit (--fail-fast); run again to go on.")


def _print_costs(summary: dict[str, Any]) -> None:
    """What the strategies cost: a headline for one that forfeited every game, the
    decision times of the timed (user) strategies, and who wrote output to run.log."""
    from harness.report.pages.render import (
        TIMING_HEADER,
        fit_table,
        output_lines,
        terminal_width,
        timing_notes,
        timing_rows,
        wrap,
    )

    width = terminal_width()
    for line in summary.get("headlines") or []:
        for text in wrap(f"NOTE: {line}", width):
            click.echo(text)
    rows = timing_rows(summary, timed_only=True)
    if rows:
        click.echo("Decision times (1 game in 16 timed; built-ins are not timed):")
        for line in fit_table(TIMING_HEADER, rows, width - 2, said=width):
            click.echo(f"  {line}" if line else "")
        for note in timing_notes(summary):
            for text in wrap(note, width, "  - ", more=""):
                click.echo(text)
    for line in output_lines(summary):
        for text in wrap(line, width):
            click.echo(text)


def _print_forfeit_groups(summary: dict[str, Any], shown: int = 5) -> None:
    """The forfeits by strategy and cause (the report's groups), with counts and one
    command each that plays one of them again."""
    from harness.report.pages.render import reproduce_hint

    groups = summary["forfeits"]
    for g in groups[:shown]:
        kinds = "" if g.get("kind") in (None, "raised", "rule") else f" [{g['kind']}]"
        click.echo(f"  {g['strategy']}: {g['detail']}{kinds}: {plural(g['count'], 'game')}")
        click.echo(f"    play one again: {reproduce_hint(summary, g['example'])}")
    if len(groups) > shown:
        click.echo(f"  ... and {plural(len(groups) - shown, 'other cause')}: see the report")


def _replay_one(
    loaded: TourneyConfig,
    game: str,
    seed: int | None,
    show_traceback: bool,
    settings: SeatSettings,
    seating: str | None,
) -> None:
    from harness.play.narrate import Narrator, summary_lines
    from harness.seats import plugin_traceback
    from harness.tourney.chunks import replay_game
    from harness.tourney.repro import find_game

    config = loaded.override(seed=seed, seating=seating, settings=settings)
    spec, deal, k = find_game(config, game)
    names = [spec.entrant_in(i, k).name for i in range(config.players)]
    click.echo(
        f"{config.name}: table {spec.table}, deal {deal}, seating {k} ({config.seating}); "
        f"{config.rules.describe()}, {config.dice} dice, seed {config.seed}"
    )
    for seat, name in enumerate(names):
        click.echo(f"  seat {seat}: {name}")
    result = replay_game(spec, deal, k, observer=Narrator(names, click.echo))
    for line in summary_lines(result):
        click.echo(line)
    if result.error is not None:
        if show_traceback:
            trace = plugin_traceback(result.error)
            echo_err(trace.rstrip("\n") if trace else "(no traceback: the seat raised nothing)")
        sys.exit(EXIT_FAILED)


@click.command("config-schema")
@user_errors
def config_schema_cmd() -> None:
    """Print the JSON Schema (draft 2020-12) of tournament configs, for editors.

    \b
    Example (VS Code with the YAML extension, in .vscode/settings.json):
      harness config-schema > harness-config.schema.json
      "yaml.schemas": {"./harness-config.schema.json": "configs/*.yaml"}
    """
    from harness.tourney.schema import config_schema

    click.echo(json.dumps(config_schema(), indent=2))
