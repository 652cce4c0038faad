"""The coach's and the diff's field and settings as one checked value (issue 31, item 3).

``coach(...)`` and ``diff(...)`` took the same keywords, each checked where it was used
(or not at all: ``situations=-1`` listed every situation but one, ``seed="1"`` played,
``max_turns=0`` played games with no turn, ``deals=True`` ended in the native engine's
RuntimeError), and the commands read the defaults through ``sys.modules``. Now one frozen
value each (:class:`CoachSetup`, :class:`DiffSetup`) is checked once, in one wording that
names the key (or, from a command line, the option), and each function takes the value or
its keywords, not both. Each test feeds what a careless or hostile caller would.
"""

from __future__ import annotations

import dataclasses
import json
import pickle

import numpy as np
import pytest

from harness.coach.coaching import coach
from harness.coach.differ import diff
from harness.coach.setup import CoachSetup, DiffSetup, Setup, SetupError
from harness.errors import HarnessError
from harness.game.rules import Rules
from harness.seats.settings import SeatSettings, SettingsError

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("deadline")]


class LyingStr(str):
    """A str that says it equals anything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class LyingInt(int):
    """An int whose comparisons say it is within any bounds."""

    __gt__ = __lt__ = __le__ = __ge__ = lambda self, other: True  # noqa: E731


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and len(text) < 300, text
    return text


BAD = [
    ("deals", True, "deals: expected a whole number, got True"),
    ("deals", 2.5, "deals: expected a whole number, got 2.5"),
    ("deals", 0, "deals: 0; must be at least 1"),
    ("deals", 10_000_001, "deals: 10000001; at most 10,000,000 (deals of a coach or a diff)"),
    ("deals", LyingInt(-3), "deals: -3; must be at least 1"),  # its comparisons never run
    ("seed", "1", "seed: expected a whole number, got '1'"),
    ("seed", 2**63, "seed: 9223372036854775808; at most 9,223,372,036,854,775,807 (seeds"),
    ("max_turns", 0, "max_turns: 0; must be at least 1"),
    ("max_turns", True, "max_turns: expected a whole number, got True"),
    ("workers", 0, "workers: 0; must be at least 1"),
    ("situations", -1, "situations: -1; must be at least 0"),
    ("examples", -1, "examples: -1; must be at least 0"),
    ("examples", 51, "examples: 51; at most 50 (example positions played again)"),
    ("players", 8, "players: 8; at most 7 (a table seats 2 to 7, R3)"),
    ("players", True, "players: expected a whole number, got True"),
    ("opponents", [], "opponents: give at least one opponent"),
    ("opponents", [3], "opponents: expected a strategy (a name, a reference, a class or"),
    ("opponents", 3, "opponents: expected a list of strategies, got 3"),
    ("opponents", ["simple"] * 65, "opponents: more than 64; give at most 64"),
    ("settings", {"move_time": 1}, "settings: expected a SeatSettings, got"),
]


@pytest.mark.parametrize(("key", "value", "expected"), BAD)
@pytest.mark.parametrize("kind", [CoachSetup, DiffSetup])
def test_a_bad_value_is_one_line_naming_the_key(kind, key, value, expected):
    with pytest.raises(SetupError) as info:
        kind(**{key: value})
    assert one_line(info.value).startswith(expected)
    assert info.value.key == key
    with pytest.raises(SettingsError) as again:  # the door says it in the same words
        kind.of(**{key: value})
    assert str(again.value) == str(info.value)


@pytest.mark.parametrize(
    "bands",
    ["123", (0.5, 0.25, 1.0), (0.25, 0.5), (0, 0.5, 1), (float("nan"), 1, 2),
     (True, 2, 3), ("0.1", "0.2", "0.3"), (1, 2, 10**400), "win"],
)  # fmt: skip
def test_bad_bands_are_one_line_naming_bands(bands):
    with pytest.raises(SetupError) as info:
        CoachSetup(bands=bands)
    assert one_line(info.value).startswith("bands: ")


def test_the_values_are_read_plain_and_frozen():
    setup = CoachSetup(
        opponents=LyingStr("greedy"), deals=np.int64(7), seed=LyingInt(5), bands=(1, 2, 3)
    )
    assert setup.opponents == ("greedy",) and type(setup.opponents[0]) is str
    assert (setup.deals, type(setup.deals), setup.seed, type(setup.seed)) == (7, int, 5, int)
    assert setup.bands == (1.0, 2.0, 3.0) and all(type(b) is float for b in setup.bands)
    assert setup.rules == Rules(players=2) and setup.players == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.deals = 0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(setup)) == setup
    error = pickle.loads(pickle.dumps(SetupError("deals", "0; must be at least 1")))
    assert (error.key, str(error)) == ("deals", "deals: 0; must be at least 1")


def test_each_keeps_its_own_defaults_declared_once():
    coach_setup, diff_setup = CoachSetup(), DiffSetup()
    assert (coach_setup.deals, coach_setup.situations, coach_setup.examples) == (1000, 10, 3)
    assert (diff_setup.deals, diff_setup.situations, diff_setup.examples) == (None, 8, 2)
    assert not hasattr(diff_setup, "bands") and coach_setup.bands == (0.01, 0.02, 0.04)
    assert coach_setup.unit == diff_setup.unit == "win"  # chances to win (issue 32)
    assert CoachSetup(unit="worms").bands == (0.25, 0.5, 1.0)  # each unit's own bands
    assert CoachSetup(bands=None) == coach_setup  # None: the unit's
    with pytest.raises(SetupError, match="^unit: 'chips' is not one of: win, worms$"):
        DiffSetup(unit="chips")
    with pytest.raises(SetupError, match="^deals: expected a whole number, got None$"):
        CoachSetup(deals=None)  # the coach plays a number of deals; only the diff settles
    assert CoachSetup.of(deals=None, situations=None) == coach_setup  # None: not given


def test_players_and_rules_agree_or_say_so():
    assert CoachSetup(players=3).rules == Rules.coerce("official", players=3)
    assert CoachSetup(rules=Rules(players=4)).players == 4  # the rules' own count
    assert CoachSetup(rules="french", players=3).rules == Rules.coerce("french", players=3)
    with pytest.raises(SetupError, match=r"^players: 2, but the rules given are for 4 players"):
        CoachSetup(rules=Rules(players=4), players=2)


def test_the_seat_settings_fold_in_once():
    setup = CoachSetup.of(engine="python", move_time=2)
    assert setup.settings == SeatSettings(engine="python", move_time=2) and setup.engine == "python"
    with pytest.raises(SettingsError, match=r"^settings: given with engine;"):
        CoachSetup.of(settings=SeatSettings(), engine="python")
    with pytest.raises(SettingsError, match=r"^move_time: 0; give seconds above 0"):
        DiffSetup.of(move_time=0)


def test_setup_and_a_keyword_together_are_one_line():
    with pytest.raises(SetupError) as info:
        CoachSetup.of(CoachSetup(), deals=5, seed=2)
    assert one_line(info.value) == (
        "setup: given with deals, seed; give the coach's setup once (setup=, or the keywords)"
    )
    with pytest.raises(SetupError, match=r"^setup: expected a DiffSetup, got <CoachSetup>$"):
        DiffSetup.of(CoachSetup())
    with pytest.raises(TypeError, match="bands"):
        DiffSetup.of(bands=(1, 2, 3))  # the diff has no bands
    assert isinstance(CoachSetup(), Setup) and isinstance(DiffSetup(), Setup)


def test_coach_and_diff_refuse_both_and_bad_values_before_playing(monkeypatch):
    from harness.coach import workers

    def never(*args, **kwargs):
        raise AssertionError("played")

    monkeypatch.setattr(workers, "play_sides", never)
    for call in (
        lambda: coach("greedy", setup=CoachSetup(deals=1), deals=2),
        lambda: diff("greedy", "simple", setup=DiffSetup(deals=1), examples=0),
    ):
        with pytest.raises(SetupError, match=r"^setup: given with "):
            call()
    for call in (
        lambda: coach("greedy", deals=2, situations=-1),
        lambda: diff("greedy", "simple", deals=2, max_turns=0),
        lambda: coach("greedy", deals=True),
    ):
        with pytest.raises(HarnessError) as info:
            call()
        one_line(info.value)


def test_the_value_and_its_keywords_play_the_same():
    setup = CoachSetup(opponents=("simple",), deals=2, seed=3, examples=0)
    by_value = coach("greedy", setup=setup).to_json()
    by_keywords = coach("greedy", opponents="simple", deals=2, seed=3, examples=0).to_json()
    for data in (by_value, by_keywords):
        data.pop("cpu_seconds"), data.pop("wall_seconds")
    assert by_value == by_keywords and by_value["games"] == 4
    d = diff("greedy", "simple", setup=DiffSetup(deals=2, examples=0, situations=1))
    data = d.to_json()
    assert data["deals"] == 2 and len(data["where_b_gains"]) <= 1 >= len(data["where_b_loses"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", str(2**63)], "Error: --seed: 9223372036854775808; at most 9,223,"),
        (["--max-turns", "40000"], "Error: --max-turns: 40000; at most 32,767 (the stored"),
        (["--bands", "1,0.5,2"], "Error: --bands: 1.0, 0.5, 2.0: give three increasing"),
        (["-o", "simple"] * 65, "Error: --opponent: more than 64; give at most 64"),
    ],
)
def test_a_command_names_the_option(cli, tmp_path, args, message):
    out = cli("coach", "greedy", "--deals", "1", *args, "--out", str(tmp_path / "x"))
    assert out.exit_code == 2, out.output
    assert out.output.strip().splitlines()[-1].startswith(message), out.output
    assert not (tmp_path / "x").exists()


def test_the_commands_defaults_are_the_values(cli, tmp_path):
    out = cli("diff", "greedy", "simple", "--deals", "2", "--json", "--out", str(tmp_path / "d"))
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["opponents"] == ["simple"] and data["deals"] == 2


def test_a_whole_number_reads_alike_in_a_config_a_setup_and_an_environment():
    from harness.env.setup import EnvSetup, EnvSetupError
    from harness.errors import ConfigError
    from harness.tourney.config import check_bounds

    said = []
    for make, error in (
        (lambda: check_bounds(max_turns=40_000), ConfigError),
        (lambda: CoachSetup(max_turns=40_000), SetupError),
        (lambda: DiffSetup.of(max_turns=40_000), SetupError),
        (lambda: EnvSetup(max_turns=40_000), EnvSetupError),
    ):
        with pytest.raises(error) as info:
            make()
        said.append(str(info.value).removeprefix("--max-turns").removeprefix("max_turns"))
    assert said == [": 40000; at most 32,767 (the stored turn count is int16)"] * 4
