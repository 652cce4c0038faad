"""Building a game's seats: instances and names from references or instances
(:func:`build_strategies`), and the seats under their limits (:func:`open_seats`, a
:class:`Seats`: processes started, references checked, notes for a person), built once
for callers that play several games or must fail before telling anything. Re-exported by
:mod:`harness.play`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from harness.errors import HarnessError
from harness.game.strategy import Strategy
from harness.plugins import (
    StrategySpec,
    check_params,
    entry_point_strategies,
    parse_reference,
    resolve,
)
from harness.seats import (
    SeatLimits,
    close_all,
    guard,
    moved_to_processes,
    sandbox_missing,
    unguarded,
)
from harness.seats.sandbox import missing_note


def _check_own_instance(item: Strategy, seated: Sequence[Strategy | None]) -> None:
    """One line unless ``item`` is a different object from every instance seated so far."""
    if any(item is other for other in seated):
        raise HarnessError(
            f"seat {len(seated)}: the same {item.name} instance as another seat; "
            "give each seat its own instance"
        )


def build_strategies(
    strategies: Sequence[str | Strategy], *, display: bool = False
) -> tuple[list[Strategy], list[str]]:
    """Instances and names for a seat list of references or instances: labels
    (``path/bot.py:MyBot(target=28)``), or with ``display`` a file or module bot by its
    class's own ``name``, as a tourney shows it (``my-bot(target=28)``)."""
    instances, names, _ = _built(strategies, display=display)
    return instances, names


def _built(
    strategies: Sequence[str | Strategy], *, display: bool = False
) -> tuple[list[Strategy], list[str], list[tuple[str, Any] | None]]:
    """:func:`build_strategies`, with each seat's (reference, parameters) (None for an
    instance given as such): how a process of its own would build it."""
    instances: list[Strategy] = []
    names: list[str] = []
    refs: list[tuple[str, Any] | None] = []
    for item in strategies:
        if isinstance(item, Strategy):
            _check_own_instance(item, instances)
            instances.append(item)
            names.append(_label(item))
            refs.append(None)
        else:
            spec = resolve(item)
            instances.append(spec.create())
            names.append(spec.display_label if display else spec.label)
            refs.append((spec.ref, spec.params))
    return instances, names, refs


def _references(
    strategies: Sequence[str | Strategy],
) -> tuple[list[Strategy | None], list[tuple[str, Any] | None], list[str]]:
    """Seats for process isolation: references are parsed and checked here but not
    loaded (a plugin's code, its import included, runs only in its own process)."""
    instances: list[Strategy | None] = []
    refs: list[tuple[str, Any] | None] = []
    names: list[str] = []
    for item in strategies:
        if isinstance(item, Strategy):
            _check_own_instance(item, instances)
            instances.append(item)
            refs.append(None)
            names.append(_label(item))
        else:
            ref, params = parse_reference(item)
            check_params(ref, params)  # plain, bounded values: no plugin code involved
            if ":" not in ref and ref not in entry_point_strategies():
                # A built-in (project code) or a typo: checked here, the same one line
                # as in-process, before any process is started.
                spec = resolve(item)
                ref, ordered, label = spec.ref, spec.params, spec.label
            else:
                ordered = tuple(sorted(params.items()))
                label = StrategySpec(ref, Strategy, ordered).label  # as in-process
            instances.append(None)
            refs.append((ref, ordered))
            names.append(label)
    return instances, refs, names


class Seats:
    """The seats of a game (or of several): strategies under their limits, and names.

    ``strategies`` are what the engine is given (wrappers when a limit is on); end any
    seat processes with :meth:`close` (or use it as a context manager). Only wrappers
    made by :func:`open_seats` itself are closed: seats passed in already guarded (from
    another ``open_seats``) stay open for their owner's next game.
    """

    def __init__(
        self,
        strategies: list[Strategy],
        names: list[str],
        owned: bool = True,
        limits: SeatLimits | None = None,
    ) -> None:
        self.strategies = strategies
        self.names = names
        self.owned = owned
        self.limits = limits if limits is not None else SeatLimits()

    def close(self) -> None:
        if self.owned:
            close_all(self.strategies)

    def notes(self) -> list[str]:
        """What a person should know before the game, one line each (no "Note:"): seats
        moved to processes of their own so that their time limits hold, seats whose limits
        hold only if they let themselves be interrupted, an incomplete sandbox."""
        lines = []
        moved = moved_to_processes(self.strategies)
        if moved and self.limits.timed:  # (moved only to contain them: nothing to say)
            lines.append(
                f"{', '.join(moved)} {'plays' if len(moved) == 1 else 'play'} in a process of "
                "its own so that the time limits hold (in harness's own process a plugin "
                "could catch or disarm the timer, or loop in C code, and never return)"
            )
        stuck = unguarded(self.strategies)
        if stuck:
            lines.append(
                f"{', '.join(stuck)} cannot be sent to a process of its own (defined in "
                "__main__, or its instance does not pickle): its time limits hold only while "
                "it lets harness's timer interrupt it; give it by reference to be sure"
            )
        note = missing_note(sandbox_missing(self.strategies))
        if note is not None:
            lines.append(note)
        return lines

    def __enter__(self) -> Seats:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_seats(
    strategies: Sequence[str | Strategy],
    limits: SeatLimits | None = None,
    names: Sequence[str] | None = None,
    *,
    display: bool = False,
    contain: bool = False,
    output: Callable[[str], None] | None = None,
) -> Seats:
    """Build the seats for ``strategies`` under ``limits``; one-line errors, nothing played.

    With ``isolation="process"``, every seat's process is started (in parallel) and has
    loaded its strategy when this returns; references are loaded only there (so a file
    bot is named by its reference there: its class is never loaded here). A new instance
    is built in the seat's process for every game. ``display``: in-process, a file or
    module bot is named by its class's own ``name`` (:func:`build_strategies`).
    ``contain``: a plugin seat plays in a process of its own even without limits (no
    sandbox), so that a plugin that ends its process forfeits instead of ending this one
    (``harness play``); ``output`` gets the lines the seats' processes write
    (:func:`harness.seats.guard`).
    """
    limits = limits if limits is not None else SeatLimits()
    if limits.isolation == "process":
        instances, refs, labels = _references(strategies)
    else:
        built, labels, refs = _built(strategies, display=display)
        instances = list(built)
    if names is None:
        names = labels
    elif len(names) != len(instances):
        raise HarnessError(f"{len(names)} names for {len(instances)} seats")
    names = list(names)
    seated = guard(instances, names, limits, refs=refs, contain=contain, output=output)
    owned = seated is not instances
    return Seats(list(seated), names, owned=owned, limits=limits)  # type: ignore[arg-type]


def _label(item: str | Strategy) -> str:
    if isinstance(item, Strategy):
        return item.name or type(item).__name__
    return item
