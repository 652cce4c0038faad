"""The one face every backend shows (:class:`Backend`), its outcomes, the one account of
retries, and which entrants are user code. See :mod:`harness.tourney.backends`."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from harness.errors import describe_exit as describe_exit  # the backends' word for a death
from harness.plugins import builtin_strategies, is_own_module, names_a_file, parse_reference
from harness.tourney.chunks import (
    ChunkResult,
)
from harness.tourney.groups import Chunk
from harness.tourney.plan import EntrantRef

log = logging.getLogger("harness.tourney")
ATTEMPTS = 2  # a chunk that raises is tried once more, then reported
POLL = 0.25  # seconds between progress refreshes (and watchdog looks) while nothing lands
PUBLISH_EVERY = 0.25  # seconds between two publications of the decision times


@dataclass
class Done:
    spec: Chunk
    result: ChunkResult


@dataclass
class Failed:
    spec: Chunk
    reason: str
    refused: bool = False  # the worker refused to play it (other code than the parent's)


Outcome = Done | Failed | None


@dataclass(frozen=True)
class BackendStats:
    """What a backend tells the run about how it went: the share of time its workers
    waited for work (``Run.worker_wait``), and lines for run.log."""

    worker_wait: float = 0.0
    lines: tuple[str, ...] = ()


@runtime_checkable
class Backend(Protocol):
    """Where chunks are played: the one face every backend shows the runner (and sprt).

    ``results(specs)`` is a generator of outcomes (see the module docstring); closing it
    stops the work at once and frees what the backend started (processes, a cluster),
    so a backend needs no close of its own. ``workers`` is how many play (0: this
    process), ``describe()`` says where, in words, and ``stats()`` how it went.
    ``in_flight()`` is how many games of chunks not yet handed over have been played
    already (what the progress bar adds to the stored ones; 0 when it cannot tell).
    """

    workers: int

    def results(self, specs: Iterable[Chunk]) -> Iterator[Outcome]: ...

    def describe(self) -> str: ...

    def stats(self) -> BackendStats: ...

    def in_flight(self) -> int: ...


class Retries:
    """The one account of chunks whose playing raised: each is played again, up to
    ``attempts`` times in all, then reported; run.log says which happened."""

    def __init__(self, attempts: int = ATTEMPTS) -> None:
        self.attempts = attempts
        self.failures: dict[str, int] = {}  # chunk key -> attempts that raised so far

    def attempt(self, spec: Chunk) -> int:
        """The number of the chunk's next attempt (1 for the first)."""
        return self.failures.get(spec.key, 0) + 1

    def failed(self, spec: Chunk, reason: str) -> Failed | None:
        """One attempt raised: None to play it again, or the Failed outcome to report."""
        tried = self.attempt(spec)
        if tried < self.attempts:
            self.failures[spec.key] = tried
            log.warning("chunk %s failed: %s; retrying it once", spec.describe(), reason)
            return None
        self.failures.pop(spec.key, None)
        log.error("chunk %s failed again: %s; giving up", spec.describe(), reason)
        return Failed(spec, reason)


class WorkersCannotStart(RuntimeError):
    """Worker processes die before they are ready (one line, for the run to stop)."""


# -- user code ----------------------------------------------------------------------------
def is_builtin_ref(ref: EntrantRef) -> bool:
    """An entrant whose code is harness's own (a built-in name, or a module reference into
    harness's packages); anything else (files, other modules, entry points) is user code."""
    name = parse_reference(ref.load)[0]
    where, sep, _ = name.rpartition(":")
    if not sep:
        return name in builtin_strategies()
    if names_a_file(where):
        return False
    return is_own_module(where)


def user_codes(spec: Chunk) -> set[str]:
    """The code digests of a chunk's user entrants: the user code it may have loaded."""
    return {ref.code for ref in spec.entrants if not is_builtin_ref(ref)}
