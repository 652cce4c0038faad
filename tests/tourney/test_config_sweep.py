"""Parameter sweeps in a config (issue 19, item 8).

``{strategy: threshold, sweep: {target: [24, 26, 28]}}`` is one entrant per value, named
by it, each checked as any entrant (bounds, types, unknown parameters, one line naming
the file, line and value); the entrants are the ones written out by hand, game for game.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_config_schema import SCHEMA, errors

from harness.errors import ConfigError
from harness.tourney import plan
from harness.tourney.config import ConfigProblems, load_config


def _load(tmp_path: Path, text: str):
    path = tmp_path / "c.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return load_config(path)


def _problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    exc = info.value
    return exc.problems if isinstance(exc, ConfigProblems) else [str(exc)]


def test_one_line_tunes_one_number(tmp_path):
    config = _load(
        tmp_path,
        """
        entrants:
          - greedy
          - {strategy: threshold, sweep: {target: [24, 26, 28, 30]}}
        deals: 5
        """,
    )
    names = [e.name for e in config.entrants]
    assert names == [
        "greedy",
        "threshold(target=24)",
        "threshold(target=26)",
        "threshold(target=28)",
        "threshold(target=30)",
    ]
    assert [e.params for e in config.entrants[1:]] == [{"target": t} for t in (24, 26, 28, 30)]


def test_a_sweep_is_the_entrants_written_out(tmp_path):
    swept = _load(
        tmp_path,
        """
        entrants: [greedy, {strategy: threshold, sweep: {target: [24, 28]}}]
        deals: 5
        seed: 3
        """,
    )
    written = _load(
        tmp_path,
        """
        entrants: [greedy, 'threshold(target=24)', 'threshold(target=28)']
        deals: 5
        seed: 3
        """,
    )
    assert [e.identity() for e in swept.entrants] == [e.identity() for e in written.entrants]
    assert plan.Plan(swept).run_key == plan.Plan(written).run_key  # the same games


def test_a_named_sweep_and_several_keys(tmp_path):
    config = _load(
        tmp_path,
        """
        entrants:
          - greedy
          - strategy: worm-first
            name: wf
            sweep: {target: [25, 27], min_dice: [2, 3]}
        deals: 5
        """,
    )
    assert [e.name for e in config.entrants[1:]] == [
        "wf(target=25, min_dice=2)",
        "wf(target=25, min_dice=3)",
        "wf(target=27, min_dice=2)",
        "wf(target=27, min_dice=3)",
    ]


@pytest.mark.parametrize(
    ("entrant", "expected"),
    [
        (
            "{strategy: threshold, sweep: {target: [24, 24]}}",
            ":3: entrants[1].sweep.target: 24 is listed twice",
        ),
        (
            "{strategy: threshold, params: {target: 3}, sweep: {target: [24]}}",
            ":3: entrants[1].sweep.target: also under params:",
        ),
        (
            "{strategy: threshold, sweep: {target: 24}}",
            ":3: entrants[1].sweep.target: expected a list of values",
        ),
        (
            "{strategy: threshold, sweep: {target: []}}",
            ":3: entrants[1].sweep.target: expected a list of values",
        ),
        (
            "{strategy: threshold, sweep: []}",
            ":3: entrants[1].sweep: expected a mapping of a parameter",
        ),
        (
            "{strategy: threshold, sweep: {target: [24, 'x']}}",
            ":3: entrants[1] (target='x'): strategy threshold: parameter target expects int",
        ),
        (
            "{strategy: threshold, sweep: {targte: [24]}}",
            ":3: entrants[1] (targte=24): strategy threshold: unknown parameter 'targte'; "
            "did you mean 'target'?",
        ),
        (
            "{strategy: threshold, sweep: {target: [" + ", ".join(map(str, range(65))) + "]}}",
            ":3: entrants[1].sweep: 65 entrants; at most 64 in a run",
        ),
        ("{strategy: random, sweep: {p_stop: [0.5, 2.0]}}", "entrants[1] (p_stop=2.0)"),
    ],
)
def test_sweep_mistakes_are_one_line_with_file_and_line(tmp_path, entrant, expected):
    problems = _problems(tmp_path, f"entrants:\n  - greedy\n  - {entrant}\ndeals: 5\n")
    assert len(problems) == 1 and "\n" not in problems[0]
    assert expected in problems[0], problems[0]
    assert problems[0].startswith(str(tmp_path / "c.yaml"))


def test_sweeps_count_toward_the_entrant_bound_and_names_stay_unique(tmp_path):
    values = ", ".join(str(v) for v in range(21, 41))
    problems = _problems(
        tmp_path,
        f"""
        entrants:
          - {{strategy: threshold, sweep: {{target: [{values}]}}}}
          - {{strategy: worm-first, sweep: {{target: [{values}]}}}}
          - {{strategy: threshold, name: other, sweep: {{target: [{values}]}}}}
          - {{strategy: tactician, sweep: {{caution: [0.5, 0.6, 0.7, 0.8, 0.9]}}}}
          - {{strategy: random, sweep: {{p_stop: [0.1, 0.2, 0.3, 0.4, 0.5]}}}}
        deals: 5
        """,
    )
    where = tmp_path / "c.yaml"
    assert problems == [f"{where}:1: entrants: 70 once the sweeps are expanded; at most 64"]
    problems = _problems(
        tmp_path,
        """
        entrants: ['threshold(target=24)', {strategy: threshold, sweep: {target: [24, 25]}}]
        deals: 5
        """,
    )
    assert "two entrants are named 'threshold(target=24)'" in problems[0]


def test_a_challenger_is_one_strategy(tmp_path):
    problems = _problems(
        tmp_path,
        """
        format: gauntlet
        challenger: {strategy: threshold, sweep: {target: [24, 26]}}
        entrants: [greedy, random]
        deals: 5
        """,
    )
    assert "challenger.sweep: challenger is one strategy; sweep an entrant" in problems[0]


def test_the_schema_knows_the_sweep():
    good = {"entrants": ["greedy", {"strategy": "threshold", "sweep": {"target": [24, 26]}}]}
    bad = {"entrants": ["greedy", {"strategy": "threshold", "sweep": {"target": []}}]}
    assert errors(SCHEMA, good) == []
    assert errors(SCHEMA, bad)
