"""Full disks and races, the last rough edges (issue 24, item 9).

* run.log that cannot be written printed hundreds of lines of logging tracebacks and
  ended in "Error: cannot finish: [Errno 28]", even after a complete run: now one line
  naming the file, and a complete run is reported complete.
* ``harness report`` on a full disk exited 2 in a real process (1 with --repair, and in
  the tests): a storage error is exit 1 whatever modules are loaded.
* A run whose first writes fail leaves no folder without run.json behind.
* ``compare --out`` on a full disk names the file it could not write.
* Two simultaneous starts on an empty --out could both run, into <id> and <id>-2.
* ``harness report`` overlapping the end of a run could leave a partial report beside a
  run.json that says complete.
"""

from __future__ import annotations

import errno
import io
import json
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from harness.tourney import run_tournament
from harness.tourney.runner import RunLogHandler
from harness.tourney.storage import RunFolder, StorageError

# not `engine`: what these add (processes, signals, disks) is not the engine's; a chunk
# picks its engine as in test_tourney_run.py, which pass 2 runs
pytestmark = pytest.mark.interpreter

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {"name": "d", "entrants": ["greedy", "random", "simple"], "deals": 4, "chunk": 2}


class FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("workers", [0, 1])
def test_an_unwritable_run_log_is_one_line_and_the_run_completes(
    tmp_path, monkeypatch, capfd, workers
):
    monkeypatch.setattr(RunLogHandler, "_open", lambda self: FullDisk())
    notes: list[str] = []
    run = run_tournament(CONFIG, out=tmp_path, workers=workers, echo=notes.append)
    assert run.status == "complete" and run.stored == 24
    warnings = [n for n in notes if n.startswith("Warning:")]
    assert len(warnings) == 1, notes
    assert "run.log: cannot write the log: the disk is full" in warnings[0]
    err = capfd.readouterr().err
    assert "Logging error" not in err and "Traceback" not in err


@pytest.mark.once
def test_the_cli_reports_a_complete_run_complete_without_its_log(tmp_path, monkeypatch, cli):
    monkeypatch.setattr(RunLogHandler, "_open", lambda self: FullDisk())
    config = tmp_path / "d.yaml"
    config.write_text(json.dumps(CONFIG))
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "Error" not in result.output and "Traceback" not in result.output
    assert result.output.count("run.log: cannot write the log") == 1


REPORT_ON_A_FULL_DISK = """
import errno, os, sys
def full(fd):
    raise OSError(errno.ENOSPC, "No space left on device")
os.fsync = full  # every report file is fsync'ed before it replaces the old one
from harness.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.once
def test_a_report_on_a_full_disk_exits_1_in_a_real_process(tmp_path, repair):
    run = run_tournament(CONFIG, out=tmp_path, workers=0)
    args = ["report", str(run.run_dir), "--no-plots", *(["--repair"] if repair else [])]
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(REPORT_ON_A_FULL_DISK), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and done.stderr.strip().endswith(errors[0])  # --repair says
    assert "report.md: cannot write: the disk is full" in errors[0]  # what it did first


def test_a_run_whose_first_writes_fail_leaves_no_folder(tmp_path, monkeypatch):
    def full(self, data):
        raise StorageError(f"{self.path}/run.json: cannot write: the disk is full")

    monkeypatch.setattr(RunFolder, "write_run_json", full)
    with pytest.raises(StorageError, match="the disk is full"):
        run_tournament(CONFIG, out=tmp_path, workers=0)
    assert [p for p in (tmp_path / "d").iterdir()] == []


def test_compare_on_a_full_disk_names_the_file(tmp_path, monkeypatch, cli):
    a = run_tournament({**CONFIG, "seed": 1}, out=tmp_path / "a", workers=0).run_dir
    b = run_tournament({**CONFIG, "seed": 2}, out=tmp_path / "b", workers=0).run_dir

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("harness.report.files.os.fsync", full)
    out = tmp_path / "cmp"
    result = cli("compare", str(a), str(b), "--out", str(out))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {out}/compare")
    assert "cannot write: the disk is full" in lines[0]


def test_two_starts_at_once_never_make_two_runs(tmp_path, monkeypatch):
    """Both look for the run before either has made it (the gap widened here): one plays,
    the other finds its run and is refused as a later start is, or resumes it once it
    is done; never a twin <id>-2 beside it."""
    real = RunFolder.find

    def slow_find(*args, **kwargs):
        found = real(*args, **kwargs)
        time.sleep(0.5)
        return found

    monkeypatch.setattr(RunFolder, "find", staticmethod(slow_find))
    outcomes: list[object] = []
    barrier = threading.Barrier(2)

    def start() -> None:
        barrier.wait()
        try:
            outcomes.append(run_tournament(CONFIG, out=tmp_path, workers=1))
        except StorageError as exc:
            outcomes.append(exc)

    threads = [threading.Thread(target=start) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    runs = [p for p in (tmp_path / "d").iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    refused = [o for o in outcomes if isinstance(o, StorageError)]
    assert all("another harness tourney is running this run" in str(o) for o in refused)


def test_a_report_that_overlaps_the_end_of_its_run_is_never_left_stale(tmp_path, monkeypatch):
    from harness.report import api

    config = {**CONFIG, "deals": 6}
    run = run_tournament(config, out=tmp_path, workers=0)
    run_dir = run.run_dir
    # The run as it was mid-way: half its chunks listed, run.json "interrupted".
    manifest = run_dir / "manifest.jsonl"
    lines = manifest.read_text().splitlines(keepends=True)
    for line in lines[len(lines) // 2 :]:
        (run_dir / "games" / json.loads(line)["file"]).unlink()
    manifest.write_text("".join(lines[: len(lines) // 2]))
    data = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**data, "status": "interrupted"}))

    real = api.summarise_run
    calls = []

    def overlapped(info, progress=None):
        summary = real(info, progress)  # counted from the half ...
        if not calls:
            calls.append(1)
            run_tournament(config, out=tmp_path, workers=0)  # ... as the run ends
        return summary

    monkeypatch.setattr(api, "summarise_run", overlapped)
    api.write_report(run_dir, plots=False)
    report = json.loads((run_dir / "report.json").read_text())
    assert json.loads((run_dir / "run.json").read_text())["status"] == "complete"
    assert report["games"]["stored"] == 6 * 3 * 2
