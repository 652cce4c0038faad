"""Which seats play natively: the built-ins the C code transcribes (its strategy kinds) and
the native seat of a strategy reference, spec or instance.

A seat plays natively only when its class is exactly the built-in class and the
built-in's source is the source the C code was transcribed from
(:mod:`harness.native.sources`); anything else (a plugin, a subclass, an edited built-in,
a parameter that is not a plain number) is :class:`NotNative` on its own. Such a seat can
still sit at a native table as a Python seat (:mod:`harness.native.seats`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from harness.game.strategy import ParameterError, check_instance
from harness.native import extension
from harness.native.extension import NotNative
from harness.native.sources import refuse_stale

# name -> (C kind, module, class, the parameters the C code reads, as attributes, in the
# order it reads them). The C code's kinds (S_GREEDY ...) and the parameters it accepts
# are written from this table into harness/native/c/layout.inc.c
# (tests/native/test_c_layout.py).
KINDS: dict[str, tuple[int, str, str, tuple[str, ...]]] = {
    "greedy": (0, "harness.strategies.greedy", "Greedy", ()),
    "threshold": (1, "harness.strategies.threshold", "Threshold", ("target",)),
    "worm-first": (2, "harness.strategies.worm_first", "WormFirst", ("target", "min_dice")),
    "simple": (3, "harness.strategies.simple", "Simple", ()),
    "env-heuristic": (4, "harness.strategies.env_heuristic", "EnvHeuristic", ()),
    "tactician": (5, "harness.strategies.tactician", "Tactician", ("caution", "worm_by")),
    "random": (6, "harness.strategies.random_play", "RandomPlay", ("p_stop",)),
    "optimal": (7, "harness.strategies.optimal", "Optimal", ("endgame", "spread", "flip")),
    "win-optimal": (8, "harness.strategies.win_optimal", "WinOptimal", ()),
}
# Modules a native strategy mirrors besides its own and harness.strategies._common.
ALSO: dict[str, tuple[str, ...]] = {
    "optimal": ("harness.analysis.turn",),
    # win-optimal is optimal's programme (its plan, pick, stop, claim) on the evaluator's
    # values: the evaluator's modules (native/c/winprob.inc.c mirrors them) and optimal's
    "win-optimal": (
        "harness.strategies.optimal",
        "harness.analysis.turn",
        "harness.winprob.evaluator",
        "harness.winprob.features",
        "harness.winprob.model",
        "harness.winprob.payoff",
        "harness.winprob.position",
    ),
}
NATIVE_STRATEGIES: tuple[str, ...] = tuple(KINDS)
"""The built-in strategies that have a native version."""
_EXACT = 1 << 53  # ints a double holds exactly: parameters compare as doubles in C


@dataclass(frozen=True)
class NativeSeat:
    """A seat's native strategy: the C kind and its parameters (as doubles)."""

    name: str
    kind: int
    params: tuple[float, ...] = ()

    def as_c(self) -> tuple:
        return (self.kind, *self.params)


def mirrored(name: str) -> tuple[str, ...]:
    """The modules native strategy ``name`` was transcribed from (but the shared helpers)."""
    return (KINDS[name][1], *ALSO.get(name, ()))


def _refuse_stale(name: str) -> None:
    refuse_stale(name, mirrored(name))


_CLASSES: dict[str, type | None] = {}


def builtin_class(name: str) -> type | None:
    """The built-in class a native kind mirrors (None if its module cannot be imported)."""
    if name not in _CLASSES:
        _, module_name, class_name, _ = KINDS[name]
        try:
            module = __import__(module_name, fromlist=[class_name])
            _CLASSES[name] = getattr(module, class_name)
        except Exception:  # noqa: BLE001 - a broken built-in is simply not native
            _CLASSES[name] = None
    return _CLASSES[name]


def _number(value: Any, where: str) -> float:
    if type(value) is float:
        return value
    if type(value) in (int, bool) and -_EXACT <= value <= _EXACT:
        return float(value)
    raise NotNative(f"{where}: {value!r} is not a plain number the native engine can use")


def native_seat(strategy: Any) -> NativeSeat:
    """The native version of a strategy, or NotNative saying why there is none.

    ``strategy`` is a reference (``"threshold(target=28)"``), a resolved
    :class:`~harness.plugins.StrategySpec`, an instance of a built-in class, or a
    :class:`NativeSeat`. The class is recognised by identity alone (nothing of a
    plugin's runs here: not its ``name``, not its metaclass). The parameters it plays
    with are held to the built-in's declared bounds first
    (:func:`harness.strategy.check_instance`): one out of them is a
    :class:`~harness.strategy.ParameterError`, as on the Python engine, never a seat
    played with it (the C code refuses it too). A constructor that raises otherwise is
    NotNative (its forfeit is the Python engine's to report).
    """
    from harness.plugins import StrategySpec, resolve

    if type(strategy) is NativeSeat:
        return strategy
    if type(strategy) is str:
        try:
            strategy = resolve(strategy)
        except ParameterError:
            raise  # the one refusal either engine gives
        except Exception as exc:  # noqa: BLE001 - a bad reference: not ours to report
            raise NotNative(f"{strategy}: {exc}") from None
    key = None
    if type(strategy) is StrategySpec:
        cls, instance, make = strategy.cls, None, strategy.create
        key = _spec_key(strategy)
        if key is not None and key in _SEATS:
            _refuse_stale(_SEATS[key].name)  # a kept seat is no license: asked every time
            return _SEATS[key]
    else:
        cls, instance, make = type(strategy), strategy, None
    seat = _native_of(cls, instance, make)
    if key is not None:
        if len(_SEATS) >= _SEATS_KEPT:
            _SEATS.clear()
        _SEATS[key] = seat
    return seat


# The native seats of resolved specs: a plan asks for every entrant of every table (635,376
# tables of 4 seats for a 64-value sweep), and a built-in's class and parameters decide its
# seat, so each is worked out once (an instance built and checked), then looked up.
_SEATS: dict[tuple[Any, ...], NativeSeat] = {}
_SEATS_KEPT = 4096


def _spec_key(spec: Any) -> tuple[Any, ...] | None:
    """What decides a spec's native seat (its class and parameters), or None when its
    parameters cannot be a dict key (then it is worked out every time)."""
    try:  # the types too: 28 and 28.0 are one dict key but not one parameter
        key = (spec.cls, tuple((name, type(value), value) for name, value in spec.params))
        hash(key)
    except (TypeError, ValueError):
        return None
    return key


def _native_of(cls: type, instance: Any, make: Any) -> NativeSeat:
    """:func:`native_seat` of a class and its instance (or its maker)."""
    name = next((n for n in KINDS if builtin_class(n) is cls), None)
    if name is None:
        raise NotNative(f"{type.__repr__(cls)}: no native version (not a built-in)")
    kind, _, _, attributes = KINDS[name]
    _refuse_stale(name)
    if make is not None:
        try:
            instance = make()
        except ParameterError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise NotNative(f"{name}: {exc}") from None
    check_instance(instance, label=name)
    params = tuple(_number(getattr(instance, a), f"{name}.{a}") for a in attributes)
    return NativeSeat(name, kind, params)


def supports(strategies: Iterable[Any]) -> bool:
    """True when the extension is here and every seat has a native version."""
    if not extension.available():
        return False
    try:
        for s in strategies:
            native_seat(s)
    except NotNative:
        return False
    return True
