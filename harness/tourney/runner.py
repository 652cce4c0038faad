"""Running a tournament: plan, resume or reuse, play the missing chunks, store, sum up.

This room ties the others together and owns no mechanism of its own: the plan
(:class:`.plan.Plan`, worked out once) says which chunks exist, the run folder
(:mod:`.storage`) which are done, a backend (any :class:`.backends.Backend`) plays the
rest, and every finished chunk is stored as soon as it lands, so a run stopped at any
moment can be resumed. A run goes through its phases in order (:class:`_Run`): its
status, resume, reuse, the backend, the play loop, the sum-up. Phases with a module of
their own: run.log (:mod:`.runlog`), run.json's content (:mod:`.run_record`), an
adaptive run's batch loop (:mod:`.adaptive.loop`).
"""

from __future__ import annotations

import logging
import os
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from harness.errors import HarnessError, RunFailed, plural, safe_text
from harness.game.ranking import zero_counts
from harness.interrupts import user_interrupts
from harness.plugins import volatile_note
from harness.results import Run
from harness.runfolder import layout
from harness.runfolder import tables as table_list
from harness.runfolder.layout import DEFAULT_OUT
from harness.runfolder.timing import merge as merge_times
from harness.runfolder.timing import seconds_text
from harness.seats.sandbox import missing_note, probe
from harness.seats.settings import SeatSettings
from harness.tourney import plan
from harness.tourney.adaptive.loop import play_batches
from harness.tourney.adaptive.schedule import Schedule
from harness.tourney.backends import Backend, Done, Failed, WorkersCannotStart, local_backend
from harness.tourney.config import TourneyConfig, load_config
from harness.tourney.config.python_entrants import main_entrants_here
from harness.tourney.grouping import GroupedPlan, make_plan
from harness.tourney.groups import GroupSpec
from harness.tourney.progress import Progress, planning_teller, watched
from harness.tourney.repro import reproduce_command
from harness.tourney.run_record import run_json, shown_engine
from harness.tourney.runlog import RunLogHandler, run_log
from harness.tourney.standings import standings, to_csv
from harness.tourney.storage import RunFolder, scan_reusable

log = logging.getLogger("harness.tourney")
SLOW_DECISION = 1e-3  # seconds a decision: from here on the progress line names the slowest
BACKENDS = ("local", "dask")  # local: worker processes of our own; dask: Dask distributed


# What run_tournament returns: the run's results (harness.results.Run), with what the
# call did filled in. TourneyRun is its older name, kept for callers that import it.
TourneyRun = Run


