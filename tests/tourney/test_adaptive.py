"""schedule: adaptive (harness.tourney.adaptive): batches to the open comparisons only,
the same schedule and games on any worker count and after an interrupt and resume, the
fixed plan's chunks (reused by key), a budget, the report's section, and bad input as
one line. Runs are a few hundred native games."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from harness.errors import ConfigError
from harness.report.api import cached_summary
from harness.runfolder.reader import ReportError, open_run
from harness.tourney import load_config, plan, run_tournament, runner

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

# greedy v simple is close (about 50.5%): open to the end; random is far from both.
ADAPTIVE = {
    "name": "adaptive",
    "entrants": ["greedy", "simple", "random"],
    "deals": 300,
    "seed": 5,
    "schedule": "adaptive",
    "target": {"batch": 50},
}


def rows(run_dir: Path) -> pd.DataFrame:
    """Every stored game, in a canonical order, without the timing columns."""
    parts = sorted((run_dir / "games").glob("*.parquet"))
    frame = pd.concat([pq.read_table(p).to_pandas() for p in parts], ignore_index=True)
    return frame.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def record(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())["adaptive"]


def play(tmp_path: Path, name: str, **kw):
    return run_tournament(ADAPTIVE, out=tmp_path / name, progress=False, **kw)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The run in this process (workers: 0), with its report."""
    out = tmp_path_factory.mktemp("ref")
    run = run_tournament(ADAPTIVE, out=out, workers=0, progress=False, report=True)
    return run


@pytest.mark.once
def test_open_comparisons_get_the_games_and_the_run_ends_when_settled(reference):
    adaptive = record(reference.run_dir)
    by_pair = {(c["a"], c["b"]): c for c in adaptive["comparisons"]}
    assert set(by_pair) == {("greedy", "random"), ("greedy", "simple"), ("random", "simple")}
    # the far pairs settle at the first look (100 deals), the close one plays on
    assert by_pair["greedy", "random"]["verdict"] == "a"
    assert by_pair["random", "simple"]["verdict"] == "b"
    assert by_pair["greedy", "random"]["deals"] == by_pair["random", "simple"]["deals"] == 100
    close = by_pair["greedy", "simple"]
    assert close["verdict"] == "open" and close["deals"] == 300
    assert adaptive["ended"] == "deals"
    # games: 3 tables x 100 deals x 2, then one table x 200 deals x 2; every one stored
    assert reference.stored == 600 + 400 == reference.planned
    assert reference.status == "complete"
    assert [b["tables"] for b in adaptive["batches"]] == [3, 3, 1, 1, 1, 1]
    assert adaptive["tables"] == {
        t: (300 if sorted(n) == ["greedy", "simple"] else 100)
        for t, n in ((t.id, t.names) for t in plan.tables(load_config(ADAPTIVE)))
    }


def test_two_workers_play_the_same_schedule_and_rows(tmp_path, reference):
    run = play(tmp_path, "two", workers=2)
    assert rows(run.run_dir).equals(rows(reference.run_dir))
    assert record(run.run_dir) == record(reference.run_dir)


def test_an_interrupt_mid_batch_and_a_resume_give_the_same_run(tmp_path, reference, monkeypatch):
    """Stopped after the 4th chunk (in the second batch: 3 chunks a batch at first), then
    run again: it decides batch by batch from what is stored, exactly as before."""
    stored = []
    original = runner._Run.store

    def store(self, outcome, bar):
        ok = original(self, outcome, bar)
        stored.append(outcome.spec.key)
        if len(stored) == 4:
            raise KeyboardInterrupt
        return ok

    monkeypatch.setattr(runner._Run, "store", store)
    with pytest.raises(runner.TourneyInterrupted) as info:
        play(tmp_path, "cut", workers=0)
    assert info.value.run.stored == 4 * 100  # 4 chunks of 50 deals x 2 games
    monkeypatch.setattr(runner._Run, "store", original)
    run = play(tmp_path, "cut", workers=0)
    assert run.resumed == 400 and run.status == "complete"
    assert rows(run.run_dir).equals(rows(reference.run_dir))
    assert record(run.run_dir) == record(reference.run_dir)
    assert cached_summary(run.run_dir)["adaptive"] == cached_summary(reference.run_dir)["adaptive"]


def test_a_fixed_run_of_the_same_deals_gives_every_chunk_to_reuse(tmp_path, reference):
    """A batch is the fixed plan's chunks: after a fixed run (chunk: the batch) nothing is
    played, and the adaptive run's rows are the ones it would have played."""
    fixed = {k: v for k, v in ADAPTIVE.items() if k not in ("schedule", "target")}
    # in a worker of its own: a chunk played in a process that loaded a plugin (another
    # test's, in this one) is rightly never reused
    run_tournament({**fixed, "chunk": 50}, out=tmp_path, workers=1, progress=False)
    run = run_tournament(ADAPTIVE, out=tmp_path, workers=0, progress=False)
    assert run.played == 0 and run.reused == run.stored == 1000
    assert rows(run.run_dir).equals(rows(reference.run_dir))


