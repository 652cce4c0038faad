"""Backends: where chunks are played. A backend turns chunk specs into outcomes.

Every backend shows the same small face, :class:`~.base.Backend`: ``backend.results(specs)``
is a generator of :class:`~.base.Done` and :class:`~.base.Failed` outcomes (and ``None`` now
and then, so the caller can refresh its progress while nothing finishes), ``describe()``
says where it plays and ``stats()`` how it went; closing the generator stops the work
at once. Backends know nothing of storage: the caller stores each outcome. A chunk
that raises is retried by one account of retries for all of them (:class:`~.base.Retries`).

* :mod:`.base` - the interface, the outcomes, the retries, which entrants are user code;
* :mod:`.output` - plugin output contained and labelled for run.log;
* :mod:`.serial` - :class:`SerialBackend`, this process (``workers: 0``);
* :mod:`.process` - :class:`ProcessBackend`, worker processes of its own (forked from a
  fork server whose first import is :mod:`.fork_prelude`), and :mod:`.worker`, their side;
* :mod:`.dask` and :mod:`.dask_worker` - the same chunks as tasks on a Dask cluster.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.tourney.backends.base import Backend

# Lazy, like harness.tourney: the fork server's first import (.fork_prelude) is in this
# package and must run before anything here loads numpy.
_EXPORTS = {
    "Backend": "base",
    "BackendStats": "base",
    "Done": "base",
    "Failed": "base",
    "Outcome": "base",
    "Retries": "base",
    "WorkersCannotStart": "base",
    "ProcessBackend": "process",
    "SerialBackend": "serial",
}

__all__ = [*_EXPORTS, "local_backend"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def local_backend(
    workers: int, log_to: logging.Handler | None = None, echo: Callable[[str], None] | None = None
) -> Backend:
    """Worker processes of our own (``workers`` >= 1), or this process (0)."""
    if workers > 0:
        from harness.tourney.backends.process import ProcessBackend

        return ProcessBackend(workers, log_to)
    from harness.tourney.backends.serial import SerialBackend

    return SerialBackend(echo=echo)