class TourneyInterrupted(HarnessError):
    """Ctrl-C (or SIGTERM) stopped the run; ``run`` says what was saved."""

    def __init__(self, run: Run) -> None:
        self.run = run
        super().__init__(
            f"interrupted: {run.stored:,} of {plural(run.planned, 'game')} saved in {run.run_dir}; "
            "run the same command again to resume"
        )


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
        from harness.tourney.backends.dask import address_problem, require_distributed

        require_distributed()
        why = address_problem(address) if address else None
        if why is not None:  # bad input: one line, exit 2, before any folder is made
            raise HarnessError(f"--address {safe_text(address, 200)}: {why}")
        if not address and workers == 0:
            raise HarnessError(
                "workers: 0 plays in this process; a local Dask cluster needs 1 or more"
            )


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
    luck: str | None = None,
    report: bool = False,
    settings: SeatSettings | None = None,
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
    reused instead of played. ``progress`` forces the bar on or off (default: on for a
    terminal ``stream``, or in a notebook); ``echo`` gets one-line notes for people.
    ``backend="dask"`` plays the same games on the Dask scheduler at ``address``, or on
    a local Dask cluster of ``workers`` processes (``dashboard=True``: its dashboard).
    ``move_time``, ``game_time``, ``isolation``, ``engine`` ("native" refuses a table it
    cannot play, before playing), ``seating`` and ``luck`` (docs/luck.md) override the
    config's keys (``settings``, a SeatSettings: all five, not with them); ``report=True``
    writes the command's report too (:func:`report_run`). Raises :class:`TourneyInterrupted`
    on Ctrl-C, after saving what was done; a plugin's KeyboardInterrupt is its seat's forfeit.
    """
    started = time.monotonic()
    options = Options(fresh, fail_fast, progress, stream, echo, backend, address, dashboard)
    overrides = {"deals": deals, "games": games, "seed": seed, "workers": workers}
    overrides |= {"move_time": move_time, "game_time": game_time, "isolation": isolation}
    overrides |= {"engine": engine, "luck": luck, "settings": settings, "seating": seating}
    config = _prepared(config, options, overrides)
    # The plan, once: tables, engines (a table "native" cannot play is one line, here)
    # and every chunk's key (worked out once: at native speed, building them three times
    # cost as much as storing the chunks); chunks of several tables past CHUNK_CAP.
    the_plan = make_plan(config, progress=planning_teller(options.say))
    root, key = Path(out), the_plan.run_key
    why = layout.path_problem(root / config.name, folder=True)
    if why is not None:  # bad input: one line, nothing written
        raise HarnessError(f"{safe_text(out, 200)}: cannot hold run folders: {why}")
    # Finding the run and making it known (its lock taken, run.json "running") is one step
    # for all the starts of a config in ``out``: of two at once, the second finds the
    # first's run and is refused, as a later one is, instead of starting a twin beside it.
    with RunFolder.starting(root, config.name):
        existing = None if fresh else RunFolder.find(root, config.name, key)
        folder = RunFolder(existing or RunFolder.new_path(root, config.name, key))
        run = None
        try:
            folder.create()
            run = _Run(config, the_plan, folder, options, started)
            run.begin(resuming=existing is not None)
        except BaseException:
            folder.close()
            if existing is None:  # nothing of a run was written: leave no folder behind
                folder.discard()
            raise
    try:
        with run_log(folder.path / layout.RUN_LOG, options.say) as log_handler, user_interrupts():
            run.log_handler = log_handler
            done = run.go(resuming=existing is not None)
    finally:
        folder.close()
    if report and done.stored:
        report_run(done)
    return done


def report_run(run: Run, *, write: bool = True) -> dict[str, Any]:
    """The run's report written (``write=False``: its summary read from a current
    report.json, or computed, nothing written), its 95% win-share intervals and ratings
    copied into ``run.counts`` (in place: ``run.summary()`` shares the list), so that the
    terminal, ``--json`` and the report say the same; the summary. HarnessError or
    OSError as :func:`harness.report.write_report` raises them."""
    from harness.report import write_report  # looked up here: tests replace it
    from harness.report.api import cached_summary
    from harness.tourney.standings import with_report

    if write:
        made = write_report(run.run_dir)
        summary, run.report_file = made.summary, made.html
    else:
        summary = cached_summary(run.run_dir)
    run.counts[:] = with_report(run.counts, summary)
    return summary


@dataclass(frozen=True)
class Options:
    """How run_tournament was asked to run (besides the config)."""

    fresh: bool = False
    fail_fast: bool = False
    progress: bool | None = None
    stream: TextIO | None = None
    echo: Callable[[str], None] | None = None
    backend: str = "local"
    address: str | None = None
    dashboard: bool = False
    drawn: list[Progress] = field(default_factory=list)  # the bar of the play loop, if any
    notes: list[str] = field(default_factory=list)  # said before run.log was open: logged then

    def say(self, text: str) -> None:
        """A one-line note for people: to ``echo``; without it (a notebook, a script) on the
        progress stream where a person watches it (:func:`watched`), else nowhere. Never
        on the bar's line: a bar drawn in place is ended first and goes on below."""
        for bar in self.drawn:
            bar.end_line()
        if self.echo is not None:
            self.echo(text)
        elif watched(self.stream, self.progress):
            out = self.stream if self.stream is not None else sys.stderr
            out.write(f"{text}\n")
            out.flush()


def _prepared(
    config: TourneyConfig | str | os.PathLike[str] | dict[str, Any],
    options: Options,
    overrides: dict[str, Any],
) -> TourneyConfig:
    """The config as this call plays it (loaded, ``overrides`` applied), after the checks
    and notes that come before any folder is made (``options.notes``: those run.log keeps)."""
    if not isinstance(config, TourneyConfig):
        config = load_config(config)
    config = config.override(**overrides)
    _check_backend(options.backend, options.address, options.dashboard, config.workers)
    say = options.say
    config, note = main_entrants_here(config, options.backend)
    if note is not None:  # said to the person now, to run.log once it exists
        say(note)
        options.notes.append(note)
    if options.address and overrides["workers"] is not None:
        say(f"Note: the workers of the cluster at {options.address} play; --workers is ignored.")
    for entrant in config.all_entrants():
        note = volatile_note(entrant.spec.cls)
        if note is not None:
            say(f"Note: entrant {entrant.name}: {note}.")
    return config