@pytest.mark.once
def test_the_budget_stops_before_a_batch_that_would_pass_it(tmp_path):
    run = run_tournament(
        {**ADAPTIVE, "budget": 700}, out=tmp_path, workers=0, progress=False, report=True
    )
    adaptive = record(run.run_dir)
    assert adaptive["ended"] == "budget"
    assert run.stored == 600 + 100 <= 700 and run.status == "complete"
    assert cached_summary(run.run_dir)["adaptive"]["open"] == 1


def test_the_report_says_which_were_settled_and_the_games_each_took(reference, cli):
    summary = cached_summary(reference.run_dir)
    section = summary["adaptive"]
    assert (section["settled"], section["tied"], section["open"]) == (2, 0, 1)
    assert {(c["a"], c["b"]): c["games"] for c in section["comparisons"]} == {
        ("greedy", "random"): 200,
        ("greedy", "simple"): 600,
        ("random", "simple"): 200,
    }
    md = (reference.run_dir / "report.md").read_text()
    assert "## Adaptive schedule" in md and "| greedy v simple | open |" in md
    assert "Adaptive schedule" in (reference.run_dir / "report.html").read_text()


def test_each_comparison_has_its_estimate_interval_at_the_stop_labelled_apart(reference):
    """Beside the verdict's interval (the confidence sequence), the estimate interval at
    the stop: in run.json, report.json (the results API's Run.report) and the pages, under
    names that say which is which; it lies inside the share's range and around the share."""
    import harness

    stored = {(c["a"], c["b"]): c for c in record(reference.run_dir)["comparisons"]}
    section = harness.load_run(reference.run_dir).report["adaptive"]
    assert set(section["intervals"]) == {"low, high", "stop_low, stop_high"}
    assert "confidence sequence" in section["intervals"]["low, high"]
    assert "stagewise" in section["intervals"]["stop_low, stop_high"]
    for c in section["comparisons"]:
        kept = stored[c["a"], c["b"]]
        assert kept["stop_level"] == 0.95
        assert c["stop_low"] == kept["stop_low"] and c["stop_high"] == kept["stop_high"]
        assert 0 <= c["stop_low"] < c["stop_median"] < c["stop_high"] <= 1
        assert c["stop_low"] <= c["share"] <= c["stop_high"]
        # the verdict's interval is at 1 - 0.05 / 3 and covers under any stopping: wider
        assert c["high"] - c["low"] > c["stop_high"] - c["stop_low"]
    md = (reference.run_dir / "report.md").read_text()
    assert "| anytime 95% interval | 95% at the stop |" in md
    assert "The 95% at the stop is another interval, for the estimate" in md


