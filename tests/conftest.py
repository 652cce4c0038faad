"""Shared fixtures: the CLI in-process (click) and in a real ``harness`` process, and the
exact turn solutions that more than one file checks (solved once a session)."""

from __future__ import annotations

import faulthandler
import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent

# The tests read terminal tables at the width of a pipe (harness.report.pages.page's
# DEFAULT_WIDTH), whatever the shell that runs them exports: some shells export COLUMNS,
# and pytest-xdist's workers start with COLUMNS=80 and LINES=24. A test that needs a width
# sets one itself (monkeypatch.setenv).
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The whole suite (``pytest -q``, as the README and CI run it) spreads its files over
    one process per core, pytest-xdist's ``-n auto --dist loadfile``: half of one
    process's time is spent waiting (worker pools starting, seat processes, time limits
    running out) and the other core fills it. Chosen files or tests, ``-n`` given
    (``-n 0``: one process), or pytest-xdist not installed: as asked, in one process.
    ``loadfile`` keeps a file's tests in one process, so that a module's fixtures are
    made once and its tests run in their written order. docs/testing.md has the times."""
    if hasattr(config, "workerinput") or os.environ.get("PYTEST_XDIST_WORKER"):
        return  # a worker runs what the controller sends it, never workers of its own
    if getattr(config.option, "numprocesses", "no xdist") is not None:  # -n given, or no xdist
        return
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    if config.getoption("collectonly") or config.getoption("usepdb"):
        return
    config.option.numprocesses = "auto"
    if config.option.dist == "no":
        config.option.dist = "loadfile"


class Cli:
    """Runs ``harness`` in-process through click (fast) and returns the click Result."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, **kwargs):
        from harness.cli import main  # imported when used: it loads every command's module

        return self.runner.invoke(main, list(args), catch_exceptions=False, **kwargs)


@pytest.fixture
def cli() -> Cli:
    return Cli()


def run_harness(*args: str, cwd: Path | None = None, env: dict | None = None):
    """``harness ARGS`` in a real process (exit status, stderr and no traceback are real)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=full_env,
        timeout=120,
    )


@pytest.fixture
def harness_process():
    return run_harness


@pytest.fixture
def deadline():
    """No test that uses it may hang: after 60 s the process dumps its stacks and exits
    (``pytestmark = pytest.mark.usefixtures("deadline")`` for a whole module)."""
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def exact_turn():
    """``exact_turn(kind, t)``: the exact solution of the opening turn for ``at_least`` or
    ``exactly`` ``t`` (harness.analysis.turn.solve_exact, about 0.2 s each at native
    speed, in Fractions), solved once a session for every file that checks one."""
    from harness.analysis.board import TurnBoard
    from harness.analysis.turn import solve_exact

    board = TurnBoard()

    @functools.cache
    def solution(kind: str, t: int):
        return solve_exact(getattr(board, kind)(t))

    return solution
