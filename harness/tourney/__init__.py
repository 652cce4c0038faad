"""Tournaments: seeded, parallel, resumable runs of many games (``harness tourney``).

The rooms, in the order a run goes through them::

    config    read and check the YAML, resolve the entrants
    plan      tables, seeds, chunks and their content keys (pure)
    chunks    play one chunk -> compact columnar result (pure; what a worker runs)
    backends/ where chunks are played: worker processes, in-process, or as tasks on a
              Dask cluster (one interface, one account of retries)
    storage   the run folder: run.json, Parquet part files, manifest, summary.csv
    progress  the bar on a terminal, log lines otherwise
    standings the table at the end
    repro     playing one stored game again (forfeits: the command to reproduce)
    runner    ties them together in phases: run_tournament()
    repair    play a run's damaged or missing chunks again (``harness report --repair``)
    schema    the JSON Schema of configs (``harness config-schema``)

The ``harness tourney`` and ``harness config-schema`` commands are
:mod:`harness.commands.tourney`.

Below this room: the seat orders of a deal (:mod:`harness.game.seating`), the engines
(:mod:`harness.game.engine`, :mod:`harness.native`), the ranking (:mod:`harness.game.ranking`).
``harness sprt`` (:mod:`harness.sprt`, a room beside this one) plays its deals on the
same chunks and backends; nothing here imports it.

From Python (e.g. a notebook)::

    from harness.tourney import run_tournament
    run = run_tournament("configs/round_robin.yaml", deals=200)  # a harness.results.Run
    run.run_dir, run.standings   # the report's standings: a DataFrame, best first
    run.counts                   # the runner's counts per entrant: a list of dicts
    games = run.games            # a pandas DataFrame, one row per game
"""

from typing import Any

_EXPORTS = {
    "TourneyConfig": "harness.tourney.config",
    "load_config": "harness.tourney.config",
    "TourneyInterrupted": "harness.tourney.runner",
    "Run": "harness.results",
    "TourneyRun": "harness.tourney.runner",
    "run_tournament": "harness.tourney.runner",
}


def __getattr__(name: str) -> Any:
    # Lazy: `harness --help` imports this package (for the command) but not the runner.
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'harness.tourney' has no attribute {name!r}")


__all__ = [
    "Run",
    "TourneyConfig",
    "TourneyInterrupted",
    "TourneyRun",
    "load_config",
    "run_tournament",
]
