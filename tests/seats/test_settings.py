"""The seat settings as one value (harness.seats.settings): one check, one wording, one
door per public function.

Each test feeds what a careless or hostile caller would (a bool for seconds, NaN, a str
whose ``__eq__`` lies, an int whose comparisons lie, both ``settings=`` and a keyword)
and checks the answer is one line naming the key (or, from a command line, the option),
the same wherever the value comes in: a config, an override, a command, ``play_game``,
``make_setup``, ``coach`` and ``diff``.
"""

from __future__ import annotations

import dataclasses
import math
import pickle

import pytest

from harness import native
from harness.errors import ConfigError, HarnessError
from harness.seats import SeatLimits
from harness.seats.settings import (
    ISOLATED_GAME_TIME,
    MAX_SECONDS,
    SeatSettings,
    SettingsError,
    check_setting,
    settings_from,
)

SECONDS_WORDING = f"give seconds above 0 and at most {MAX_SECONDS:g}"


def answers(answer: object):
    """A comparison method that gives ``answer`` whatever it is asked."""
    return lambda self, other: answer


class LyingEq(str):
    """A str that says it equals anything (and differs from nothing)."""

    __eq__, __ne__, __hash__ = answers(True), answers(False), str.__hash__


class DeniesEq(str):
    """A str that says it equals nothing, not even its own characters."""

    __eq__, __hash__ = answers(False), str.__hash__


class LyingInt(int):
    """An int whose comparisons say it is within any bounds, and whose float is 1.0."""

    __gt__ = __lt__ = __le__ = __ge__ = answers(True)

    def __float__(self) -> float:
        return 1.0


class LyingFloat(float):
    def __float__(self) -> float:
        return 1.0


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and len(text) < 300, text
    return text


# -- seconds -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, "move_time: expected seconds (a number, or null for no limit), got True"),
        (False, "move_time: expected seconds (a number, or null for no limit), got False"),
        ("1", "move_time: expected seconds (a number, or null for no limit), got '1'"),
        ([1], "move_time: expected seconds (a number, or null for no limit), got [1]"),
        (math.nan, f"move_time: nan; {SECONDS_WORDING}"),
        (math.inf, f"move_time: inf; {SECONDS_WORDING}"),
        (-math.inf, f"move_time: -inf; {SECONDS_WORDING}"),
        (0, f"move_time: 0; {SECONDS_WORDING}"),
        (0.0, f"move_time: 0.0; {SECONDS_WORDING}"),
        (-1, f"move_time: -1; {SECONDS_WORDING}"),
        (MAX_SECONDS + 0.001, f"move_time: 3600.001; {SECONDS_WORDING}"),
        (10**400, f"move_time: <a number of 400 digits>; {SECONDS_WORDING}"),
        (LyingInt(-5), f"move_time: -5; {SECONDS_WORDING}"),  # its comparisons never run
    ],
)
def test_bad_seconds_are_one_line_naming_the_key(value, expected):
    with pytest.raises(SettingsError) as info:
        SeatSettings(move_time=value)
    assert one_line(info.value) == expected
    assert (info.value.key, f"{info.value.key}: {info.value.problem}") == ("move_time", expected)
    # the limits alone say it in the same words, and so does game_time
    with pytest.raises(SettingsError) as limits:
        SeatLimits(game_time=value)
    assert str(limits.value) == expected.replace("move_time", "game_time", 1)


def test_seconds_at_the_bounds_are_floats_of_the_base_value():
    assert SeatSettings(move_time=MAX_SECONDS, game_time=1).move_time == MAX_SECONDS
    assert type(SeatSettings(game_time=1).game_time) is float
    assert SeatSettings(move_time=5e-324).move_time == 5e-324  # above 0 is enough
    # a subclass's own conversion never runs: the value is its base value
    assert SeatSettings(move_time=LyingFloat(2.5)).move_time == 2.5
    assert SeatSettings(move_time=LyingInt(7)).move_time == 7.0


# -- choices -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("isolation", "docker", "isolation: 'docker' is not one of none, process"),
        ("isolation", "Process", "isolation: 'Process' is not one of none, process"),
        ("isolation", None, "isolation: None is not one of none, process"),
        ("isolation", True, "isolation: True is not one of none, process"),
        ("engine", "fast", "engine: 'fast' is not one of auto, python, native"),
        ("engine", b"auto", "engine: b'auto' is not one of auto, python, native"),
        ("luck", "maybe", "luck: 'maybe' is not one of auto, on, off, win"),
        ("luck", 1, "luck: 1 is not one of auto, on, off, win"),
        ("isolation", LyingEq("docker"), "isolation: 'docker' is not one of none, process"),
        ("engine", LyingEq("x" * 500), "is not one of auto, python, native"),
    ],
)
def test_an_unknown_choice_is_one_line_naming_the_key(key, value, expected):
    with pytest.raises(SettingsError) as info:
        SeatSettings(**{key: value})
    message = one_line(info.value)
    assert message.startswith(f"{key}: ") and message.endswith(expected.split(": ", 1)[-1])


