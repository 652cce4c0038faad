"""Every independent mistake of a config in one run (issue 11, item 5): one line each,
FILE:LINE: key: message, then exit 2; what a mistake makes meaningless is skipped."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.errors import ConfigError
from harness.tourney.config import ConfigProblems, load_config

FIVE = (
    "name: five\n"  # 1
    "players: 2\n"  # 2
    "entrants: [greedy, nosuch, random]\n"  # 3
    "deals: 0\n"  # 4
    "seed: x\n"  # 5
    "workers: -1\n"  # 6
    "gmaes: 3\n"  # 7
    "engine: fast\n"  # 8
)


def problems_of(tmp_path, text: str) -> list[str]:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return getattr(info.value, "problems", None) or [str(info.value)]


def test_five_mistakes_are_five_lines_in_one_run(tmp_path):
    problems = problems_of(tmp_path, FIVE)
    lines = {p.split(": ", 1)[0].rsplit(":", 1)[1]: p for p in problems}
    assert sorted(lines) == ["3", "4", "5", "6", "7", "8"], problems
    assert "unknown strategy 'nosuch'" in lines["3"]
    assert "deals: 0; must be at least 1" in lines["4"]
    assert "seed: expected a whole number" in lines["5"]
    assert "workers: -1" in lines["6"]
    assert "unknown key 'gmaes'; did you mean 'deals'?" in lines["7"]
    assert "engine: 'fast'" in lines["8"]
    assert all("\n" not in p and p.startswith(str(tmp_path)) for p in problems)


def test_cli_prints_an_error_line_each_and_exits_2(tmp_path):
    (tmp_path / "c.yaml").write_text(FIVE)
    result = CliRunner().invoke(main, ["tourney", str(tmp_path / "c.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 6 and all(line.startswith("Error: ") for line in lines), result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "five").exists()  # nothing made before the config is right


def test_one_mistake_is_still_a_plain_config_error(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("entrants: [greedy, random]\nseed: x\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert not isinstance(info.value, ConfigProblems)
    assert str(info.value).endswith(":2: seed: expected a whole number, got 'x'")


def test_every_bad_entrant_is_named(tmp_path):
    problems = problems_of(
        tmp_path, "entrants:\n  - nosuch\n  - greedy\n  - strategy: greedy\n    colour: red\n"
    )
    assert len(problems) == 2, problems
    assert ":2: entrants[0]: unknown strategy 'nosuch'" in problems[0]
    assert "entrants[2]: unknown key 'colour'" in problems[1]


def test_bad_players_skips_what_depends_on_it(tmp_path):
    # rules:, seating: and the entrant count need a player count: not checked (no
    # second-guessed complaint about "2 entrants" or the seating of 9 players)
    problems = problems_of(
        tmp_path, "players: 9\nseating: permutations\nentrants: [greedy]\nseed: x\n"
    )
    assert len(problems) == 2, problems
    assert "players: 9" in problems[0] and "seed: " in problems[1]


def test_bad_entrant_skips_the_count(tmp_path):
    # one entrant left after a bad one: the count would be a false complaint
    problems = problems_of(tmp_path, "entrants: [greedy, nosuch]\n")
    assert len(problems) == 1 and "nosuch" in problems[0]


def test_the_plan_size_is_checked_only_once_the_rest_is_right(tmp_path):
    problems = problems_of(tmp_path, "entrants: [greedy, random]\ndeals: 100000000\nchunk: 1\n")
    assert len(problems) == 1 and "chunks" in problems[0]
    problems = problems_of(
        tmp_path, "entrants: [greedy, random]\ndeals: 100000000\nchunk: 1\nseed: x\n"
    )
    assert len(problems) == 1 and "seed:" in problems[0]


def test_gauntlet_mistakes_together(tmp_path):
    problems = problems_of(tmp_path, "format: gauntlet\nentrants: [greedy, random]\ndice: odd\n")
    assert any("challenger: missing" in p for p in problems)
    assert any("dice: 'odd'" in p for p in problems)
    problems = problems_of(tmp_path, "format: knockout\nchallenger: greedy\nentrants: [greedy]\n")
    assert len(problems) == 1 and "format: 'knockout'" in problems[0]  # nothing of the count


def test_not_a_mapping_stops_at_once(tmp_path):
    assert len(problems_of(tmp_path, "- greedy\n- random\n")) == 1


def test_a_mapping_collects_too():
    with pytest.raises(ConfigProblems) as info:
        load_config({"entrants": ["greedy", "random"], "seed": "x", "deals": -1})
    assert len(info.value.problems) == 2
    assert str(info.value).splitlines() == info.value.problems


def test_lines_come_in_the_order_of_the_file(tmp_path):
    # found in the checker's order (keys first, entrants last), printed in the file's
    problems = problems_of(tmp_path, "entrants: [nosuch, random]\nseed: x\nbogus: 1\n")
    lines = [int(p.split(": ", 1)[0].rsplit(":", 1)[1]) for p in problems]
    assert lines == [1, 2, 3], problems
