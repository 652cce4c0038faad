"""One exit-status rule for every command (issue 9, item 17; harness/commands/common.py).

0 done, 1 the work cannot finish, 2 bad input of any kind, 130 interrupted: checked
command by command, in-process through click and, where the status or the signal must be
real, in a real ``harness`` process. (3, ``--strict`` with forfeits, belongs to the tourney
and sprt options; its constant is checked here.)
"""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from helpers import as_at_a_terminal

from harness.commands.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_FORFEITS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    exit_status,
)
from harness.errors import (
    ConfigError,
    HarnessError,
    IntegrityError,
    PluginError,
    RecordError,
    RulesError,
    RunFailed,
)

pytestmark = pytest.mark.interpreter

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).resolve().parents[1] / "fixtures" / "hostile"


def one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output[:2000]
    assert "Traceback" not in result.output and "Aborted!" not in result.output
    return lines[0]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A small finished run (no report yet) to write reports of."""
    from click.testing import CliRunner

    from harness.cli import main

    root = tmp_path_factory.mktemp("run")
    config = root / "small.yaml"
    config.write_text("name: small\nentrants: [greedy, random, simple]\ndeals: 2\n")
    out = root / "out"
    args = ["tourney", str(config), "--out", str(out), "--workers", "0", "--no-report", "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return next((out / "small").iterdir())


def test_the_constants():
    assert (EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_FORFEITS, EXIT_INTERRUPTED) == (
        0,
        1,
        2,
        3,
        130,
    )


def test_exit_status_of_each_kind_of_error():
    from harness.runfolder.reader import ReportError
    from harness.tourney.storage import StorageError

    for exc in (ConfigError("x"), PluginError("x"), RulesError("x"), RecordError("x")):
        assert exit_status(exc) == 2, exc
    assert exit_status(HarnessError("--targets: no target given")) == 2  # an option
    assert exit_status(ReportError("no such folder")) == 2  # the run folder given is bad
    assert exit_status(click.UsageError("x")) == 2
    for exc in (RunFailed("x"), StorageError("disk full"), IntegrityError("x"), OSError("x")):
        assert exit_status(exc) == 1, exc
    assert exit_status(KeyboardInterrupt()) == 130
    assert exit_status(MemoryError()) == 1


# -- 2: bad input, whatever the command ---------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tourney", "{tmp}/nope.yaml"], "no such config file"),
        (["tourney", "{tmp}/bad.yaml"], "bad.yaml:1: players: 9"),
        (["tourney", "{tmp}/good.yaml", "--seed", "9" * 30], "--seed: "),
        (["tourney", "{tmp}/good.yaml", "--deals", "1" + "0" * 30], "--deals: "),
        (["play", "greddy", "greedy"], "unknown strategy 'greddy'"),
        (["play", "threshold(target=99)", "greedy"], "parameter target: 99 is out of bounds"),
        (["play", "greedy", "greedy", "--set", "bust_flip=up"], "bust_flip: 'up' is not one of"),
        (["play", "{hostile}/inputs_import_exit.py:Bot", "greedy"], "SystemExit: 0"),
        (["sprt", "greedy", "nosuch.py:Bot"], "nosuch.py"),
        (["sprt", "greedy", "simple", "--elo1", "-5"], "elo1 (-5) must be above elo0"),
        (["replay", "{tmp}/nope.json"], "no such file"),
        (["replay", "{tmp}/illegal.json"], "turn 1, seat 0"),
        (["report", "{tmp}/nope"], "no such folder"),
        (["compare", "{tmp}/nope", "{tmp}/nope2"], "no such folder"),
        (["analyze", "turn", "--grill", "99"], "is not a tile 21-36 (R1)"),
        (["analyze", "turn", "--tops", "1" * 500], "--tops: "),
        (["analyze", "turn", "--seed", str(2**63)], "--seed: "),
    ],
)
def test_bad_input_exits_2_in_one_line(tmp_path, cli, args, message):
    (tmp_path / "bad.yaml").write_text("players: 9\nentrants: [greedy, random]\n")
    (tmp_path / "good.yaml").write_text("entrants: [greedy, random]\ndeals: 1\n")
    illegal = {
        "format": "pickomino-record/1",
        "seats": ["a", "b"],
        "turns": [{"seat": 0, "rolls": [[1] * 8], "keeps": [2], "end": {"claim": 21}}],
    }
    (tmp_path / "illegal.json").write_text(json.dumps(illegal))
    args = [a.format(tmp=tmp_path, hostile=HOSTILE) for a in args]
    result = cli(*args)
    assert result.exit_code == 2, result.output
    line = one_error_line(result)
    assert message in line, line
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "greedy"], "a game has 2 to 7 players (R3)"),
        (["tourney", "--no-such-option", "x.yaml"], "No such option"),
        (["play", "greedy", "greedy", "--seed", "x"], "'x' is not a valid integer"),
        (["play", "greedy", "greedy", "--set", "players=" + "9" * 5000], "5,008 characters"),
    ],
)
def test_click_usage_errors_exit_2(cli, args, message):
    result = cli(*args)
    assert result.exit_code == 2
    assert message in result.output.strip().splitlines()[-1]


def test_bad_input_in_a_real_process(harness_process):
    proc = harness_process("play", f"{HOSTILE}/inputs_import_interrupt.py:Bot", "greedy")
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"Error: strategy '{HOSTILE}/inputs_import_interrupt.py:Bot': loading "
        f"{HOSTILE}/inputs_import_interrupt.py failed: KeyboardInterrupt"
    ]


# -- 1: the work cannot finish -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raised", "message"),
    [
        (RunFailed("chunks failed twice"), "Error: chunks failed twice"),
        (IntegrityError("tiles not conserved"), "Error: tiles not conserved"),
        (
            OSError(errno.ENOSPC, "No space left on device"),
            "Error: cannot finish: [Errno 28] No space left on device",
        ),
        (MemoryError(), "Error: out of memory; the command stopped"),
    ],
)
def test_a_command_that_cannot_finish_exits_1(cli, monkeypatch, run_dir, raised, message):
    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr("harness.report.write_report", fail)
    result = cli("report", str(run_dir))
    assert result.exit_code == 1
    assert one_error_line(result) == message


def test_storage_errors_exit_1(cli, monkeypatch, run_dir):
    from harness.tourney.storage import StorageError

    def fail(*args, **kwargs):
        raise StorageError(f"{run_dir}: cannot write: read-only file system")

    monkeypatch.setattr("harness.report.write_report", fail)
    result = cli("report", str(run_dir))
    assert result.exit_code == 1 and "read-only file system" in one_error_line(result)


def test_a_record_that_cannot_be_written_is_a_failure_not_bad_input(tmp_path):
    from harness.game.record import save_record

    with pytest.raises(RunFailed, match="cannot write the record"):
        save_record({"format": "pickomino-record/1"}, tmp_path / "no" / "such" / "g.json")


# -- 130: interrupted, wherever it lands ---------------------------------------------------------
def test_ctrl_c_while_the_report_is_written_exits_130(cli, monkeypatch, run_dir):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("harness.report.write_report", interrupted)
    result = cli("report", str(run_dir))
    assert result.exit_code == 130
    assert one_error_line(result) == "Interrupted."


def test_ctrl_c_while_tourney_writes_its_report_exits_130(tmp_path, cli, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("harness.report.write_report", interrupted)
    config = tmp_path / "c.yaml"
    config.write_text("entrants: [greedy, random]\ndeals: 2\n")
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--workers", "0")
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines()[-1] == "Interrupted."
    assert "Aborted!" not in result.output and "Traceback" not in result.output


def test_ctrl_c_that_no_command_handles_exits_130(cli):
    from harness.cli import main

    @click.command("explode")
    def explode() -> None:
        raise KeyboardInterrupt

    main.add_command(explode)
    try:
        result = cli("explode")
    finally:
        main.commands.pop("explode")
    assert result.exit_code == 130
    assert one_error_line(result) == "Interrupted."


def test_a_real_ctrl_c_during_the_report_in_a_real_process(run_dir):
    # The report's work sends the process a real SIGINT: what a user's Ctrl-C does.
    script = textwrap.dedent(
        f"""
        import os, signal, time
        import harness.report.api as api
        def write_report(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(10)
        api.write_report = write_report
        from harness.cli import main
        main(["report", {str(run_dir)!r}])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60,
        preexec_fn=as_at_a_terminal,
    )  # fmt: skip
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip().splitlines() == ["Interrupted."]


def test_a_plugins_keyboard_interrupt_is_not_the_users(cli):
    # Raised while loading: the plugin's failure (2), not an interrupt (130).
    result = cli("play", f"{HOSTILE}/inputs_import_interrupt.py:Bot", "greedy")
    assert result.exit_code == 2
    assert "failed: KeyboardInterrupt" in one_error_line(result)


# -- 0 ---------------------------------------------------------------------------------------
def test_finished_work_exits_0(cli, run_dir, tmp_path):
    assert cli("report", str(run_dir), "--no-plots", "-q").exit_code == 0
    assert cli("strategies").exit_code == 0
    record = tmp_path / "g.json"
    assert cli("play", "greedy", "random", "--seed", "1", "--record", str(record)).exit_code == 0
    assert cli("replay", str(record)).exit_code == 0