def test_a_str_subclass_is_judged_by_its_characters_and_stored_plain():
    settings = SeatSettings(isolation=DeniesEq("process"), engine=DeniesEq("python"))
    assert type(settings.isolation) is str and settings.isolation == "process"
    assert type(settings.engine) is str and settings.engine == "python"
    assert settings.limits.isolation == "process" and settings.limited
    assert type(SeatLimits(isolation=DeniesEq("process")).isolation) is str


def test_luck_as_yaml_reads_a_bare_on_and_off(tmp_path):
    from harness.tourney.config import load_config

    assert SeatSettings(luck=True).luck == "on" and SeatSettings(luck=False).luck == "off"
    for text, mode in (("on", "on"), ("off", "off"), ('"on"', "on"), ("yes", "on")):
        path = tmp_path / "c.yaml"
        path.write_text(f"entrants: [greedy, random]\ndeals: 2\nluck: {text}\n")
        config = load_config(path)
        assert (config.luck, config.settings.luck) == (mode, mode), text
    # a bool is no engine or isolation (only luck has on and off)
    with pytest.raises(SettingsError, match="^engine: True is not one of"):
        SeatSettings(engine=True)


def test_a_config_names_the_file_and_line_and_the_same_words(tmp_path):
    from harness.tourney.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text("entrants: [greedy, random]\nmove_time: .nan\nisolation: vm\nluck: 2\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert lines == [
        f"{path}:2: move_time: nan; {SECONDS_WORDING}",
        f"{path}:3: isolation: 'vm' is not one of none, process",
        f"{path}:4: luck: 2 is not one of auto, on, off, win",
    ]


# -- the value's methods ------------------------------------------------------------------
def test_the_value_is_frozen_and_pickles_whole():
    settings = SeatSettings(move_time=1, isolation="process", engine="python", luck="on")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.move_time = -1  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(settings)) == settings
    error = pickle.loads(pickle.dumps(SettingsError("luck", "'x' is not one of auto, on, off")))
    assert (error.key, str(error)) == ("luck", "luck: 'x' is not one of auto, on, off")


def test_limits_limited_and_the_stored_values():
    assert not SeatSettings().limited and SeatSettings().limits == SeatLimits()
    isolated = SeatSettings(isolation="process")
    assert isolated.limited and isolated.limits.game_time == ISOLATED_GAME_TIME
    # as keys and run.json hold them: the setting, not the isolated seat's deadline
    assert isolated.limit_values() == {"move_time": None, "game_time": None, "isolation": "process"}
    assert SeatSettings(game_time=2).limited and not SeatSettings(engine="native").limited


def test_with_overrides_keeps_what_is_none_and_checks_what_is_given():
    base = SeatSettings(move_time=2, luck="on")
    assert base.with_overrides() is base
    assert base.with_overrides(move_time=None, engine=None) is base
    changed = base.with_overrides(engine="python", game_time=30)
    assert changed == SeatSettings(move_time=2, game_time=30, engine="python", luck="on")
    with pytest.raises(SettingsError, match=f"^move_time: -1; {SECONDS_WORDING}$"):
        base.with_overrides(move_time=-1)
    with pytest.raises(SettingsError, match="^isolation: 'vm' is not one of none, process$"):
        base.with_overrides(isolation=LyingEq("vm"))
    with pytest.raises(TypeError, match="colour"):
        base.with_overrides(colour="red")
    with pytest.raises(TypeError):
        check_setting("colour", "red")


def test_the_native_refusal_is_the_engines_answer():
    limited = (
        SeatSettings(move_time=1),
        SeatSettings(game_time=1),
        SeatSettings(isolation="process"),
    )
    if native.available():
        assert SeatSettings().refusal() is None and native.refusal(SeatSettings()) is None
        assert "move_time" in limited[0].refusal() and "game_time" in limited[1].refusal()
        assert limited[2].refusal() == "process isolation runs on the Python engine"
        assert native.refusal(limited[0].limits) == limited[0].refusal()  # its limits too
    else:
        assert all("not built" in s.refusal() for s in (SeatSettings(), *limited))


