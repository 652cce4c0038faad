"""One parameter check for both engines (issue 24, item 1).

Every built-in declares its parameters' bounds once (``Strategy.bounds``); the one
checker (:func:`harness.strategy.check_bounds`) holds every path to them before either
engine sees a value: references (configs, the command line, ``play_game``), instances
(built, or changed after they were built), the native engine's entry points; and the C
code refuses what it cannot play. Each built-in is played at and just past every bound,
on both engines: the very same games, or the very same one-line refusal.
"""

from __future__ import annotations

import math

import pytest

from harness import native, play_game
from harness.errors import ConfigError, PluginError
from harness.plugins import builtin_strategies
from harness.rules import Rules
from harness.strategy import Bound, ParameterError, Strategy, check_bounds
from harness.tourney.config import load_config

pytestmark = pytest.mark.engine

needs_native = pytest.mark.skipif(not native.available(), reason="no native engine built")
SEEDS = (1, 2, 3)


def bounded_builtins() -> list[tuple[str, type[Strategy], str, Bound]]:
    return [
        (name, cls, key, bound)
        for name, cls in sorted(builtin_strategies().items())
        for key, bound in cls.bounds.items()
    ]


def test_every_numeric_parameter_of_every_builtin_is_declared():
    for name, cls in builtin_strategies().items():
        numeric = {k for k, v in cls.parameters().items() if type(v) in (int, float)}
        assert numeric == set(cls.bounds), name


def values_around(bound: Bound, default: object) -> list[tuple[object, bool]]:
    """(value, inside) at and just past each end; ints for an int parameter (the only
    numbers a reference or a config may give it), the nearest floats otherwise."""
    out: list[tuple[object, bool]] = []
    whole = type(default) is int
    for end, outward in ((bound.low, -math.inf), (bound.high, math.inf)):
        if end is None:
            continue
        past = (end - 1 if outward < 0 else end + 1) if whole else math.nextafter(end, outward)
        at_inside = not (bound.low_open and end == bound.low)
        out.append((int(end) if whole else float(end), at_inside))
        out.append((past, False))
        if not at_inside:  # an open end: the first value inside it plays
            out.append((math.nextafter(end, -outward), True))
    return out


def outcome(play) -> tuple[str, object]:
    try:
        results = [play(seed) for seed in SEEDS]
    except ParameterError as exc:
        return "refused", str(exc)
    return "played", [(r.scores, r.ranks, r.winner, r.turns, r.status, r.stacks) for r in results]


CASES = [
    pytest.param(name, cls, key, value, inside, id=f"{name}-{key}={value!r}")
    for name, cls, key, bound in bounded_builtins()
    for value, inside in values_around(bound, cls.parameters()[key])
]


@needs_native
@pytest.mark.parametrize(("name", "cls", "key", "value", "inside"), CASES)
def test_both_engines_play_the_same_games_or_refuse_alike(name, cls, key, value, inside):
    rules = Rules(players=3)

    def by_reference(engine):
        ref = f"{name}({key}={value!r})"
        return outcome(
            lambda seed: play_game([ref, "greedy", "tactician"], rules, seed, engine=engine)
        )

    def by_instance(engine):
        def play(seed):
            seat = cls()
            seat.__dict__[key] = value  # changed after it was built: what an engine reads
            return play_game([seat, "greedy", "tactician"], rules, seed, engine=engine)

        return outcome(play)

    for how in (by_reference, by_instance):
        python, native_ = how("python"), how("native")
        assert python == native_, (how.__name__, python, native_)
        assert python[0] == ("played" if inside else "refused"), (how.__name__, python)
        if not inside:
            assert f"parameter {key}: " in python[1] and "\n" not in python[1]
    if not inside:  # nor is it ever built with it
        with pytest.raises(ParameterError, match=f"parameter {key}: "):
            cls(**{key: value})


@pytest.mark.parametrize(("name", "cls", "key", "value", "inside"), CASES)
def test_configs_and_the_command_line_give_the_same_one_line(name, cls, key, value, inside, cli):
    if inside:
        return
    try:
        check_bounds(cls, {key: value}, label=name)
    except ParameterError as exc:
        expected = str(exc)
    config = {"entrants": [{"strategy": name, "params": {key: value}}, "greedy"], "deals": 1}
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert expected in str(info.value)
    result = cli("play", f"{name}({key}={value!r})", "greedy", "--seed", "1")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"Error: {expected}"]


