"""Every input is bounded (issue 9, items 13-16): numbers, YAML, records, names, plugins.

Each test feeds harness what a careless or hostile user would (fixtures under
``tests/fixtures/hostile/inputs_*``, or files made here) and checks that the answer is
one line, at once, with nothing planned or written, and the right exit status (2: bad
input). Time limits are asserted on the work itself, never on process start-up alone.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from helpers import HANG_GUARD

from harness.errors import ConfigError, PluginError, RecordError
from harness.game.record import MAX_RECORD_BYTES, load_record
from harness.plugins import builtin_strategies, resolve, shown
from harness.tourney.config import (
    MAX_GAMES,
    MAX_NAME_CHARS,
    MAX_TURNS,
    SEED_MAX,
    SEED_MIN,
    check_bounds,
    load_config,
)

pytestmark = pytest.mark.interpreter

HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile"
TWO = "entrants: [greedy, random]\n"


@pytest.fixture(scope="module", autouse=True)
def _loaded_once() -> None:
    """Import the built-in strategies first (what a check costs is measured by
    benchmarks/input_checks.py; here time is bounded only against a hang)."""
    builtin_strategies()


def config_error(tmp_path: Path, text: str) -> str:
    """The one-line ConfigError for a config ``text``, reached without a hang."""
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return config_file_error(path)


def config_file_error(path: Path) -> str:
    started = time.perf_counter()
    with pytest.raises(ConfigError) as info:
        load_config(path)
    took = time.perf_counter() - started
    message = str(info.value)
    assert took < HANG_GUARD, f"{took:.2f} s for {message!r}"
    assert "\n" not in message and len(message) < 500, message[:600]
    return message


def one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output[:2000]
    assert "Traceback" not in result.output
    return lines[0]


# -- item 13: numbers ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (TWO + "games: 1000000000000000000000000000000\n", ["games:", "at most 100,000,000"]),
        (TWO + f"games: {MAX_GAMES + 1}\n", ["games:", "at most 100,000,000"]),
        (TWO + "max_turns: 40000\n", ["max_turns: 40000", "at most 32,767", "int16"]),
        (TWO + f"seed: {SEED_MAX + 1}\n", ["seed:", "int64"]),
        (TWO + f"seed: {SEED_MIN - 1}\n", ["seed:", "at least"]),
        (TWO + "seed: " + "9" * 5000 + "\n", ["a number of 5,000 characters"]),
        (TWO + "games: 0x" + "f" * 90 + "\n", ["games: <a number of 108 digits>"]),
        (TWO + "chunk: 0\n", ["chunk: 0", "at least 1"]),
        (TWO + "chunk: 10000000\n", ["chunk:", "at most 100,000"]),
        (TWO + "workers: 1000000\n", ["workers:", "at most 1,024"]),
        (TWO + "games: 100000000\nchunk: 1\n", ["100,000,000 chunks", "at most 1,000,000"]),
        (TWO + "move_time: 0\n", ["move_time: 0", "above 0"]),
        (TWO + "game_time: 3601\n", ["game_time: 3601", "at most 3600"]),
        (TWO + "move_time: .inf\n", ["move_time: inf"]),
        (TWO + "move_time: .nan\n", ["move_time: nan"]),
        (TWO + "move_time: true\n", ["move_time:", "expected seconds"]),
        (TWO + "move_time: fast\n", ["move_time:", "expected seconds"]),
        (TWO + "isolation: docker\n", ["isolation: 'docker' is not one of none, process"]),
    ],
)
def test_numbers_out_of_bounds_are_one_line_at_once(tmp_path, text, expected):
    message = config_error(tmp_path, text)
    for part in expected:
        assert part in message, (part, message)
    assert message.startswith(str(tmp_path / "c.yaml") + ":"), "names the file and line"


def test_the_bounds_themselves_are_accepted(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        TWO + f"max_turns: {MAX_TURNS}\nseed: {SEED_MIN}\nmove_time: 0.25\ngame_time: 3600\n"
        "isolation: process\nchunk: 100000\nworkers: 1024\n"
    )
    config = load_config(path)
    assert (config.max_turns, config.seed, config.chunk) == (MAX_TURNS, SEED_MIN, 100_000)
    assert (config.move_time, config.game_time, config.isolation) == (0.25, 3600.0, "process")
    defaults = load_config({"entrants": ["greedy", "random"]})
    assert (defaults.move_time, defaults.game_time, defaults.isolation) == (None, None, "none")
    assert isinstance(config.game_time, float)


def test_a_tournament_too_big_to_plan_is_refused_before_planning(tmp_path):
    entrants = ", ".join(
        f"{{strategy: random, name: r{i}, params: {{p_stop: {i / 100}}}}}" for i in range(1, 31)
    )
    message = config_error(tmp_path, f"players: 7\nentrants: [{entrants}]\n")
    assert "2,035,800 tables x 1,000 deals x 42 seat orders" in message  # balanced at 7
    assert "at most 1,000,000,000 in one run" in message


def test_too_many_entrants_are_refused_before_any_is_loaded(tmp_path):
    # A reference that would fail if it were resolved: the count is checked first.
    text = "entrants: [" + ", ".join(["nosuch.py:Bot"] * 65) + "]\n"
    message = config_error(tmp_path, text)
    assert "entrants: 65 listed; at most 64" in message


def test_command_line_overrides_have_the_same_bounds():
    config = load_config({"entrants": ["greedy", "random"], "deals": 2})
    cases = [
        ({"deals": 10**30}, "--deals: 1000000000000000000000000000000; at most 100,000,000"),
        ({"deals": 0}, "--deals: 0; must be at least 1"),
        ({"seed": 2**63}, "--seed: 9223372036854775808; at most"),
        ({"max_turns": 40000}, "--max-turns: 40000; at most 32,767"),
        ({"workers": 5000}, "--workers: 5000; at most 1,024"),
        ({"chunk": 0}, "--chunk: 0; must be at least 1"),
        ({"move_time": 0.0}, "--move-time: 0.0; give seconds above 0"),
        ({"game_time": float("inf")}, "--game-time: inf"),
        ({"isolation": "vm"}, "--isolation: 'vm' is not one of none, process"),
    ]
    for change, message in cases:
        with pytest.raises(ConfigError) as info:
            config.override(**change)
        assert message in str(info.value), (change, str(info.value))
    changed = config.override(
        games=5, seed=-1, max_turns=200, move_time=2, game_time=30, isolation="process"
    )
    assert (changed.games, changed.seed, changed.max_turns) == (5, -1, 200)
    assert (changed.move_time, changed.game_time, changed.isolation) == (2.0, 30.0, "process")
    assert config.override() is config
    # The plan's size is checked again with the new values.
    with pytest.raises(ConfigError, match="chunks of 1 deals; at most 1,000,000"):
        config.override(games=MAX_GAMES, chunk=1)


def test_check_bounds_names_the_option_and_skips_what_is_not_given():
    check_bounds(games=None, seed=None, max_turns=None)
    check_bounds(games=1, seed=SEED_MAX, max_turns=MAX_TURNS, max_games=10**6, move_time=1)
    with pytest.raises(ConfigError, match=r"^--max-turns: 40000; at most 32,767"):
        check_bounds(max_turns=40000)
    with pytest.raises(ConfigError, match=r"^--seed: expected a whole number, got 1.5"):
        check_bounds(seed=1.5)
    with pytest.raises(ConfigError, match=r"^--max-games: "):
        check_bounds(max_games=10**10)
    with pytest.raises(TypeError):
        check_bounds(colour=1)


def test_tourney_games_override_of_10_to_30_is_one_line_at_once(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text(TWO + "deals: 2\n")
    started = time.perf_counter()
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--deals", "1" + "0" * 30)
    assert time.perf_counter() - started < HANG_GUARD
    assert result.exit_code == 2
    assert "--deals: 1000000000000000000000000000000; at most" in one_error_line(result)
    assert not (tmp_path / "out").exists(), "nothing planned, nothing written"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"target": 10**30}, "parameter target: 1000000000000000000000000000000 is out of range"),
        ({"target": 10**5000}, "parameter target: <a number of 5000 digits> is out of range"),
        ({"target": float("nan")}, "parameter target: nan is out of range"),
        ({"target": "x" * 10_000}, "parameter target: a string of 10,000 characters; at most 200"),
        ({"target": list(range(5000))}, "more than 1,000 values in one parameter"),
        ({"target": [[[[[1]]]]]}, "nested more than 4 deep"),
        ({"target": {1: 2}}, "a mapping key 1; keys are strings"),
        ({"target": object()}, "a object is not a plain value"),
        ({"x" * 300: 1}, "is not a parameter name"),
        ({f"p{i}": 1 for i in range(51)}, "51 parameters; at most 50"),
    ],
)
def test_strategy_parameters_are_plain_and_bounded(params, expected):
    with pytest.raises(PluginError) as info:
        resolve("threshold", params)
    message = str(info.value)
    assert expected in message and len(message) < 500, message[:600]


def test_a_parameter_that_contains_itself_is_refused():
    loop: list = []
    loop.append(loop)
    with pytest.raises(PluginError, match="nested more than 4 deep"):
        resolve("threshold", {"target": loop})


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("threshold(target=" + "9" * 5000 + ")", "a reference of 5,018 characters; at most 1,000"),
        ("threshold(target=" + "[" * 300 + "]" * 300 + ")", "cannot read the parameters"),
        ("threshold(target=10**30)", "parameter target must be a literal"),
        ("gree\ndy", "a control character in the reference"),
        ("gree\x1bdy", "a control character in the reference"),
    ],
)
def test_strategy_references_are_bounded(ref, expected):
    with pytest.raises(PluginError) as info:
        resolve(ref)
    message = str(info.value)
    assert expected in message and "\n" not in message and len(message) < 500, message[:600]


# -- item 14: YAML --------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["games", "params", "rules", "merge"])
def test_an_alias_bomb_is_one_line_in_well_under_a_second(where):
    path = HOSTILE / f"inputs_bomb_{where}.yaml"
    assert path.stat().st_size < 1000, "a 1 kB bomb"
    message = config_file_error(path)
    assert "the document expands to more than 20,000 values" in message


def test_a_value_that_contains_itself_is_one_line():
    message = config_file_error(HOSTILE / "inputs_cycle.yaml")
    assert "inputs_cycle.yaml:2: a value that contains itself" in message


def test_an_alias_bomb_given_as_a_python_mapping_is_one_line():
    bomb: list = ["lol"] * 9
    for _ in range(8):
        bomb = [bomb] * 9
    for key in ("games", "rules", "name"):
        started = time.perf_counter()
        with pytest.raises(ConfigError) as info:
            load_config({"entrants": ["greedy", "random"], key: bomb})
        assert time.perf_counter() - started < HANG_GUARD
        assert "expands to more than 20,000 values" in str(info.value)


def test_shown_is_bounded_whatever_it_is_given():
    bomb: list = ["lol"] * 9
    for _ in range(20):  # 9**21 values
        bomb = [bomb] * 9
    started = time.perf_counter()
    texts = [shown(bomb), shown("x" * 10**7), shown(10**100_000), shown({"k": bomb}, 50)]
    assert time.perf_counter() - started < HANG_GUARD
    assert all(len(t) <= 200 for t in texts) and len(texts[3]) <= 50
    assert texts[1].startswith("'xxx") and texts[1].endswith("...")
    assert texts[2] == "<a number of 100000 digits>"
    assert shown([1, "a", None, True, 2.5, (3,)]) == "[1, 'a', None, True, 2.5, (3,)]"

    class Loud(int):
        def __repr__(self):
            raise RuntimeError("plugin code ran")

    assert shown(Loud(7)) == "7" and shown(object()) == "<object>"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (TWO + "games: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested more than 32 deep"),
        (TWO + "games: " + "{a: " * 2000 + "1" + "}" * 2000 + "\n", "nested more than 32 deep"),
        (TWO + "games: " + "x" * 900_000 + "\n", "games: expected a whole number, got 'xxx"),
        (TWO + "k" * 1000 + ": 1\n", "unknown key 'kkk"),
        (TWO + "k" * 100_000 + ": 1\n", "not valid YAML: could not find expected ':'"),
        (TWO + "games: " + ":".join(["1"] * 40) + "\n", "games: 226567704048198882505"),
        (TWO + "games: " + ":".join(["1"] * 60) + "\n", "a number of 119 characters"),
        ("entrants: [greedy, random, " + "x" * 200_000 + "]\n", "a reference of 200,000"),
    ],
)
def test_large_and_deep_documents_are_one_short_line(tmp_path, text, expected):
    assert len(text) < 1_000_000
    message = config_error(tmp_path, text)
    assert expected in message, message


def test_a_document_over_a_megabyte_is_refused_unread(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(TWO + "# " + "x" * 2_000_000 + "\n")
    message = config_file_error(path)
    assert "larger than 1,000,000 bytes" in message


@pytest.mark.parametrize("bomb", ["games", "params", "rules"])
def test_an_alias_bomb_through_the_command_line(tmp_path, cli, bomb):
    started = time.perf_counter()
    result = cli("tourney", str(HOSTILE / f"inputs_bomb_{bomb}.yaml"), "--out", str(tmp_path))
    assert time.perf_counter() - started < HANG_GUARD
    assert result.exit_code == 2
    assert "expands to more than 20,000 values" in one_error_line(result)
    assert not any(tmp_path.iterdir())


# -- item 15: records -----------------------------------------------------------------------
def hostile_records(tmp_path: Path) -> dict[str, Path]:
    made = {
        "deep": "[" * 100_000 + "]" * 100_000,
        "digits": '{"format": "pickomino-record/1", "seats": ["a", "b"], "turns": [{"seat": '
        + "7" * 5000
        + "}]}",
        "wide": json.dumps(
            {
                "format": "pickomino-record/1",
                "seats": ["greedy", "random"],
                "turns": [{"seat": 0, "rolls": [list(range(100_000))], "keeps": [1], "end": {}}],
            }
        ),
        "newline-name": json.dumps(
            {"format": "pickomino-record/1", "seats": ["a\nb", "c"], "turns": []}
        ),
        "long-name": json.dumps(
            {"format": "pickomino-record/1", "seats": ["n" * 10_000, "c"], "turns": []}
        ),
        "rules-bomb": json.dumps(
            {
                "format": "pickomino-record/1",
                "seats": ["a", "b"],
                "rules": {"bust_flip": [1] * 10**5},
            }
        ),
    }
    paths = {}
    for name, text in made.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(text)
    paths["huge"] = tmp_path / "huge.json"
    with paths["huge"].open("w") as fh:
        fh.write('{"format": "pickomino-record/1", "pad": "')
        fh.write("x" * (50 * 1024 * 1024))
        fh.write('"}')
    return paths


EXPECTED_RECORD_ERRORS = {
    "deep": "JSON nested too deeply",
    "digits": "a number of 5,000 digits",
    "huge": f"larger than {MAX_RECORD_BYTES:,} bytes",
    "wide": "expected 1 to 8 faces 1-6, got [0, 1, 2,",
    "newline-name": "seats[0]: 'a\\nb': a name is one line",
    "long-name": "seats[0]: 'nnn",
    "rules-bomb": "rules.bust_flip: [1, 1, 1",
}


def test_hostile_records_are_one_line_errors(tmp_path):
    for name, path in hostile_records(tmp_path).items():
        started = time.perf_counter()
        with pytest.raises(RecordError) as info:
            load_record(path)
        message = str(info.value)
        assert time.perf_counter() - started < HANG_GUARD, name
        assert EXPECTED_RECORD_ERRORS[name] in message, (name, message[:300])
        assert "\n" not in message and len(message) < 500, (name, message[:600])


def test_harness_replay_of_hostile_records_exits_2_in_one_line(tmp_path, cli):
    for name, path in hostile_records(tmp_path).items():
        result = cli("replay", str(path))
        assert result.exit_code == 2, name
        assert EXPECTED_RECORD_ERRORS[name] in one_error_line(result), name


def test_harness_replay_in_a_real_process_has_no_traceback(tmp_path, harness_process):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    proc = harness_process("replay", str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"Error: {path}: JSON nested too deeply; not a game record"
    ]


# -- item 16: names ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a\nb", "entrants[0].name: 'a\\nb' holds a control character ('\\n'); a name is one line"),
        ("tab\there", "holds a control character ('\\t')"),
        ("esc\x1b[31m", "holds a control character ('\\x1b')"),
        ("n" * (MAX_NAME_CHARS + 1), f"has 201 characters; at most {MAX_NAME_CHARS}"),
        ("   ", "expected a display name"),
    ],
)
def test_a_display_name_is_one_printable_line(name, expected):
    with pytest.raises(ConfigError) as info:
        load_config({"entrants": [{"strategy": "greedy", "name": name}, "random"]})
    assert expected in str(info.value) and "\n" not in str(info.value)


def test_a_long_label_needs_a_name(tmp_path):
    bot = tmp_path / "worded.py"
    bot.write_text(
        "from harness.strategy import Strategy\n\n\nclass Worded(Strategy):\n"
        "    name = 'worded'\n\n    def __init__(self, motto: str = ''):\n        pass\n\n"
        "    def pick(self, view):\n        return max(view.choices)\n\n"
        "    def stop(self, view):\n        return True\n"
    )
    short = {"strategy": f"{bot}:Worded", "params": {"motto": "go"}}
    names = [e.name for e in load_config({"entrants": [short, "random"]}).entrants]
    assert "worded(motto='go')" in names  # the class's own name attribute, with parameters
    long = {"strategy": f"{bot}:Worded", "params": {"motto": "y" * 199}}
    with pytest.raises(ConfigError, match="its label .* give it a shorter name:"):
        load_config({"entrants": [long, "greedy"]})
    named = load_config({"entrants": [{**long, "name": "wordy"}, "greedy"]})
    assert "wordy" in [e.name for e in named.entrants]


def test_a_yaml_newline_in_a_name_is_refused_with_its_line(tmp_path):
    text = 'entrants:\n  - greedy\n  - {strategy: random, name: "two\\nlines"}\n'
    message = config_error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'c.yaml'}:3: entrants[1].name:")


@pytest.mark.once
def test_report_draws_names_that_look_like_tex_literally(tmp_path, cli):
    names = ["$\\frac{cash$", "a$b$c", "\\mathbf{x}_"]
    config = tmp_path / "tex.yaml"
    config.write_text(
        "name: tex\ndeals: 2\nentrants:\n"
        + "".join(
            f"  - {{strategy: {ref}, name: {json.dumps(name)}}}\n"
            for ref, name in zip(["greedy", "random", "simple"], names, strict=True)
        )
    )
    played = cli(
        "tourney",
        str(config),
        "--out",
        str(tmp_path / "out"),
        "--workers",
        "0",
        "--no-report",
        "--json",
    )
    assert played.exit_code == 0, played.output
    result = cli("report", str(tmp_path / "out" / "tex"))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    plots = sorted(p.name for p in (tmp_path / "out" / "tex").glob("*/plots/*.png"))
    assert {"standings.png", "head_to_head.png", "seats.png"} <= set(plots), plots


# -- plugins that fail while loading (item 4's import part, item 6's bounded text) -----------
@pytest.mark.parametrize(
    ("fixture", "cls", "expected"),
    [
        ("inputs_import_raises", "Bot", "failed: RuntimeError: xxxxx"),
        ("inputs_import_exit", "Bot", "failed: SystemExit: 0"),
        ("inputs_import_interrupt", "Bot", "failed: KeyboardInterrupt"),
        ("inputs_import_unprintable", "Bot", "failed: Nasty: <unprintable Nasty>"),
        ("inputs_init_exit", "Quitter", "building it raised SystemExit: 0"),
        ("inputs_lying_class", "Liar", "checking it failed: SystemExit: 3"),
    ],
)
def test_a_plugin_failing_while_loaded_is_one_line_naming_it(tmp_path, cli, fixture, cls, expected):
    ref = f"{HOSTILE / fixture}.py:{cls}"
    # harness play: exit 2 (bad input), one line; the user's Ctrl-C mode is on, so the
    # plugin's own KeyboardInterrupt is its failure, not an interrupt (exit 130).
    result = cli("play", ref, "greedy", "--seed", "1")
    assert result.exit_code == 2, result.output
    line = one_error_line(result)
    assert expected in line and f"{fixture}.py" in line, line
    assert len(line) < 2200, len(line)
    # harness tourney: the same line, and nothing written.
    config = tmp_path / "c.yaml"
    config.write_text(f"entrants: ['{ref}', greedy]\ndeals: 1\n")
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and expected in one_error_line(result)
    assert not (tmp_path / "out").exists()


def test_a_plugin_raising_a_megabyte_message_is_cut_to_a_few_kilobytes():
    with pytest.raises(PluginError) as info:
        resolve(f"{HOSTILE / 'inputs_import_raises.py'}:Bot")
    message = str(info.value)
    assert len(message) < 2500 and message.endswith("more characters)")


def test_a_plugin_printing_while_loaded_does_not_reach_stdout(cli):
    ref = f"{HOSTILE / 'inputs_import_prints.py'}:Chatty"
    result = cli("play", ref, "greedy", "--seed", "3", "--json")
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout)["seed"] == 3  # stdout is exactly the JSON
    assert "hello from the plugin's import" in result.stderr


def test_harness_strategies_json_survives_entry_points_that_print_or_exit(
    tmp_path, cli, monkeypatch
):
    import importlib
    import sys

    root = tmp_path / "site"
    pkg = root / "inputsbots"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "chatty.py").write_text((HOSTILE / "inputs_import_prints.py").read_text())
    (pkg / "quits.py").write_text((HOSTILE / "inputs_import_exit.py").read_text())
    info = root / "inputsbots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: inputsbots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[harness.strategies]\nchatty = inputsbots.chatty:Chatty\nquits = inputsbots.quits:Bot\n"
    )
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    try:
        result = cli("strategies", "--json")
    finally:
        for name in [m for m in sys.modules if m.startswith("inputsbots")]:
            del sys.modules[name]
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["chatty"]["description"] == "Greedy-ish, but talks while it is loaded."
    assert rows["quits"]["description"] == "(cannot load: SystemExit: 0)"
    assert "hello from the plugin's import" in result.stderr