# -- one door: settings= or the keywords ---------------------------------------------------
def test_settings_and_a_keyword_together_are_one_line():
    with pytest.raises(SettingsError) as info:
        settings_from(SeatSettings(), move_time=1, engine="python")
    assert one_line(info.value) == (
        "settings: given with engine, move_time; give the seat settings once "
        "(settings=, or the keywords)"
    )
    assert settings_from(SeatSettings(luck="on"), move_time=None) == SeatSettings(luck="on")
    assert settings_from(None, SeatSettings(engine="python"), isolation="process") == (
        SeatSettings(engine="python", isolation="process")
    )
    with pytest.raises(SettingsError, match="^settings: expected a SeatSettings, got"):
        settings_from({"move_time": 1})  # type: ignore[arg-type]


def test_every_public_function_refuses_both(tmp_path):
    from harness import play_game
    from harness.coach.coaching import coach
    from harness.coach.differ import diff
    from harness.sprt.experiment import make_setup
    from harness.tourney.runner import run_tournament

    both = {"settings": SeatSettings(engine="python"), "engine": "python"}
    calls = [
        lambda: play_game(["greedy", "greedy"], seed=1, **both),
        lambda: make_setup("greedy", "simple", **both),
        lambda: coach("greedy", deals=1, **both),
        lambda: diff("greedy", "simple", deals=1, **both),
        lambda: run_tournament(
            {"entrants": ["greedy", "random"], "deals": 2}, out=tmp_path / "out", **both
        ),
    ]
    for call in calls:
        with pytest.raises(HarnessError) as info:
            call()
        assert one_line(info.value).startswith("settings: given with engine;"), call
    assert not (tmp_path / "out").exists(), "nothing planned, nothing written"


def test_every_public_function_takes_the_value():
    from harness import play_game
    from harness.sprt.experiment import make_setup
    from harness.tourney.config import load_config

    value = SeatSettings(move_time=5, engine="python", luck="off")
    game = play_game(["greedy", "tactician"], seed=3, settings=value)
    same = play_game(["greedy", "tactician"], seed=3, move_time=5)
    assert (game.scores, game.turns, game.error) == (same.scores, same.turns, None)
    setup = make_setup("greedy", "simple", settings=value)
    assert setup.settings == value and (setup.move_time, setup.luck) == (5.0, "off")
    config = load_config({"entrants": ["greedy", "random"], "deals": 2})
    assert config.override(settings=value).settings == value
    assert config.override(move_time=5, engine="python", luck="off").settings == value
    with pytest.raises(SettingsError, match="^settings: given with luck;"):
        config.override(settings=value, luck="on")
    with pytest.raises(ConfigError, match=r"^--move-time: expected seconds \(a number"):
        config.override(move_time=True)  # an option names itself, in the config's words


def test_the_coach_holds_its_seats_to_the_limits_it_is_given():
    """The coach once refused seat limits (it never applied them); it plays under them now
    (tests/coach/test_contain.py has the forfeits they cause)."""
    from harness.coach.coaching import coach

    result = coach("greedy", deals=1, settings=SeatSettings(move_time=5, game_time=60))
    assert result.games >= 1


# -- chunk specs carry the value ----------------------------------------------------------
def test_a_chunk_spec_holds_one_value_and_takes_one_keyword():
    from harness.game.rules import Rules
    from harness.tourney.plan import ChunkSpec

    spec = ChunkSpec("k", "t", (), Rules(players=2), "duplicate", 1, 0, 2, 100, move_time=1.0)
    assert spec.settings == SeatSettings(move_time=1.0, engine="python")
    assert (spec.move_time, spec.engine, spec.limited, spec.account) == (1.0, "python", True, False)
    native_spec = dataclasses.replace(spec, engine="native")
    assert native_spec.settings == SeatSettings(move_time=1.0, engine="native")
    assert native_spec.key == spec.key and native_spec.rules is spec.rules
    assert pickle.loads(pickle.dumps(native_spec)) == native_spec
    with pytest.raises(SettingsError, match="^engine: 'fast' is not one of"):
        dataclasses.replace(spec, engine="fast")


@pytest.mark.parametrize("command", ["play", "sprt", "tourney"])
def test_each_command_says_a_bad_option_in_one_line_alike(cli, tmp_path, command):
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 2\n")
    args = {
        "play": ["play", "greedy", "simple", "--seed", "1"],
        "sprt": ["sprt", "greedy", "simple", "--workers", "0"],
        "tourney": ["tourney", str(config), "--out", str(tmp_path / "out")],
    }[command]
    for option, value, message in (
        ("--move-time", "0", f"Error: --move-time: 0.0; {SECONDS_WORDING}"),
        ("--game-time", "nan", f"Error: --game-time: nan; {SECONDS_WORDING}"),
        ("--game-time", "3601", f"Error: --game-time: 3601.0; {SECONDS_WORDING}"),
    ):
        result = cli(*args, option, value)
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines() == [message]
    assert not (tmp_path / "out").exists()
