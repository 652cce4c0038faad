"""Building the seats under their limits (:func:`guard`) and reading the seats it built:
which were moved to processes of their own, which play unguarded here, what the sandbox
could not apply, how many processes; :func:`close_all` ends them, and
:func:`plugin_traceback` gives the plugin's traceback behind a forfeit. Re-exported by
:mod:`harness.seats`.
"""

from __future__ import annotations

import pickle
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from harness.errors import HarnessError, PluginError, SeatCrashed, TimeForfeit
from harness.game.strategy import Strategy
from harness.seats.isolation import TRACEBACK_LIMIT, RemoteError, SeatProcess, close_processes
from harness.seats.process_seat import _ProcessSeat
from harness.seats.sandbox import cpu_budget
from harness.seats.settings import ISOLATED_GAME_TIME, SeatLimits
from harness.seats.timed import _TimedSeat
from harness.seats.tracing import Beacon


# -- building the seats ----------------------------------------------------------------------
def _recipe(strategy: Any, ref: tuple[str, Any] | None, name: str) -> dict[str, Any]:
    """How a child builds the seat's strategy: from its reference, or a pickled instance."""
    if ref is not None:
        load, params = ref
        return {"ref": (load, tuple(dict(params or ()).items()))}
    try:
        blob = pickle.dumps(strategy, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise PluginError(
            f"strategy {name}: cannot be sent to its own process (isolation: process): "
            f"{type(exc).__name__}; give it by reference (name or path/to/file.py:Class)"
        ) from None
    # A class from a plugin file lives in a module named after the file and its
    # content; the child loads the same files first so that unpickling finds it.
    files = []
    for cls in type(strategy).__mro__:
        module = sys.modules.get(cls.__module__)
        if getattr(module, "__harness_code__", None) and getattr(module, "__file__", None):
            files.append(module.__file__)
    return {"instance": blob, "modules": files}


def _own_code(strategy: Any, ref: tuple[str, Any] | None) -> bool:
    """Whether a seat's code is harness's own (a built-in): it never disarms a timer."""
    from harness.plugins import builtin_strategies, is_own_module

    if ref is not None:
        load = ref[0]
        return ":" not in load and load in builtin_strategies()
    return strategy is not None and is_own_module(type(strategy).__module__)


def _sendable(strategy: Any, ref: tuple[str, Any] | None) -> bool:
    """Whether a seat can be rebuilt in a process of its own: by reference, or as a
    pickled instance of a class the child can import (not one of ``__main__``)."""
    if ref is not None:
        return True
    module = type(strategy).__module__
    if module == "__main__" or module not in sys.modules:
        return False
    try:
        pickle.dumps(strategy, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - whatever pickling raises: not sendable
        return False
    return True


def guard(
    strategies: Sequence[Strategy | None],
    names: Sequence[str],
    limits: SeatLimits,
    *,
    refs: Sequence[tuple[str, Any] | None] | None = None,
    beacon: Beacon | None = None,
    contain: bool = False,
    output: Callable[[str], None] | None = None,
) -> list[Strategy]:
    """The seats' strategies under ``limits``: the same list when no limit is active
    (and ``contain`` is not asked).

    Otherwise one wrapper per seat that enforces move_time/game_time (TimeForfeit) and,
    with isolation "process", runs the strategy in a process of its own: built there
    from ``refs[i]`` = (load reference, params) when given (``strategies[i]`` may then
    be None, so that the plugin's code never runs here), else from a pickle of
    ``strategies[i]``. Without isolation and without a ``watched`` beacon, a timed seat
    whose code is not harness's own is moved to a process of its own too (see the module
    docstring; :func:`moved_to_processes` names them), or stays here when it cannot be
    sent (:func:`unguarded` names those). Processes are started at once, in parallel, and
    ready when this returns (a strategy that cannot be loaded raises PluginError, one
    line). End them with :func:`close_all`.

    ``contain`` (no limits needed): a seat whose code is not harness's own plays in a
    process of its own (no sandbox) where it can be sent, so that its death is its
    seat's forfeit (SeatCrashed), not the end of this process (``harness play``).
    ``output`` gets every line the seats' processes write (else they go to stderr).
    """
    if not limits.active and not contain:
        return strategies  # type: ignore[return-value]
    if len(names) != len(strategies) or (refs is not None and len(refs) != len(strategies)):
        raise HarnessError(f"{len(strategies)} strategies, {len(names)} names")
    refs = list(refs) if refs is not None else [None] * len(strategies)
    isolated = limits.isolation == "process"
    watched = beacon is not None and beacon.watched
    seats: list[Strategy] = []
    started: list[_ProcessSeat] = []
    try:
        for i, (strategy, name) in enumerate(zip(strategies, names, strict=True)):
            ref = refs[i]
            if ref is None and strategy is None:
                raise HarnessError(f"seat {i}: neither a strategy nor a reference")
            moved = not isolated and not watched and not _own_code(strategy, ref)
            if not limits.active and not (moved and _sendable(strategy, ref)):
                seats.append(strategy)  # contained where it can be: harness's own, or here
                continue
            if not isolated and not (moved and _sendable(strategy, ref)):
                timed = _TimedSeat(strategy, name, limits, beacon)  # type: ignore[arg-type]
                timed.unguarded = moved
                seats.append(timed)
                continue
            game_time = limits.game_time or ISOLATED_GAME_TIME
            process = SeatProcess(
                _recipe(strategy, ref, name),
                name,
                cpu_budget(game_time),
                sandboxed=isolated,
                output=output,
            )
            seat = _ProcessSeat(process, name, limits, beacon, moved=not isolated)
            seats.append(seat)
            started.append(seat)
            process.start()
        for seat in started:
            try:
                seat.process.wait_ready()
            except PluginError:
                i = seats.index(seat)
                if not seat.moved or strategies[i] is None:
                    raise
                # It plays here after all (its instance is here: it was built here).
                timed = _TimedSeat(strategies[i], names[i], limits, beacon)  # type: ignore[arg-type]
                timed.unguarded = True
                seats[i] = timed
    except BaseException:
        close_all(seats)
        raise
    return seats


def moved_to_processes(seats: Sequence[Any]) -> list[str]:
    """The seats :func:`guard` moved to processes of their own so that their time limits
    hold (not isolated by the config): their names, for a note."""
    return [s.name for s in seats if isinstance(s, _ProcessSeat) and s.moved]


def unguarded(seats: Sequence[Any]) -> list[str]:
    """Timed plugin seats that play in this process with nothing outside to end a call
    that never returns (they could not be sent to a process of their own)."""
    return [s.name for s in seats if isinstance(s, _TimedSeat) and s.unguarded]


def sandbox_missing(seats: Sequence[Any]) -> list[str]:
    """What the isolated seats' sandbox could not apply on this system (as their
    processes said when they started)."""
    for s in seats:
        if isinstance(s, _ProcessSeat) and not s.moved:
            return list(s.process.missing)
    return []


def in_process(seat: Any) -> bool:
    """Whether a guarded seat plays in this process (a timed wrapper, which takes each
    game's fresh instance through ``renew``), not in a process of its own."""
    return isinstance(seat, _TimedSeat)


def process_count(seats: Sequence[Any]) -> int:
    """How many of ``seats`` play in processes of their own."""
    return sum(isinstance(s, _ProcessSeat) for s in seats)


def close_all(strategies: Sequence[Any]) -> None:
    """End every seat process among ``strategies`` and release the SIGALRM handler.

    Anything else in the list is left alone, so it is safe on an unguarded list.
    """
    processes = [s.process for s in strategies if isinstance(s, _ProcessSeat)]
    if processes:
        close_processes(processes)
    for s in strategies:
        if isinstance(s, _TimedSeat):
            s.close()


def plugin_traceback(error: BaseException | None) -> str | None:
    """The plugin's traceback behind a forfeit, as text (None when there is none).

    For an isolated seat, the text its process sent; in-process, the traceback of the
    exception that caused it (``__cause__``), the engine's own frames left in.
    """
    cause = getattr(error, "__cause__", None)
    while isinstance(cause, (TimeForfeit, SeatCrashed)):  # a verdict: what lay behind it
        cause = cause.__cause__
    if cause is None:
        return None
    if isinstance(cause, RemoteError):
        return cause.remote_traceback or None
    try:
        text = "".join(traceback.format_exception(cause))
    except Exception:
        return None
    return text[-TRACEBACK_LIMIT:]
