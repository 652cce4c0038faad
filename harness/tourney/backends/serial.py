"""The in-process backend (``workers: 0``), for debuggers and profilers."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator

from harness.errors import safe_text, type_name
from harness.interrupts import reraise_if_user
from harness.runfolder.timing import ChunkTimes
from harness.seats import Beacon
from harness.seats.output import (
    OUTPUT_LOGGER,
    Outside,
    PluginOutput,
    contained,
)
from harness.tourney.backends.base import (
    PUBLISH_EVERY,
    BackendStats,
    Done,
    Outcome,
    Retries,
    log,
    user_codes,
)
from harness.tourney.chunks import Playing
from harness.tourney.groups import Chunk, play


class SerialBackend:
    """Plays every chunk in this process (``workers: 0``): for debuggers and profilers.

    A plugin's exceptions (SystemExit and its KeyboardInterrupt too) and output are
    contained; what one process cannot contain (a plugin that kills it, loops in C
    code, or patches other strategies when imported) is said once, in one line.
    """

    workers = 0

    def __init__(self, echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo or (lambda text: None)
        self.now = Playing()  # the game in play: play_chunk writes it, the output reads it
        emit = logging.getLogger(OUTPUT_LOGGER).info
        self.output = PluginOutput(lambda text: emit("%s", text), self.now)
        self.warned: set[str] = set()
        self.retries = Retries()
        self.watch = _SerialWatch()
        # Called between two games: results() cannot yield while a chunk plays here, so
        # the caller refreshes its progress from here (the runner sets it).
        self.refresh: Callable[[], None] | None = None

    def in_flight(self) -> int:
        """Games played of the chunk in play (told game by game by its watch)."""
        return max(0, self.watch.row)

    def decision_times(self) -> dict[str, tuple[int, float]]:
        """The timed decisions of the chunk in play so far, by strategy."""
        return self.watch.decision_times()

    def describe(self) -> str:
        return "in-process"

    def stats(self) -> BackendStats:
        return BackendStats()

    def _warn_once(self, what: str, text: str, told: str | None = None) -> None:
        """Once a run: to run.log, and to the person (the run's notes: in a notebook or a
        script, its progress stream), in ``told``'s fewer words if given."""
        if what not in self.warned:
            self.warned.add(what)
            log.warning("%s", text)
            self.echo(f"Note: {told or text}")

    def results(self, specs: Iterable[Chunk]) -> Iterator[Outcome]:
        for spec in specs:
            if spec.limited and spec.settings.isolation == "none" and user_codes(spec):
                self._warn_once(
                    "limits",
                    "workers: 0 plays in harness's own process, where a plugin could catch "
                    "or disarm the timer, or loop in C code, and never return: plugin seats "
                    "under time limits play in processes of their own",
                )
            while True:
                self.output.begin()
                times = self.watch.start(spec, self.refresh)
                try:
                    with contained(self.output) as way_out:
                        self.watch.way_out = way_out
                        result = play(spec, watch=self.watch, times=times, now=self.now)
                except BaseException as exc:
                    self.watch.stop()
                    if isinstance(exc, GeneratorExit):
                        raise
                    reraise_if_user(exc)  # the user's Ctrl-C stops the run; a plugin's not
                    failed = self.retries.failed(spec, f"{type_name(exc)}: {safe_text(exc)}")
                    if failed is None:
                        continue
                    yield failed
                    break
                self.watch.stop()
                result.output = dict(self.output.written)
                if not set(result.loaded) <= user_codes(spec):
                    self._warn_once(
                        "loaded",
                        "workers: 0 plays every table in this one process, with every "
                        "plugin loaded: a plugin that patches other strategies would change "
                        "their games too, so later runs will not reuse these chunks; use "
                        "workers: 1 or more (every class in a file or a module) to play each "
                        "table with its own code only",
                        "workers: 0 put every plugin in one process: later runs will not reuse "
                        "these chunks (run.log)",
                    )
                yield Done(spec, result)
                break


class _SerialWatch(Beacon):
    """Serial play's watch: the row of the game in play, and a call to the runner's
    refresh after each game (the only moment it can show progress)."""

    def __init__(self) -> None:
        self.row = -1
        self.names: list[str] = []
        self.times: ChunkTimes | None = None
        self.refresh: Callable[[], None] | None = None
        self.way_out = Outside()
        self.told = 0.0

    def start(self, spec: Chunk, refresh: Callable[[], None] | None) -> ChunkTimes:
        """A chunk begins: its decision times, counted from nothing."""
        self.row, self.refresh = -1, refresh
        self.names = [e.name for e in spec.entrants]
        self.times = ChunkTimes(len(spec.entrants))
        return self.times

    def stop(self) -> None:
        self.row, self.times, self.refresh = -1, None, None
        self.way_out = Outside()

    def game(self, row: int) -> None:
        self.row = row
        if self.refresh is None:
            return
        now = time.monotonic()
        if now - self.told >= PUBLISH_EVERY:  # the bar redraws a few times a second at most
            self.told = now
            with self.way_out.outside():  # the progress line to the terminal, not run.log
                self.refresh()

    def decision_times(self) -> dict[str, tuple[int, float]]:
        if self.times is None:
            return {}
        totals = zip(self.names, self.times.totals(), strict=True)
        return {name: t for name, t in totals if t[0]}
