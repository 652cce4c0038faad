"""The whole suite runs over one process per core, and nothing else does (tests/conftest.py,
docs/testing.md): a worker that started workers of its own would multiply the processes
on every level (tried once by mistake: the machine ran out of memory)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import conftest
import pytest


def _config(source, numprocesses=None, dist="no", worker=False, **options):  # noqa: ANN001, ANN003
    option = SimpleNamespace(numprocesses=numprocesses, dist=dist)
    values = {"collectonly": False, "usepdb": False, **options}
    config = SimpleNamespace(option=option, args_source=source, getoption=values.__getitem__)
    if worker:
        config.workerinput = {"workerid": "gw0"}
    return config


WHOLE = pytest.Config.ArgsSource.TESTPATHS


@pytest.fixture(autouse=True)
def _as_the_controller(monkeypatch):  # noqa: ANN001, ANN202
    # these tests run inside an xdist worker when the whole suite runs: the hook must be
    # judged as pytest's first process sees it (the worker's mark is set per test below)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


def test_the_whole_suite_spreads_its_files_over_the_cores() -> None:
    config = _config(WHOLE)
    conftest.pytest_cmdline_main(config)
    assert config.option.numprocesses == "auto"
    assert config.option.dist == "loadfile"


@pytest.mark.parametrize(
    "config",
    [
        _config(pytest.Config.ArgsSource.ARGS),  # chosen files or tests
        _config(WHOLE, numprocesses=0),  # -n 0
        _config(WHOLE, numprocesses=3, dist="load"),  # -n 3, as asked
        _config(WHOLE, worker=True),  # a worker: never workers of its own
        _config(WHOLE, collectonly=True),
        _config(WHOLE, usepdb=True),
    ],
    ids=["chosen files", "-n 0", "-n 3", "a worker", "--collect-only", "--pdb"],
)
def test_anything_else_runs_as_asked(config) -> None:  # noqa: ANN001
    before = (config.option.numprocesses, config.option.dist)
    conftest.pytest_cmdline_main(config)
    assert (config.option.numprocesses, config.option.dist) == before


def test_without_xdist_nothing_is_asked_of_it() -> None:
    config = _config(WHOLE)
    del config.option.numprocesses  # pytest-xdist not installed: no such option
    conftest.pytest_cmdline_main(config)
    assert not hasattr(config.option, "numprocesses")


def test_a_worker_is_known_by_its_environment_too(monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    config = _config(WHOLE)
    conftest.pytest_cmdline_main(config)
    assert config.option.numprocesses is None


def test_the_tests_see_no_terminal_width() -> None:
    # the terminal tables are read at a pipe's width; xdist's workers set COLUMNS=80
    assert "COLUMNS" not in os.environ and "LINES" not in os.environ
