"""A missing sandbox protection reaches ``--json`` too (issue 30, item 4.6).

On a machine without Landlock (or seccomp, or user namespaces) an isolated run said so
in one line on stderr and in run.log only; a script reading ``--json`` never learnt that
its isolated seats ran with less. The summary now lists them (``sandbox_missing``), and
says ``[]`` when nothing is missing. The machine's answer is stood in for here (the
probe), so the test holds on any kernel.
"""

from __future__ import annotations

import json

import pytest

import harness

pytestmark = pytest.mark.interpreter  # seat processes

LACKING = ("Landlock (not in this kernel)", "a seccomp filter (not on this architecture)")


@pytest.fixture
def lacking(monkeypatch):
    monkeypatch.setattr("harness.tourney.runner.probe", lambda: LACKING)
    monkeypatch.setattr("harness.seats.sandbox.probe", lambda: LACKING)


def test_tourney_json_lists_what_the_sandbox_lacks(cli, tmp_path, lacking):
    config = tmp_path / "c.yaml"
    config.write_text("name: c\nentrants: [greedy, simple]\ndeals: 1\nisolation: process\n")
    done = cli(
        "tourney", str(config), "--out", str(tmp_path / "out"), "--workers", "0", "--json",
        "--no-report",  # the summary's field is the point (a report reads the stored rows)
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["sandbox_missing"] == list(LACKING)
    stored = json.loads(next((tmp_path / "out").rglob("run.json")).read_text())
    assert stored["summary"]["sandbox_missing"] == list(LACKING)
    assert harness.load_run(summary["run_dir"]).sandbox_missing == list(LACKING)


def test_tourney_json_says_nothing_is_missing_when_nothing_is_isolated(cli, tmp_path, lacking):
    config = tmp_path / "c.yaml"
    config.write_text("name: c\nentrants: [greedy, simple]\ndeals: 1\n")
    done = cli(
        "tourney", str(config), "--out", str(tmp_path / "out"), "--workers", "0", "--json",
        "--no-report",  # the summary's field is the point (a report reads the stored rows)
    )  # fmt: skip
    assert json.loads(done.stdout.strip().splitlines()[-1])["sandbox_missing"] == []


def test_sprt_json_lists_what_the_sandbox_lacks(cli, lacking):
    done = cli(
        "sprt", "greedy", "simple", "--max-games", "8", "--workers", "0",
        "--isolation", "process", "--json",
    )  # fmt: skip
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["sandbox_missing"] == list(LACKING)