@dataclass
class _Played:
    """What the play loop did: its status, what failed, the chunks each engine played."""

    status: str = "complete"
    interrupted: bool = False
    failed: list[dict[str, Any]] = field(default_factory=list)
    engine_used: dict[str, int] = field(default_factory=lambda: {"native": 0, "python": 0})
    played: int = 0  # games played (and stored) by this call
    wall: float = 0.0  # seconds of the loop
    stopped_by: str = ""  # what stopped the run although its input was fine (exit 1)


class _Run:
    """One call's run into one folder, phase by phase (:meth:`go`)."""

    def __init__(
        self,
        config: TourneyConfig,
        the_plan: plan.Plan | GroupedPlan,
        folder: RunFolder,
        options: Options,
        started: float,
        log_handler: logging.Handler | None = None,
    ) -> None:
        self.config = config
        self.plan = the_plan
        self.folder = folder
        self.options = options
        self.say = options.say
        self.started = started
        self.log_handler = log_handler
        self.created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self.ever = {"native": 0, "python": 0}  # chunks each engine played in earlier calls
        self.played = _Played()
        self.resumed = 0  # games kept from this folder
        self.sandbox_missing: list[str] = []  # what the isolated seats' sandbox lacks here
        self.reused = 0  # games copied from other runs' folders
        self.to_play = 0  # games left to play when play starts
        self.ended = started  # when the play loop ended
        self.times: dict[str, Any] = {}  # decision times of the chunks this call stored
        self.tables_file: dict[str, Any] | None = None  # run.json's "tables" of a grouped plan
        # schedule: adaptive: batches decided from the ones before (harness.tourney.adaptive)
        self.schedule = Schedule(config, the_plan) if config.adaptive is not None else None

    def go(self, resuming: bool) -> Run:
        """Every phase after :meth:`begin` in order; the run's results (TourneyInterrupted
        on Ctrl-C)."""
        for note in self.options.notes:  # said before run.log was open
            log.info("%s", note)
        self.status(resuming)
        self.keep()
        if self.schedule is None:
            self.reuse()
        backend = self.backend()
        if self.schedule is None:
            self.play(backend)
        else:  # batch by batch, each reusing what it can (harness.tourney.adaptive.loop)
            play_batches(self, backend)
        run = self.sum_up(backend)
        if self.played.interrupted:
            raise TourneyInterrupted(run)
        if self.played.stopped_by:
            raise RunFailed(
                f"{self.played.stopped_by}: {run.stored:,} of {plural(run.planned, 'game')} "
                f"saved in {run.run_dir}; run the same command again to resume"
            )
        return run

    def stored_games(self) -> int:
        return sum(e["games"] for e in self.folder.entries.values())

    def write_status(self, status: str, summary: dict[str, Any] | None = None) -> None:
        used = self.played.engine_used
        total = {name: self.ever[name] + used[name] for name in self.ever}
        data = run_json(
            self.config,
            self.folder,
            self.plan,
            status,
            self.created,
            summary,
            total,
            self.tables_file,
        )
        if self.schedule is not None:  # the comparisons and batches so far
            data["adaptive"] = self.schedule.summary()
        self.folder.write_run_json(data)

    # -- begin: run.json says "running" (the run is known to later starts) -------------------
    def begin(self, resuming: bool) -> None:
        folder = self.folder
        previous = folder.read_run_json() if resuming else None
        self.created = (previous or {}).get("created") or self.created
        earlier = (previous or {}).get("engine_used")
        if isinstance(earlier, dict):
            for name in self.ever:
                count = earlier.get(name)
                self.ever[name] = count if type(count) is int and count >= 0 else 0
        if isinstance(self.plan, GroupedPlan):  # its tables in a file of their own
            self.tables_file = self.write_tables()
        elif len(self.plan.tables) > plan.PROGRESS_EVERY:  # run.json lists every table
            self.say(f"Writing run.json ({len(self.plan.tables):,} tables) ...")
        self.write_status("running")

    def write_tables(self) -> dict[str, Any]:
        """The table list of a grouped plan, in its file (written at every start: the same
        bytes for the same run); what run.json says of it."""
        engines, luck = self.plan.engines, self.plan.luck
        data = table_list.tables_bytes(
            (t.id, t.names, shown_engine(engines.get(t.id)), luck[t.id]) for t in self.plan.tables
        )
        return table_list.write_tables(self.folder.path, data)

    # -- status: the folder's verified chunks are loaded ---------------------------------------
    def status(self, resuming: bool) -> None:
        config, folder = self.config, self.folder
        log.info(
            "%s run %s: %s, %s dice, %s seating, %d tables x %d deals x %d seat orders = %d "
            "games, seed %d",
            "resuming" if resuming else "starting",
            folder.path,
            config.rules.describe(),
            config.dice,
            config.seating,
            len(self.plan.tables),
            config.games,
            len(plan.design_of(config)),
            self.plan.games,
            config.seed,
        )
        if config.settings.isolation == "process":  # what this system's sandbox lacks, if anything
            self.sandbox_missing = list(probe())
            missing = missing_note(self.sandbox_missing)
            if missing is not None:
                log.warning("%s", missing)
                self.say(f"Note: {missing}.")
        for note in folder.load(set(self.plan.planned), self.plan.luck):
            log.warning("%s", note)
        self.resumed = self.stored_games()
        if self.resumed:
            self.say(
                f"Resuming {folder.path}: {self.resumed:,} of {plural(self.plan.games, 'game')} "
                "already stored."
            )

    # -- resume: every kept chunk held to the plan ---------------------------------------------
    def keep(self) -> None:
        """load() verified each kept chunk's bytes and rows against its manifest line;
        here the line must describe the chunk its key names (a line relabelled with
        another chunk's key is played again)."""
        folder = self.folder
        off_plan: dict[str, str] = {}
        for spec in self.plan.specs(lambda key: key in folder.entries):
            why = folder.against_plan(spec)
            if why is not None:
                off_plan[spec.key] = why
        if off_plan:
            for note in folder.drop(off_plan):
                log.warning("%s", note)
            self.resumed = self.stored_games()
        if folder.damaged:
            n = len(folder.damaged)
            more = f" (and {n - 1} more: run.log)" if n > 1 else ""
            self.say(f"Stored chunk failed verification, played again: {folder.damaged[0]}{more}")

    # -- reuse: missing chunks from other runs' folders with the same content ------------------
    def reuse(self, wanted: set[str] | None = None) -> None:
        """Each missing chunk (of ``wanted``: an adaptive run's batch; None: the plan) may
        come from another run's folder, verified as a kept one (and refused unless its
        line records that its process loaded only its entrants' code). Not with --fresh."""
        folder = self.folder
        if self.options.fresh:
            return
        keys = self.plan.planned if wanted is None else wanted
        missing = {key for key in keys if key not in folder.entries}
        if not missing:
            return
        reused_from: set[str] = set()
        reused = 0
        for source, entry in scan_reusable(folder.path.parent.parent, missing, folder.path):
            if entry["key"] in folder.entries:
                continue
            if folder.link_chunk(self.plan.spec_of(entry["key"]), source, entry):
                reused += folder.entries[entry["key"]]["games"]
                reused_from.add(str(source))
        self.reused += reused
        if reused:
            where = ", ".join(sorted(reused_from))
            said = f"Reused {plural(reused, 'game')} (chunks with the same content) from {where}."
            self.say(said)
            log.info("reused %d games from %s", reused, where)

    # -- the backend: where the missing chunks are played ------------------------------------
    def backend(self) -> Backend:
        config, options, entries = self.config, self.options, self.folder.entries
        to_play = sum(games for key, games in self.plan.planned.items() if key not in entries)
        self.to_play = to_play
        chunks_left = sum(1 for key in self.plan.planned if key not in entries)
        if self.schedule is not None:  # a batch: a chunk or a few a table
            chunks_left = min(chunks_left, len(self.plan.tables))
        wanted = config.workers if config.workers is not None else default_workers()
        player = _backend(options, wanted, chunks_left, self.folder, self.log_handler)
        if chunks_left:
            where = player.describe()
            engines = self.plan.engines
            native_tables = sum(shown_engine(e) == "native" for e in engines.values())
            if native_tables == len(engines):
                where += ", native engine"
            elif native_tables:
                where += f", native engine for {native_tables} of {plural(len(engines), 'table')}"
            chunk_count = plural(chunks_left, "chunk")
            if self.schedule is not None and config.adaptive is not None:
                chunk_count = f"adaptive, batches of {config.adaptive.batch:,} deals"
                log.info("%s", config.adaptive.describe())
                to_play = min(to_play, config.adaptive.budget or to_play)
            self.say(
                f"Playing {'up to ' if self.schedule else ''}{plural(to_play, 'game')} "
                f"({chunk_count}, {where}) into {self.folder.path}"
            )
            log.info("playing %d games in %d chunks (%s)", to_play, chunks_left, where)
        return player

    # -- the play loop: every outcome stored (or told) as it lands ---------------------------
    def play(self, backend: Backend) -> None:
        # pyarrow takes a fifth of a CPU-second to import: have that done before the workers
        # start, not while they wait for the first chunk to be stored. Not pandas (twice
        # that): storing chunks never needs it, and the report imports it when it does.
        import pyarrow.parquet  # noqa: F401

        total, played, folder = self.plan.games, self.played, self.folder
        options = self.options
        bar = Progress(total, total - self.to_play, stream=options.stream, bar=options.progress)
        options.drawn.append(bar)
        play_start = time.monotonic()
        outcomes = backend.results(self.plan.specs(lambda key: key not in folder.entries))

        def refresh() -> None:
            bar.pending = backend.in_flight()
            bar.slowest = self.slowest(backend)
            bar.show()

        if hasattr(backend, "refresh"):  # a backend that plays in this process
            backend.refresh = refresh  # type: ignore[attr-defined]
        try:
            for outcome in outcomes:
                bar.pending = backend.in_flight()  # before a landed chunk is counted
                bar.slowest = self.slowest(backend)
                if outcome is None:
                    bar.show()
                elif isinstance(outcome, Failed):
                    self.failed(outcome)
                elif not self.store(outcome, bar):
                    played.status = "stopped"
                    break
        except KeyboardInterrupt:
            played.interrupted = True
            played.status = "interrupted"
        except WorkersCannotStart as exc:
            # Nothing stored is lost: say what died, mark the run resumable, and stop.
            played.status = "interrupted"
            played.stopped_by = str(exc)
        finally:
            outcomes.close()  # stops the workers at once if anything is left
            bar.pending = 0  # the last line counts what was stored
            bar.finish()
            options.drawn.remove(bar)
            self.ended = time.monotonic()
            played.played, played.wall = bar.played, self.ended - play_start

    def slowest(self, backend: Backend) -> str:
        """The strategy slowest to decide so far, for the progress line (chunks stored
        by this call and, where the backend tells, chunks in play), once its decisions
        take a millisecond or more; else nothing."""
        seen = {name: (t["decisions"], t["seconds"]) for name, t in self.times.items()}
        live = getattr(backend, "decision_times", None)
        for name, (n, seconds) in (live() if live is not None else {}).items():
            have = seen.get(name, (0, 0.0))
            seen[name] = (have[0] + n, have[1] + seconds)
        means = {name: s / n for name, (n, s) in seen.items() if n}
        if not means:
            return ""
        name = max(means, key=lambda k: (means[k], k))
        if means[name] < SLOW_DECISION:
            return ""
        return f"slowest to decide: {name}, {seconds_text(means[name])} a decision"

    def failed(self, outcome: Failed) -> None:
        spec = outcome.spec
        where = {"tables": list(spec.table_ids)} if isinstance(spec, GroupSpec) else {}
        self.played.failed.append(
            {
                "table": spec.table,
                **where,
                "entrants": [e.name for e in spec.entrants],
                "deals": [spec.first, spec.stop - 1],
                "reason": outcome.reason,
            }
        )
        self.say(f"chunk failed: {spec.describe()}: {outcome.reason}")
        self.played.status = "incomplete"

    def store(self, outcome: Done, bar: Progress) -> bool:
        """Store a played chunk; False when the run stops here (a forfeit, --fail-fast)."""
        entry = self.folder.write_chunk(outcome.spec, outcome.result)
        merge_times(self.times, outcome.result.times)
        used = "native" if outcome.result.engine == "native" else "python"
        self.played.engine_used[used] += 1
        bar.add(outcome.result.rows)
        if not entry["forfeits"]:
            return True
        for example in entry["forfeit_examples"]:
            log.warning(
                "forfeit: table %s deal %d seating %d: %s",
                outcome.spec.table,
                example["deal"],
                example["seating"],
                example["error"],
            )
        return not self.options.fail_fast

    # -- the sum-up: standings from the verified chunks, run.json, summary.csv ---------------
    def sum_up(self, backend: Backend) -> Run:
        """Chunks played now, resumed and reused alike were counted from their rows as
        stored (never from numbers in the manifest), so these standings, summary.csv and
        the report agree by construction."""
        config, folder, played = self.config, self.folder, self.played
        stats = backend.stats()
        for line in stats.lines:
            log.info("%s", line)
        log.info(
            "played %d games in %.1f s; peak memory: this process %.0f MB, largest worker %.0f MB",
            played.played,
            played.wall,
            peak_mb(resource.RUSAGE_SELF),
            peak_mb(resource.RUSAGE_CHILDREN),
        )
        status = self.final_status()
        totals = zero_counts(e.name for e in config.all_entrants())
        totals.update(folder.totals)
        rows = standings(totals)
        tables_by_id = {t.id: t for t in self.plan.tables}
        examples = [
            {**e, "command": reproduce_command(config, tables_by_id[e["table"]], e)}
            for e in folder.examples
        ]
        run = Run(
            run_dir=folder.path,
            name=config.name,
            format=config.format,
            status=status,
            counts=rows,
            planned=self.planned_games(),
            stored=self.stored_games(),
            played=played.played,
            reused=self.reused,
            resumed=self.resumed,
            wall=self.ended - self.started,
            workers=backend.workers,
            forfeits=folder.forfeits,
            forfeit_examples=examples,
            failed=played.failed,
            worker_wait=stats.worker_wait,
            engine=config.settings.engine,
            engine_used=dict(played.engine_used),
            sandbox_missing=list(self.sandbox_missing),
        )
        self.write_status(status, run.summary())
        if status == "complete":
            folder.write_text(layout.SUMMARY_CSV, to_csv(rows))
        log.info("run %s: %s", status, folder.path)
        return run

    def final_status(self) -> str:
        """The loop's status; before calling the run complete, every chunk's sha256 is
        checked once more (cheap: hashing only), so a chunk damaged while the run went
        on is never part of a "complete" run."""
        status = self.played.status
        if status != "complete":
            return status
        if self.schedule is not None and not self.schedule.ended:  # a batch could not finish
            return "incomplete"
        changed = self.folder.recheck()
        if changed:
            for note in changed:
                log.warning("%s; run again to play it again", note)
            self.say(
                f"{plural(len(changed), 'stored chunk')} changed on disk during the run "
                f"({changed[0]}); run the same command again to play them again."
            )
            return "incomplete"
        if self.stored_games() != self.planned_games():  # cannot happen; never claim it
            return "incomplete"
        return status

    def planned_games(self) -> int:
        """The games the run plays: the plan's; an adaptive run's once its schedule ended
        (the games it stored), the plan's most until then."""
        if self.schedule is not None and self.schedule.ended:
            return self.stored_games()
        return self.plan.games


def _backend(
    options: Options,
    wanted: int,
    chunks_left: int,
    folder: RunFolder,
    log_handler: logging.Handler | None,
) -> Backend:
    """The backend for ``chunks_left`` chunks: Dask when asked (and there is work), else
    ``wanted`` worker processes of our own (at most one per chunk), or this process."""
    if options.backend == "dask" and chunks_left:
        from harness.tourney.backends.dask import DaskBackend

        return DaskBackend(
            address=options.address,
            workers=min(wanted, chunks_left),
            dashboard=options.dashboard,
            scratch=folder.path / layout.SCRATCH,
            log_to=log_handler,
            echo=options.say,
        )
    n_workers = min(wanted, chunks_left) if wanted > 0 else 0
    return local_backend(n_workers, log_handler, echo=options.say)


__all__ = [
    "Run",
    "RunLogHandler",
    "TourneyRun",
    "TourneyInterrupted",
    "run_log",
    "run_tournament",
]
