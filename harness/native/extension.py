"""The C extension itself: loaded once, or absent (no C compiler at install), and the one
answer to "may the native engine play at all here?".

``harness._native_core`` is built by setup.py from harness/native/c/core.c and the parts it
#includes, and carries the digest of those sources: one built from other sources than
those beside it (edited since, not rebuilt) is refused here, as if absent, with the reason
(:data:`STALE_BUILD`). Every other module of this room reaches it through :data:`core` (an attribute
read at call time, so a test that sets it to None sees every door refuse) or
:func:`loaded`, which says why nothing can play when it is absent.
"""

from __future__ import annotations

from types import ModuleType
from typing import Protocol

from harness.native.c_sources import sources_digest

try:  # the optional extension; absent on a machine that had no C compiler
    import harness._native_core as core
except ImportError:  # pragma: no cover - exercised by the HARNESS_NO_NATIVE CI step
    core = None

NOT_BUILT = "the native engine is not built in this installation"


def stale_build(module: ModuleType, here: str | None) -> str | None:
    """Why ``module`` (the extension) must not play here: it was built from other C sources
    than ``here`` (:func:`harness.native.c_sources.sources_digest` of the sources beside
    it; None: none are here to compare); None when it may play."""
    built = getattr(module, "SOURCES_DIGEST", "")
    if here is None or built == here:
        return None
    return (
        "the native engine was built from other C sources than harness/native/c holds "
        "(rebuild it: pip install -e .)"
    )


STALE_BUILD = None if core is None else stale_build(core, sources_digest())
if STALE_BUILD is not None:  # played by old code under the new code's keys: never
    core = None


class NotNative(ValueError):
    """A seat, rule set or seed the native engine does not play (use the Python engine)."""


def available() -> bool:
    """True when the extension is built and importable in this process."""
    return core is not None


def loaded() -> ModuleType:
    """The extension; NotNative when this installation has none (or a stale one)."""
    if core is None:
        raise NotNative(STALE_BUILD or NOT_BUILT)
    return core


class Limits(Protocol):
    """What :func:`refusal` reads of the seat settings: a
    :class:`harness.seats.settings.SeatSettings` or its ``limits`` (this tier imports
    nothing above it, so it names the fields, not the class)."""

    @property
    def move_time(self) -> float | None: ...
    @property
    def game_time(self) -> float | None: ...
    @property
    def isolation(self) -> str: ...


def refusal(settings: Limits | None = None) -> str | None:
    """Why the native engine may not play under these seat settings (None: no limits),
    whatever the seats (None: it may): the one answer to "may the native engine play
    this?" that a tournament's table, a single game, a chunk, the coach and an RL
    environment all start from (each then asks what only it knows: the seats, the seed,
    a record). Limits stay on the Python engine: their verdicts are replayed turn by turn
    there."""
    if not available():
        return STALE_BUILD or f"{NOT_BUILT} (no C compiler at install)"
    if settings is None:
        return None
    if settings.move_time is not None or settings.game_time is not None:
        return "seat limits (the time limits move_time, game_time) run on the Python engine"
    if settings.isolation != "none":
        return "process isolation runs on the Python engine"
    return None