@needs_native
def test_the_c_code_refuses_what_the_declarations_refuse():
    """core.c's own table of what it can play, held to the declarations: each native
    kind given its parameters straight (no Python check on the way) at and past each
    bound plays, or is a ValueError naming the parameter."""
    core = native._core
    rules = native.rules_c(Rules(players=2))
    for name, (kind, _, _, attributes) in native.kinds.KINDS.items():
        cls = builtin_strategies()[name]
        assert set(attributes) == set(cls.bounds), name
        base = [float(getattr(cls(), a)) for a in attributes]
        for i, key in enumerate(attributes):
            bound = cls.bounds[key]
            for value, inside in values_around(bound, 0.5):  # floats: the doubles C reads
                params = list(base)
                params[i] = value
                seats = ((kind, *params), (0,))
                columns = native.columns.flat(*native.columns.new_columns(2, 1))
                if inside:
                    core.play_games(rules, seats, 100, 0, 1, bytes([0, 1]), columns, None)
                else:
                    with pytest.raises(ValueError, match=f"parameter {key} = "):
                        core.play_games(rules, seats, 100, 0, 1, bytes([0, 1]), columns, None)
        wrong = (kind, *base[:-1]) if attributes else (kind, 1.0)  # one too few, or too many
        columns = native.columns.flat(*native.columns.new_columns(2, 1))
        with pytest.raises(ValueError, match="parameter"):
            core.play_games(rules, (wrong, (0,)), 100, 0, 1, bytes([0, 1]), columns, None)


@needs_native
def test_the_issues_case_is_one_line_on_both_engines():
    """optimal(flip=1e300) played a malformed game natively (over at turn 15, no winner)
    while the Python engine recorded a forfeit."""
    from harness.strategies.optimal import Optimal

    seat = Optimal()
    seat.flip = 1e300
    lines = set()
    for engine in ("python", "native", "auto"):
        with pytest.raises(ParameterError) as info:
            play_game([seat, "greedy"], seed=1, engine=engine, forfeit=True)
        lines.add(str(info.value))
    with pytest.raises(ParameterError) as info:
        native.play_games("official", [seat, "greedy"], [1])
    lines.add(str(info.value))
    assert lines == {"strategy optimal: parameter flip: 1e+300 is out of bounds: give a number "
                     "from 0 to 100"}  # fmt: skip


# -- the declaration, for plugins ------------------------------------------------------------
class Careful(Strategy):
    """A plugin's own declaration, positional and keyword alike."""

    name = "careful"
    bounds = {"margin": Bound(0, 10, integer=True), "share": Bound(0, 1, low_open=True)}

    def __init__(self, margin: int = 2, share: float = 0.5) -> None:
        self.margin = margin
        self.share = share

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True


@pytest.mark.parametrize(
    ("args", "kwargs", "says"),
    [
        ((11,), {}, "margin: 11 is out of bounds: give a whole number from 0 to 10"),
        ((2.5,), {}, "margin: 2.5 is not a whole number from 0 to 10"),
        ((True,), {}, "margin: True is not a whole number"),
        ((), {"share": 0.0}, "share: 0.0 is out of bounds: give a number above 0 and at most 1"),
        ((), {"share": float("nan")}, "share: nan is not a number above 0"),
        ((), {"share": "0.5"}, "share: a str is not a number"),
        ((2, 1.5), {}, "share: 1.5 is out of bounds"),
    ],
)
def test_a_plugins_declaration_holds_at_every_door(args, kwargs, says):
    with pytest.raises(ParameterError, match=says) as info:
        Careful(*args, **kwargs)
    assert isinstance(info.value, PluginError) and isinstance(info.value, ValueError)
    seat = Careful()
    seat.__dict__.update(zip(("margin", "share"), args, strict=False), **kwargs)
    with pytest.raises(ParameterError, match=says):
        play_game([seat, "greedy"], seed=1, forfeit=True)


def test_a_declared_parameter_within_bounds_plays_and_numpy_numbers_count():
    np = pytest.importorskip("numpy")
    assert Careful(np.int64(3), share=np.float64(0.25)).margin == 3
    assert play_game([Careful(10, 1.0), "greedy"], seed=1).over


def test_harness_strategies_shows_the_bounds(cli):
    import json

    rows = {r["name"]: r for r in json.loads(cli("strategies", "--json").output)}
    assert rows["threshold"]["bounds"] == {"target": "a number from 21 to 40"}
    assert rows["optimal"]["bounds"]["spread"] == "a number above 0 and at most 100"
    text = cli("strategies").output
    assert "target=27 (21 to 40)" in text
