"""Conventions of the command line (issue 11, item 5): ``deals:`` / ``--deals`` name
what they count (``games:`` / ``--games``, the old names, still work, with one
deprecation line, once); ``-v`` / ``-q``; shell completion of strategy and config
names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.errors import ConfigError, Deprecated
from harness.tourney.config import load_config

TWO = "entrants: [greedy, random]\nworkers: 0\nseed: 5\n"


def run_cli(tmp_path, *args: str):
    return CliRunner().invoke(
        main, ["tourney", *args, "--out", str(tmp_path / "out"), "--no-report", "--json"]
    )


def test_deals_key_and_games_key_mean_the_same(tmp_path):
    (tmp_path / "a.yaml").write_text(TWO + "deals: 7\n")
    (tmp_path / "b.yaml").write_text(TWO + "games: 7\n")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        new, old = load_config(tmp_path / "a.yaml"), load_config(tmp_path / "b.yaml")
    assert new.games == old.games == 7
    said = [w for w in seen if issubclass(w.category, Deprecated)]
    assert len(said) == 1 and "games: is now deals:" in str(said[0].message)


def test_both_keys_are_one_line(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO + "deals: 7\ngames: 7\n")
    with pytest.raises(ConfigError, match=r"c\.yaml:5: games: the old name of deals:"):
        load_config(tmp_path / "c.yaml")


def test_deals_bounds_name_the_key(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO + "deals: 100000001\n")
    with pytest.raises(ConfigError, match=r"deals: 100000001; at most 100,000,000"):
        load_config(tmp_path / "c.yaml")


def test_deals_option_plays_that_many_deals(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO + "deals: 50\n")
    result = run_cli(tmp_path, str(tmp_path / "c.yaml"), "--deals", "3")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 6  # 3 deals x 2 seat orders


def test_games_option_still_works_and_is_deprecated(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO + "deals: 50\n")
    with pytest.warns(Deprecated, match="--games is now --deals"):
        result = run_cli(tmp_path, str(tmp_path / "c.yaml"), "--games", "2")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 4


def test_both_options_are_one_line_exit_2(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO)
    result = run_cli(tmp_path, str(tmp_path / "c.yaml"), "--deals", "2", "--games", "2")
    assert result.exit_code == 2
    assert result.output.strip() == (
        "Error: --deals and --games: give --deals only (--games is its old name)"
    )
    assert not (tmp_path / "out").exists()


def test_a_too_large_deals_option_names_deals(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO)
    result = run_cli(tmp_path, str(tmp_path / "c.yaml"), "--deals", str(10**9))
    assert result.exit_code == 2 and result.output.startswith("Error: --deals: "), result.output


def test_deprecation_is_one_stderr_line_once(tmp_path):
    """As a user sees it: a real process, Python's own warning display."""
    (tmp_path / "c.yaml").write_text(TWO + "games: 2\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "tourney", str(tmp_path / "c.yaml"), "--games", "2"]
        + ["--out", str(tmp_path / "out"), "--no-report", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "deprecat" in line.lower()]
    assert said == [
        "Deprecated: --games is now --deals (it counts deals per table); --games still works "
        "for now",
        "Deprecated: games: is now deals: (it counts deals per table); games: still works for now",
    ], proc.stderr
    assert "Warning" not in proc.stderr
    json.loads(proc.stdout)


# -- -v / -q ---------------------------------------------------------------------------
def test_verbose_prints_the_log_and_quiet_prints_no_notes(tmp_path):
    (tmp_path / "c.yaml").write_text(TWO + "deals: 2\n")
    args = ["tourney", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "--no-report"]
    loud = CliRunner().invoke(main, [*args, "-v", "--fresh"])
    assert loud.exit_code == 0, loud.output
    assert "INFO harness.tourney: run complete" in loud.stderr
    quiet = CliRunner().invoke(main, [*args, "-q", "--fresh"])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == "" and "Run folder:" in quiet.stdout
    plain = CliRunner().invoke(main, [*args, "--fresh"])
    assert "Playing" in plain.stderr and "INFO" not in plain.stderr
    # the -v handler is gone once the command ends
    import logging

    assert not [h for h in logging.getLogger("harness").handlers if hasattr(h, "harness_console")]


def test_quiet_writes_the_report_and_prints_no_note(tmp_path):
    """-q with the report written (the default): stderr stays empty, stdout names it."""
    (tmp_path / "c.yaml").write_text(TWO + "deals: 2\n")
    result = CliRunner().invoke(
        main, ["tourney", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "-q"]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert "Report: " in result.stdout and list((tmp_path / "out").rglob("report.html"))


def test_sprt_and_report_take_the_options():
    for command in (["sprt", "--help"], ["report", "--help"], ["tourney", "--help"]):
        text = CliRunner().invoke(main, command).output
        assert "-v, --verbose" in text, command
        assert "-q, --quiet" in text, command


# -- shell completion ----------------------------------------------------------------------
def complete(words: str) -> list[str]:
    from click.shell_completion import ShellComplete

    args = words.split()
    incomplete = "" if words.endswith(" ") else args.pop()
    comp = ShellComplete(main, {}, "harness", "_HARNESS_COMPLETE")
    return [f"{i.type},{i.value}" for i in comp.get_completions(args, incomplete)]


def test_completion_of_config_and_strategy_names():
    assert "plain,round_robin" in complete("tourney rou")
    assert complete("tourney rou")[-1] == "file,rou"  # a file name still completes
    assert "plain,greedy" in complete("sprt gre")
    assert "plain,tactician" in complete("sprt greedy t")
    assert "plain,threshold" in complete("play greedy t")
    assert "plain,tactician" in complete("sprt a b --filler t")
    assert not [c for c in complete("sprt gre") if c.startswith("plain,") and "gre" not in c]
