"""The play loop of an adaptive run: batch after batch, each decided from the last.

The runner (:mod:`harness.tourney.runner`) calls :func:`play_batches` in place of its
fixed play loop when the config says ``schedule: adaptive``; the run's other phases
(status, resume, the backend, the sum-up) are the runner's own. For each batch k, in
order: the tables still open (:class:`~.schedule.Schedule`, from batches 0 .. k-1 only),
the batch's chunks (the fixed plan's own, by key), those already stored (a resume) or
stored by another run with the same content (reuse) kept, the rest played on the backend
and stored as they land; then the whole batch read back from the folder and fed to the
comparisons. Nothing of batch k+1 is handed out before batch k is whole, so the
schedule cannot depend on the order in which chunks land.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from harness.tourney.adaptive.schedule import read_games
from harness.tourney.backends import Backend, Failed, WorkersCannotStart
from harness.tourney.progress import Progress


def play_batches(run: Any, backend: Backend) -> None:
    """Play ``run``'s batches (a runner ``_Run`` with a ``schedule``) until the schedule
    ends: every comparison settled, every table at ``deals:``, or the budget. A chunk that
    fails, a stop (a forfeit under --fail-fast), Ctrl-C or workers that cannot start end
    the loop with the run's status saying so (resumable)."""
    import pyarrow.parquet  # noqa: F401 - loaded before the workers wait on the first store

    schedule, folder, played, options = run.schedule, run.folder, run.played, run.options
    target = run.config.adaptive
    total = target.budget or run.plan.games
    bar = Progress(total, run.stored_games(), stream=options.stream, bar=options.progress)
    bar.slowest = schedule.open_note()
    options.drawn.append(bar)
    started = time.monotonic()
    spent = 0
    # One cluster for every batch where the backend can hold one (Dask: seconds a start).
    hold = contextlib.ExitStack()
    try:
        hold.enter_context(getattr(backend, "held", contextlib.nullcontext)())
        for k in range(schedule.count):
            tables = schedule.open_tables()
            if not tables:
                break
            keys = schedule.keys(k, tables)
            games = schedule.games_of(keys)
            if target.budget is not None and spent + games > target.budget:
                schedule.ended = "budget"
                break
            if not options.fresh:
                run.reuse({key for key in keys if key not in folder.entries})
            missing = [key for key in keys if key not in folder.entries]
            if missing and not _play(run, backend, missing, bar):
                return
            if any(key not in folder.entries for key in keys):  # a chunk failed twice
                return
            parts = [folder.games_dir / folder.entries[key]["file"] for key in keys]
            schedule.feed(k, tables, read_games(parts, schedule.index, run.config.players))
            spent += games
            bar.slowest = schedule.open_note()
            bar.show(force=True)
        if not schedule.ended:
            schedule.ended = "deals" if schedule.open_pairs() else "settled"
    except KeyboardInterrupt:
        played.interrupted = True
        played.status = "interrupted"
    except WorkersCannotStart as exc:
        played.status = "interrupted"
        played.stopped_by = str(exc)
    finally:
        hold.close()
        bar.pending = 0
        bar.finish()
        options.drawn.remove(bar)
        run.ended = time.monotonic()
        played.played, played.wall = bar.played, run.ended - started


def _play(run: Any, backend: Backend, keys: list[str], bar: Progress) -> bool:
    """Play and store the chunks of ``keys``; False when the run stops here."""
    outcomes = backend.results(run.plan.spec_of(key) for key in keys)
    try:
        for outcome in outcomes:
            bar.pending = backend.in_flight()
            if outcome is None:
                bar.show()
            elif isinstance(outcome, Failed):
                run.failed(outcome)
            elif not run.store(outcome, bar):
                run.played.status = "stopped"
                return False
    finally:
        outcomes.close()
    return True