@pytest.mark.once
def test_the_terminal_and_json_carry_the_comparisons(tmp_path, cli):
    config = tmp_path / "a.yaml"
    config.write_text(json.dumps({**ADAPTIVE, "deals": 100}))  # JSON is YAML
    # The terminal's block and --json come from the run's summary, written or not.
    result = cli("tourney", str(config), "--out", str(tmp_path), "--workers", "0", "--no-report")
    assert result.exit_code == 0, result.output
    assert "Adaptive schedule: 3 comparisons, 2 settled, 0 tied" in result.output
    lines = result.output.split("Adaptive schedule:", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(lines) == 7 and max(len(line) for line in lines) <= 100
    result = cli(
        "tourney", str(config), "--out", str(tmp_path), "--workers", "0", "--json", "--no-report"
    )
    data = json.loads(result.output)
    assert data["adaptive"]["open"] == 1 and len(data["adaptive"]["comparisons"]) == 3


def test_a_stored_table_short_of_its_recorded_deals_is_refused(reference, tmp_path):
    """The reader holds each table to the deals run.json's schedule says it played."""
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(reference.run_dir, copy)
    data = json.loads((copy / "run.json").read_text())
    close = max(data["adaptive"]["tables"], key=data["adaptive"]["tables"].get)
    data["adaptive"]["tables"][close] = 350
    (copy / "run.json").write_text(json.dumps(data))
    with pytest.raises(ReportError, match="no stored chunk holds deal 300"):
        open_run(copy).check()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"target": {"zone": 0}}, "target.zone: 0; a tie zone lies above 0"),
        ({"target": {"zone_elo": 0}}, "target.zone_elo: 0; a tie zone lies above 0"),
        ({"target": {"confidence": 1}}, "target.confidence: 1; give at least 0.5 and below 1"),
        ({"target": {"batch": 0}}, "target.batch: 0; must be at least 1"),
        ({"budget": 0}, "budget: 0; must be at least 1"),
        ({"budget": 200}, "budget: 200 games; the first batch alone is 300"),
        ({"chunk": 30}, "chunk: 30 does not divide target.batch (50)"),
        ({"target": {"zone": 1, "zone_elo": 10}}, "target: zone and zone_elo are one setting"),
        ({"target": {"bacth": 5}}, "target: unknown key 'bacth'"),
        ({"schedule": "fixed"}, "target: only an adaptive run has one"),
        ({"schedule": "sometimes"}, "schedule: 'sometimes' is not one of fixed, adaptive"),
    ],
)
def test_bad_input_is_one_line(change, message):
    with pytest.raises(ConfigError) as info:
        load_config({**ADAPTIVE, **change})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_bad_input_on_the_command_line_exits_2_and_makes_nothing(tmp_path, cli):
    config = tmp_path / "a.yaml"
    config.write_text(json.dumps({**ADAPTIVE, "budget": 0}))
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert result.output.strip().startswith("Error: ") and len(result.output.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_an_adaptive_run_is_its_own_run_and_a_fixed_runs_key_is_unchanged(tmp_path, reference):
    """A fixed run of the same config is not resumed as the adaptive one (a folder of its
    own), and its key is plan.run_key's, untouched by the adaptive keys."""
    fixed = {k: v for k, v in ADAPTIVE.items() if k not in ("schedule", "target")}
    run = run_tournament({**fixed, "chunk": 50, "deals": 100}, out=tmp_path, workers=0)
    stored = json.loads((run.run_dir / "run.json").read_text())["key"]
    assert stored == plan.run_key(load_config({**fixed, "chunk": 50, "deals": 100}))
    adaptive_key = json.loads((reference.run_dir / "run.json").read_text())["key"]
    assert adaptive_key != plan.run_key(load_config(ADAPTIVE))
    again = run_tournament({**ADAPTIVE, "deals": 100}, out=tmp_path, workers=0, progress=False)
    assert again.run_dir != run.run_dir and again.resumed == 0


@pytest.mark.once
def test_dask_plays_the_same_schedule_and_rows(tmp_path):
    """On Dask (a local cluster of 2 workers: each batch its own results() call, on one
    cluster started once for the run)."""
    pytest.importorskip("distributed")
    small = {**ADAPTIVE, "deals": 150}
    here = run_tournament(small, out=tmp_path / "here", workers=0, progress=False)
    told: list[str] = []
    dask = run_tournament(
        small, out=tmp_path / "dask", workers=2, backend="dask", progress=False, echo=told.append
    )
    assert dask.status == "complete" and len(record(dask.run_dir)["batches"]) == 3
    assert sum(line.startswith("Dask: ") for line in told) == 1, told
    assert rows(dask.run_dir).equals(rows(here.run_dir))
    assert record(dask.run_dir) == record(here.run_dir)


@pytest.mark.once
def test_a_sigkill_mid_run_then_the_same_command_gives_the_same_run(tmp_path):
    """kill -9 of `harness tourney` (parent and workers, no handler runs) in the middle of
    an adaptive run, then the same command: the schedule is taken again from the stored
    batches only, and the rows and the adaptive record are those of a run never killed."""
    import os
    import signal
    import subprocess
    import sys

    from test_tourney_faults import ROOT, SLOW, only_run, start, wait_for_chunks

    (tmp_path / "slow.py").write_text(SLOW)  # greedy after a nap a game: a run of seconds
    config = tmp_path / "slow.yaml"
    config.write_text(
        "name: slow\nentrants: [greedy, random, slow.py:Slow]\ndeals: 200\nseed: 5\n"
        "schedule: adaptive\ntarget: {batch: 20}\n"
    )
    reference = run_tournament(config, out=tmp_path / "ref", workers=0, progress=False)
    assert reference.status == "complete"
    out = tmp_path / "out"
    proc = start(config, out)
    wait_for_chunks(out, "slow", 4, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()
    run_dir = only_run(out, "slow")
    saved = len((run_dir / "manifest.jsonl").read_text().splitlines())
    assert json.loads((run_dir / "run.json").read_text())["status"] == "running", saved
    again = subprocess.run(
        [sys.executable, "-m", "harness", "tourney", str(config), "--out", str(out),
         "--workers", "2", "--json", "--no-report"],  # the rows are compared, not a report
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout)["resumed"] > 0
    assert rows(run_dir).equals(rows(reference.run_dir))
    assert record(run_dir) == record(reference.run_dir)
