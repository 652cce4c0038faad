"""Running a tournament: plan, resume or reuse, play the missing chunks, store, sum up.

This room ties the others together and owns no mechanism of its own: the plan
(:mod:`.plan`) says which chunks exist, the run folder (:mod:`.storage`) which are
done, a backend (:mod:`.backend`) plays the rest, and every finished chunk is stored
as soon as it lands, so a run stopped at any moment can be resumed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import resource
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from harness import __version__, schema
from harness.errors import HarnessError, RunFailed, plural
from harness.interrupts import user_interrupts
from harness.plugins import volatile_note
from harness.results import Run
from harness.tourney import plan
from harness.tourney.backend import (
    Done,
    Failed,
    ProcessBackend,
    SerialBackend,
    WorkersCannotStart,
)
from harness.tourney.config import TourneyConfig, load_config
from harness.tourney.progress import Progress
from harness.tourney.repro import reproduce_command
from harness.tourney.standings import new_totals, standings, to_csv
from harness.tourney.storage import RunFolder, scan_reusable

log = logging.getLogger("harness.tourney")
DEFAULT_OUT = "results"
BACKENDS = ("local", "dask")  # local: worker processes of our own; dask: Dask distributed


# What run_tournament returns: the run's results (harness.results.Run), with what the
# call did filled in. TourneyRun is its older name, kept for callers that import it.
TourneyRun = Run


class TourneyInterrupted(HarnessError):
    """Ctrl-C (or SIGTERM) stopped the run; ``run`` says what was saved."""

    def __init__(self, run: Run) -> None:
        self.run = run
        super().__init__(
            f"interrupted: {run.stored:,} of {run.planned:,} games saved in {run.run_dir}; "
            "run the same command again to resume"
        )


# -- logging ------------------------------------------------------------------------------
@contextlib.contextmanager
def run_log(path: Path) -> Iterator[logging.Handler]:
    """Send the ``harness.tourney`` log to ``path`` for the run; yields the file handler.

    Workers send their records over their own pipes, as messages the parent hands to
    this handler (see backend: ``_SendRecords``, ``ProcessBackend._forward``), so
    workers' records land in the same file with no logging thread and no queue: the
    parent never forks (workers come from a single-threaded fork server), and Python
    3.12+'s "multi-threaded, use of fork() may lead to deadlocks" cannot apply. The
    stderr handlers of ``-v`` (:func:`harness.cli_common.console_log`) get the run's
    records too, since this log does not propagate.
    """
    from harness.cli_common import console_handlers

    logger = logging.getLogger("harness.tourney")
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(levelname)s %(message)s"))
    handler.setLevel(logging.INFO)  # -vv's debug records are for the terminal only
    old_level, old_propagate = logger.level, logger.propagate
    console = [h for h in console_handlers() if h not in logger.handlers]
    logger.addHandler(handler)
    for extra in console:
        logger.addHandler(extra)
    logger.setLevel(min([logging.INFO, *(h.level for h in console)]))
    logger.propagate = False
    try:
        yield handler
    finally:
        for extra in console:
            logger.removeHandler(extra)
        logger.removeHandler(handler)
        handler.close()
        logger.setLevel(old_level)
        logger.propagate = old_propagate


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run like Ctrl-C: cleanly, resumable."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        # As the user's Ctrl-C (harness.interrupts notes it, then raises): never taken
        # for a plugin's KeyboardInterrupt, even when it lands inside a plugin's call.
        from harness import interrupts

        interrupts._on_sigint(signum, frame)
        raise KeyboardInterrupt  # outside user_interrupts(), _on_sigint raises too

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def peak_mb(who: int) -> float:
    """Peak resident memory in MB (Linux reports kB)."""
    return resource.getrusage(who).ru_maxrss / 1024


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _check_backend(backend: str, address: str | None, dashboard: bool, workers: int | None) -> None:
    """Bad backend options are one line, before any folder is made."""
    if backend not in BACKENDS:
        raise HarnessError(f"backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if backend != "dask" and (address or dashboard):
        raise HarnessError("--address and --dashboard are for the Dask backend (--backend dask)")
    if backend == "dask":
        from harness.tourney.dask_backend import require_distributed

        require_distributed()
        if not address and workers == 0:
            raise HarnessError(
                "workers: 0 plays in this process; a local Dask cluster needs 1 or more"
            )


def _main_entrants_here(config: TourneyConfig, backend: str, say: Any) -> TourneyConfig:
    """A config whose entrants workers can build: a class of ``__main__`` (a notebook's or
    a script's own, e.g. passed to run_tournament as a class) exists only in this process
    (workers never import the user's main), so its games are played here (workers: 0)."""
    mains = [e.name for e in config.all_entrants() if e.load.startswith("__main__:")]
    if not mains:
        return config
    where = "this notebook or script (__main__)"
    if backend == "dask":
        raise HarnessError(
            f"entrant {mains[0]} is defined in {where}: Dask workers cannot import it; "
            "put it in a file (path/to/file.py:Class) or a module"
        )
    if config.workers == 0:
        return config
    say(
        f"Note: entrant {mains[0]} is defined in {where}, which worker processes cannot "
        "import: playing in this process (workers: 0); put it in a file to use workers."
    )
    return config.override(workers=0)


# -- the run ------------------------------------------------------------------------------
def run_tournament(
    config: TourneyConfig | str | os.PathLike[str] | dict[str, Any],
    *,
    deals: int | None = None,
    games: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    out: str | os.PathLike[str] = DEFAULT_OUT,
    fresh: bool = False,
    fail_fast: bool = False,
    progress: bool | None = None,
    stream: TextIO | None = None,
    echo: Any = None,
    backend: str = "local",
    address: str | None = None,
    dashboard: bool = False,
    move_time: float | None = None,
    game_time: float | None = None,
    isolation: str | None = None,
    engine: str | None = None,
    seating: str | None = None,
) -> Run:
    """Play a tournament (or the rest of it); its results and what was done: a
    :class:`harness.results.Run` (``run.standings``, ``run.counts``, ``run.seats()``,
    ``run.plot_*()``).

    ``config`` is a config file, a mapping or a :class:`TourneyConfig`; ``deals`` (or its
    old name ``games``), ``seed`` and ``workers`` override it. A mapping's entrants may be
    strategy classes and instances as well as references (:func:`harness.tourney.config.
    python_entrant` says how an instance is rebuilt); a class of ``__main__`` (defined in
    a notebook) is played in this process, since workers cannot import it. The run
    folder is ``out/<name>/<run id>``: a run of the same config there is resumed
    (``fresh=True`` starts a new one), and chunks of other runs with the same content are
    reused instead of played.
    ``progress`` forces the bar on or off (default: on when ``stream`` is a terminal, or
    in a notebook: a line redrawn in place);
    ``echo`` gets one-line notes for people (e.g. ``click.echo`` to stderr).
    ``backend="dask"`` plays the chunks on the Dask scheduler at ``address``, or on a
    local Dask cluster of ``workers`` processes (``dashboard=True`` serves its dashboard);
    the games and the run folder are the same whichever backend plays them.
    ``move_time``, ``game_time`` (seconds) and ``isolation`` ("none" or "process")
    override the config's seat limits; ``engine`` ("auto", "python", "native") its
    engine (the games are the same with each; "native" refuses, before anything is
    played, a table the native engine cannot play); ``seating`` ("balanced", "cyclic",
    "permutations") its seating mode.
    Raises :class:`TourneyInterrupted` on Ctrl-C, after saving what was done; a
    KeyboardInterrupt that a plugin raises is its seat's forfeit, never taken for it.
    """
    started = time.monotonic()
    if not isinstance(config, TourneyConfig):
        config = load_config(config)
    config = config.override(
        deals=deals,
        games=games,
        seed=seed,
        workers=workers,
        move_time=move_time,
        game_time=game_time,
        isolation=isolation,
        engine=engine,
        seating=seating,
    )
    _check_backend(backend, address, dashboard, config.workers)
    say = echo or (lambda text: None)
    config = _main_entrants_here(config, backend, say)
    if address and workers is not None:
        say(f"Note: the workers of the cluster at {address} play; --workers is ignored.")
    for entrant in config.all_entrants():
        note = volatile_note(entrant.spec.cls)
        if note is not None:
            say(f"Note: entrant {entrant.name}: {note}.")
    root = Path(out)
    table_list = plan.tables(config)
    # Which engine plays each table: a table "native" cannot play is one line, here.
    engines = {t.id: plan.table_engine(config, t) for t in table_list}
    planned = {spec.key: spec.games for spec in plan.chunks(config, table_list)}
    total_games = sum(planned.values())
    key = plan.run_key(config)
    existing = None if fresh else RunFolder.find(root, config.name, key)
    folder = RunFolder(existing or RunFolder.new_path(root, config.name, key))
    folder.create()
    try:
        with (
            run_log(folder.path / "run.log") as log_handler,
            sigterm_as_interrupt(),
            user_interrupts(),
        ):
            return _run(
                config,
                folder,
                table_list,
                planned,
                total_games,
                key,
                engines,
                resuming=existing is not None,
                fresh=fresh,
                fail_fast=fail_fast,
                progress=progress,
                stream=stream,
                say=say,
                started=started,
                log_handler=log_handler,
                backend=backend,
                address=address,
                dashboard=dashboard,
            )
    finally:
        folder.close()


def _run_json(
    config: TourneyConfig,
    folder: RunFolder,
    table_list: list[plan.Table],
    key: str,
    total_games: int,
    chunks: int,
    status: str,
    created: str,
    summary: dict[str, Any] | None = None,
    engines: dict[str, str] | None = None,
    engine_used: dict[str, int] | None = None,
) -> dict[str, Any]:
    engines = engines or {}
    return {
        "name": config.name,
        "run_id": folder.path.name,
        "key": key,
        "status": status,
        "created": created,
        "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "config_file": config.source,
        "version": __version__,
        "python": platform.python_version(),
        "engine": plan.engine_digest(),
        "engine_choice": config.engine,
        # Chunks of this folder played by each engine, over every call (not reused ones).
        "engine_used": dict(engine_used or {}),
        "schema": schema.SCHEMA_VERSION,
        "rules": config.rules.to_dict(),
        "players": config.players,
        "format": config.format,
        "dice": config.dice,
        "games": config.games,
        "seed": config.seed,
        # Seat i of a row with seating k held table entrant design[k][i] (tables[].entrants).
        "seating": config.seating,
        "design": plan.design_of(config),
        "max_turns": config.max_turns,
        "move_time": config.move_time,
        "game_time": config.game_time,
        "isolation": config.isolation,
        "chunk": config.deals_per_chunk,
        "challenger": config.challenger.name if config.challenger else None,
        "entrants": [e.identity() for e in config.all_entrants()],
        "tables": [
            {"id": t.id, "entrants": t.names, "engine": _shown_engine(engines.get(t.id))}
            for t in table_list
        ],
        "totals": {
            "tables": len(table_list),
            "deals": len(table_list) * config.games,
            "games": total_games,
            "chunks": chunks,
        },
        "summary": summary,
    }


def _shown_engine(engine: str | None) -> str:
    """A table's engine as run.json says it: native or python."""
    return "python" if engine in (None, "python") else "native"


def _run(
    config: TourneyConfig,
    folder: RunFolder,
    table_list: list[plan.Table],
    planned: dict[str, int],
    total_games: int,
    key: str,
    engines: dict[str, str],
    *,
    resuming: bool,
    fresh: bool,
    fail_fast: bool,
    progress: bool | None,
    stream: TextIO | None,
    say: Any,
    started: float,
    log_handler: logging.Handler | None = None,
    backend: str = "local",
    address: str | None = None,
    dashboard: bool = False,
) -> Run:
    previous = folder.read_run_json() if resuming else None
    created = (previous or {}).get("created") or time.strftime("%Y-%m-%dT%H:%M:%S%z")
    earlier = (previous or {}).get("engine_used")
    engine_used: dict[str, int] = {"native": 0, "python": 0}  # chunks played by this call
    ever = dict.fromkeys(engine_used, 0)  # and over every call into this folder
    if isinstance(earlier, dict):
        for name in ever:
            count = earlier.get(name)
            ever[name] = count if type(count) is int and count >= 0 else 0

    def write_status(status: str, summary: dict[str, Any] | None = None) -> None:
        total = {name: ever[name] + engine_used[name] for name in ever}
        folder.write_run_json(
            _run_json(
                config,
                folder,
                table_list,
                key,
                total_games,
                len(planned),
                status,
                created,
                summary,
                engines,
                total,
            )
        )

    write_status("running")
    log.info(
        "%s run %s: %s, %s dice, %s seating, %d tables x %d deals x %d seat orders = %d "
        "games, seed %d",
        "resuming" if resuming else "starting",
        folder.path,
        config.rules.describe(),
        config.dice,
        config.seating,
        len(table_list),
        config.games,
        len(plan.design_of(config)),
        total_games,
        config.seed,
    )
    for note in folder.load(set(planned)):
        log.warning("%s", note)
    resumed = sum(e["games"] for e in folder.entries.values())
    if resumed:
        say(f"Resuming {folder.path}: {resumed:,} of {total_games:,} games already stored.")

    # Reuse chunks of earlier runs with the same content (not with --fresh). First every
    # chunk kept from this run's folder is held to the plan: load() verified its bytes
    # and rows against its manifest line; here the line must describe the chunk its key
    # names (a line relabelled with another chunk's key is played again). Then each
    # missing chunk may come from another run's folder, verified the same way (and
    # refused unless its line records that its process loaded only its entrants' code).
    reused = 0
    reused_from: set[str] = set()
    missing_specs: dict[str, Any] = {}
    off_plan: dict[str, str] = {}
    for spec in plan.chunks(config, table_list):
        if spec.key not in folder.entries:
            if not fresh:
                missing_specs[spec.key] = spec
            continue
        why = folder.against_plan(spec)
        if why is not None:
            off_plan[spec.key] = why
            if not fresh:
                missing_specs[spec.key] = spec
    if off_plan:
        for note in folder.drop(off_plan):
            log.warning("%s", note)
        resumed = sum(e["games"] for e in folder.entries.values())
    if folder.damaged:
        more = f" (and {len(folder.damaged) - 1} more: run.log)" if len(folder.damaged) > 1 else ""
        say(f"Stored chunk failed verification, played again: {folder.damaged[0]}{more}")
    if missing_specs:
        root = folder.path.parent.parent
        for source, entry in scan_reusable(root, set(missing_specs), folder.path):
            if entry["key"] in folder.entries:
                continue
            if folder.link_chunk(missing_specs[entry["key"]], source, entry):
                reused += folder.entries[entry["key"]]["games"]
                reused_from.add(str(source))
    del missing_specs
    if reused:
        where = ", ".join(sorted(reused_from))
        say(f"Reused {reused:,} games (chunks with the same content) from {where}.")
        log.info("reused %d games from %s", reused, where)

    # The chunks to play, as a generator (memory stays flat however many there are).
    def todo_chunks() -> Any:
        return (s for s in plan.chunks(config, table_list) if s.key not in folder.entries)

    to_play = sum(games for key, games in planned.items() if key not in folder.entries)
    chunks_left = sum(1 for key in planned if key not in folder.entries)
    wanted = config.workers if config.workers is not None else default_workers()
    n_workers = min(wanted, chunks_left) if wanted > 0 else 0
    if backend == "dask" and chunks_left:
        from harness.tourney.dask_backend import SCRATCH, DaskBackend

        player: Any = DaskBackend(
            address=address,
            workers=min(wanted, chunks_left),
            dashboard=dashboard,
            scratch=folder.path / SCRATCH,
            log_to=log_handler,
            echo=say,
        )
        where = player.describe()
    else:
        player = (
            ProcessBackend(n_workers, log_handler) if n_workers > 0 else SerialBackend(echo=say)
        )
        where = f"{n_workers} worker{'s' if n_workers > 1 else ''}" if n_workers else "in-process"
    if chunks_left:
        native_tables = sum(_shown_engine(e) == "native" for e in engines.values())
        if native_tables == len(engines):
            where += ", native engine"
        elif native_tables:
            where += f", native engine for {native_tables} of {len(engines)} tables"
        chunk_count = plural(chunks_left, "chunk")
        say(f"Playing {to_play:,} games ({chunk_count}, {where}) into {folder.path}")
        log.info("playing %d games in %d chunks (%s)", to_play, chunks_left, where)

    # pyarrow (and the pandas it loads) take about a second to import: have that done
    # before the workers start, not while they wait for the first chunk to be stored.
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    bar = Progress(total_games, total_games - to_play, stream=stream, bar=progress)
    failed: list[dict[str, Any]] = []
    status = "complete"
    interrupted = False
    play_start = time.monotonic()
    outcomes = player.results(todo_chunks())
    try:
        for outcome in outcomes:
            if outcome is None:
                bar.show()
                continue
            if isinstance(outcome, Failed):
                spec = outcome.spec
                failed.append(
                    {
                        "table": spec.table,
                        "entrants": [e.name for e in spec.entrants],
                        "deals": [spec.first, spec.stop - 1],
                        "reason": outcome.reason,
                    }
                )
                say(f"chunk failed: {spec.describe()}: {outcome.reason}")
                status = "incomplete"
                continue
            assert isinstance(outcome, Done)
            entry = folder.write_chunk(outcome.spec, outcome.result)
            used = "native" if outcome.result.engine == "native" else "python"
            engine_used[used] += 1
            bar.add(outcome.result.rows)
            if entry["forfeits"]:
                for example in entry["forfeit_examples"]:
                    log.warning(
                        "forfeit: table %s deal %d seating %d: %s",
                        outcome.spec.table,
                        example["deal"],
                        example["seating"],
                        example["error"],
                    )
                if fail_fast:
                    status = "stopped"
                    break
    except KeyboardInterrupt:
        interrupted = True
        status = "interrupted"
    except WorkersCannotStart as exc:
        raise RunFailed(str(exc)) from None
    finally:
        outcomes.close()  # stops the workers at once if anything is left
        bar.finish()
    wall = time.monotonic() - started
    played_wall = time.monotonic() - play_start
    worker_wait = 0.0
    if isinstance(player, ProcessBackend) and player.busy > 0:
        worker_wait = player.waited / (player.busy + player.waited)
        log.info(
            "workers played for %.1f s and waited %.3f s for work between chunks (%.2f%%)",
            player.busy,
            player.waited,
            100 * player.waited / (player.busy + player.waited),
        )
    if isinstance(player, ProcessBackend) and (player.replaced or player.restarted):
        log.info(
            "workers started afresh: %d for tables with other plugins, %d after a death",
            player.replaced,
            player.restarted,
        )
    log.info(
        "played %d games in %.1f s; peak memory: this process %.0f MB, largest worker %.0f MB",
        bar.played,
        played_wall,
        peak_mb(resource.RUSAGE_SELF),
        peak_mb(resource.RUSAGE_CHILDREN),
    )

    # Sum up from the verified chunks: chunks played now, resumed and reused alike were
    # counted from their rows as stored (never from numbers in the manifest), so these
    # standings, summary.csv and the report agree by construction. Before calling the run
    # complete, every chunk's sha256 is checked once more (cheap: hashing only), so a
    # chunk damaged while the run went on is never part of a "complete" run.
    if status == "complete":
        changed = folder.recheck()
        if changed:
            for note in changed:
                log.warning("%s; run again to play it again", note)
            say(
                f"{plural(len(changed), 'stored chunk')} changed on disk during the run "
                f"({changed[0]}); run the same command again to play them again."
            )
            status = "incomplete"
    totals = new_totals(e.name for e in config.all_entrants())
    for name, counters in folder.totals.items():
        totals[name] = counters
    rows = standings(totals)
    stored = sum(e["games"] for e in folder.entries.values())
    if status == "complete" and stored != total_games:  # cannot happen; never claim it
        status = "incomplete"
    tables_by_id = {t.id: t for t in table_list}
    examples = [
        {
            **example,
            "command": reproduce_command(config, tables_by_id[example["table"]], example),
        }
        for example in folder.examples
    ]
    forfeits = folder.forfeits
    run = Run(
        run_dir=folder.path,
        name=config.name,
        format=config.format,
        status=status,
        counts=rows,
        planned=total_games,
        stored=stored,
        played=bar.played,
        reused=reused,
        resumed=resumed,
        wall=wall,
        workers=player.workers,
        forfeits=forfeits,
        forfeit_examples=examples,
        failed=failed,
        worker_wait=worker_wait,
        engine=config.engine,
        engine_used=dict(engine_used),
    )
    summary = run.summary()
    write_status(status, summary)
    if status == "complete":
        folder.write_text("summary.csv", to_csv(rows))
    log.info("run %s: %s", status, folder.path)
    if interrupted:
        raise TourneyInterrupted(run)
    return run


__all__ = ["Run", "TourneyRun", "TourneyInterrupted", "run_tournament"]
