"""The runner's structure: one plan, backends behind one face, one account of retries,
and the report below the runner (repair above both).

Each guarantee is attacked: keys hashed again, specs held in memory, a backend the
runner does not know, a chunk that raises once or always, the report importing the
runner. Every run here is a few dozen games, in this process.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from harness.runfolder import schema
from harness.tourney import load_config, plan, run_tournament, runner
from harness.tourney.backends import (
    Backend,
    BackendStats,
    Done,
    Failed,
    ProcessBackend,
    Retries,
    SerialBackend,
    base,
    local_backend,
    serial,
)
from harness.tourney.chunks import play_chunk

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

SMALL = {"name": "phases", "entrants": ["greedy", "random", "threshold"], "deals": 12, "chunk": 5}
RUNNER = Path(runner.__file__)


# -- the plan, once --------------------------------------------------------------------------
def test_the_plan_has_the_chunks_plan_chunks_yields_in_the_same_order():
    config = load_config(SMALL)
    the_plan = plan.Plan(config)
    specs = list(the_plan.specs())
    assert specs == list(plan.chunks(config))
    assert list(the_plan.planned) == [s.key for s in specs]
    assert the_plan.planned == {s.key: s.games for s in specs}
    assert the_plan.games == sum(s.games for s in specs) == 3 * 12 * 2
    assert the_plan.run_key == plan.run_key(config)
    assert the_plan.engines == {t.id: plan.table_engine(config, t) for t in the_plan.tables}


def test_chunk_keys_are_the_documented_content_hash():
    """Keys worked out once per table hash exactly what they always hashed: old run
    folders are still resumed and reused."""
    config = load_config(SMALL)
    the_plan = plan.Plan(config)
    for table in the_plan.tables:
        for key, (first, stop) in zip(the_plan.keys[table.id], the_plan.ranges, strict=True):
            content = {
                "schema": schema.SCHEMA_VERSION,
                "engine": plan.engine_digest(),
                "rules": config.rules.to_dict(),
                "dice": config.dice,
                "max_turns": config.max_turns,
                "seed": config.seed,
                "table": table.key,
                "seating": plan.design_of(config),
                "entrants": [[e.name, e.key, e.code, e.class_name] for e in table.entrants],
                "deals": [first, stop],
                **plan.limits_of(config),
                "luck": plan.table_luck(config, table),
            }
            digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
            assert key == digest[:32]


def test_keys_are_hashed_once_per_chunk_and_never_when_specs_are_built(monkeypatch):
    calls = []
    real, real_keys = plan.chunk_key, plan.KeyText.keys

    def counting(*args, **kwargs):
        calls.append(args[2:4])
        return real(*args, **kwargs)

    def counting_keys(self, content, ranges):  # a plan keys a table's chunks at once
        calls.extend(ranges)
        return real_keys(self, content, ranges)

    monkeypatch.setattr(plan, "chunk_key", counting)
    monkeypatch.setattr(plan.KeyText, "keys", counting_keys)
    the_plan = plan.Plan(load_config(SMALL))
    assert len(calls) == len(the_plan.planned) == 3 * 3
    calls.clear()
    list(the_plan.specs())
    list(the_plan.specs(lambda key: True))
    the_plan.spec_of(next(iter(the_plan.planned)))
    assert calls == []


def test_the_plan_holds_no_chunk_specs():
    """A million chunks must not mean a million specs in memory: specs are built as they
    are asked for, and nothing of the plan keeps them."""
    gc.collect()
    before = sum(isinstance(o, plan.ChunkSpec) for o in gc.get_objects())
    the_plan = plan.Plan(load_config({**SMALL, "deals": 3000, "chunk": 1}))
    assert len(the_plan.planned) == 9000
    gc.collect()
    assert sum(isinstance(o, plan.ChunkSpec) for o in gc.get_objects()) == before
    first = next(the_plan.specs())
    assert isinstance(first, plan.ChunkSpec)


def test_specs_filter_asks_as_each_chunk_comes_up():
    """The play loop's filter sees chunks stored meanwhile (none is played twice)."""
    the_plan = plan.Plan(load_config(SMALL))
    keys = list(the_plan.planned)
    done: set[str] = set()
    seen = []
    for spec in the_plan.specs(lambda key: key not in done):
        seen.append(spec.key)
        after = keys.index(spec.key) + 1
        done.update(keys[after : after + 1])  # the next one lands meanwhile
    assert seen == keys[::2]


def test_spec_of_a_planned_key_and_of_another():
    the_plan = plan.Plan(load_config(SMALL))
    for spec in the_plan.specs():
        assert the_plan.spec_of(spec.key) == spec
    with pytest.raises(KeyError):
        the_plan.spec_of("0" * 32)


def test_a_refused_native_table_stops_planning_before_any_folder(tmp_path):
    pytest.importorskip("harness._native_core")
    config = {**SMALL, "entrants": ["greedy", "random"], "engine": "native", "move_time": 1.0}
    with pytest.raises(Exception, match="engine: native"):
        run_tournament(config, out=tmp_path, workers=0)
    assert not any(tmp_path.iterdir())


# -- one face for every backend --------------------------------------------------------------
def test_every_backend_shows_the_same_face():
    dask_backend = pytest.importorskip("harness.tourney.backends.dask")
    dask = dask_backend.DaskBackend(address="tcp://127.0.0.1:1")
    for made in (SerialBackend(), ProcessBackend(2), dask):
        assert isinstance(made, Backend)
        assert isinstance(made.describe(), str) and isinstance(made.stats(), BackendStats)
    assert (SerialBackend().describe(), ProcessBackend(1).describe()) == ("in-process", "1 worker")
    assert ProcessBackend(3).describe() == "3 workers"
    assert type(local_backend(0)) is SerialBackend and local_backend(2).workers == 2


def test_process_stats_are_the_lines_run_log_had():
    made = ProcessBackend(2)
    assert made.stats() == BackendStats()  # nothing played: nothing to say
    made.busy, made.waited, made.replaced, made.restarted = 3.0, 1.0, 1, 2
    stats = made.stats()
    assert stats.worker_wait == 0.25
    assert stats.lines == (
        "workers played for 3.0 s and waited 1.000 s for work between chunks (25.00%)",
        "workers started afresh: 1 for tables with other plugins, 2 after a death",
    )


class _Borrowed:
    """A backend the runner has never heard of: it plays in this process."""

    workers = 7

    def __init__(self) -> None:
        self.asked: list[str] = []

    def results(self, specs):
        for spec in specs:
            self.asked.append(spec.key)
            yield None
            yield Done(spec, play_chunk(spec))

    def describe(self) -> str:
        return "a borrowed backend"

    def in_flight(self) -> int:
        return 0

    def stats(self) -> BackendStats:
        return BackendStats(0.5, ("the borrowed backend was here",))


def test_the_runner_plays_through_any_backend(tmp_path, monkeypatch):
    borrowed = _Borrowed()
    monkeypatch.setattr(runner, "_backend", lambda *args: borrowed)
    told: list[str] = []
    run = run_tournament(SMALL, out=tmp_path / "a", echo=told.append)
    assert run.status == "complete" and run.stored == run.planned == 72
    assert run.workers == 7 and run.worker_wait == 0.5
    assert any("a borrowed backend" in line for line in told)
    assert "the borrowed backend was here" in (run.run_dir / "run.log").read_text()
    assert borrowed.asked == list(plan.Plan(load_config(SMALL)).planned)
    monkeypatch.undo()
    serial = run_tournament(SMALL, out=tmp_path / "b", workers=0)
    assert serial.counts == run.counts


def test_a_resumed_run_plays_only_what_is_missing(tmp_path, monkeypatch):
    first = run_tournament(SMALL, out=tmp_path, workers=0)
    manifest = first.run_dir / "manifest.jsonl"
    lines = manifest.read_text().splitlines()
    forgotten = [json.loads(line)["key"] for line in lines[-2:]]
    manifest.write_text("\n".join(lines[:-2]) + "\n")
    borrowed = _Borrowed()
    monkeypatch.setattr(runner, "_backend", lambda *args: borrowed)
    again = run_tournament(SMALL, out=tmp_path)
    planned = plan.Plan(load_config(SMALL)).planned
    assert again.run_dir == first.run_dir and again.status == "complete"
    assert sorted(borrowed.asked) == sorted(forgotten)
    assert again.played == sum(planned[key] for key in forgotten)
    assert again.resumed == again.planned - again.played
    assert again.counts == first.counts


# -- one account of retries ------------------------------------------------------------------
def _spec():
    return next(plan.chunks(load_config(SMALL)))


def test_retries_give_a_chunk_its_attempts_then_fail_it(caplog):
    spec, other = list(plan.chunks(load_config(SMALL)))[:2]
    retries = Retries(3)
    with caplog.at_level(logging.INFO, "harness.tourney"):
        assert retries.attempt(spec) == 1
        assert retries.failed(spec, "boom") is None
        assert retries.failed(other, "bang") is None  # each chunk has its own count
        assert retries.failed(spec, "boom") is None
        assert retries.attempt(spec) == 3
        failed = retries.failed(spec, "boom")
    assert isinstance(failed, Failed) and (failed.spec, failed.reason) == (spec, "boom")
    assert retries.attempt(spec) == 1 and retries.attempt(other) == 2
    text = [r.getMessage() for r in caplog.records]
    assert text.count(f"chunk {spec.describe()} failed: boom; retrying it once") == 2
    assert f"chunk {spec.describe()} failed again: boom; giving up" in text


def test_one_attempt_fails_at_once():
    assert isinstance(Retries(1).failed(_spec(), "x"), Failed)


def test_serial_play_retries_a_chunk_that_raises_once(monkeypatch):
    spec = _spec()
    raised = []

    def flaky(spec, **kwargs):
        if not raised:
            raised.append(1)
            raise RuntimeError("a plugin file edited mid-run")
        return play_chunk(spec, **kwargs)

    monkeypatch.setattr(serial, "play", flaky)  # play_chunk or a group's play_group
    (outcome,) = list(SerialBackend().results([spec]))
    assert isinstance(outcome, Done) and outcome.result.rows == spec.games


def test_serial_play_fails_a_chunk_that_always_raises(monkeypatch):
    spec = _spec()
    tries = []

    def broken(spec, **kwargs):
        tries.append(1)
        raise RuntimeError("always")

    monkeypatch.setattr(serial, "play", broken)
    (outcome,) = list(SerialBackend().results([spec]))
    assert isinstance(outcome, Failed) and outcome.reason == "RuntimeError: always"
    assert len(tries) == base.ATTEMPTS


# -- the runner's shape ----------------------------------------------------------------------
def test_no_function_in_the_runner_is_long():
    tree = ast.parse(RUNNER.read_text())
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.end_lineno - node.lineno + 1 > 85
    ]
    assert long == []


def test_the_runner_never_asks_which_backend_it_has():
    source = RUNNER.read_text()
    assert "ProcessBackend)" not in source and "SerialBackend" not in source
    assert "DaskBackend)" not in source


def test_the_report_does_not_import_the_runner():
    """report -> runner -> results -> report was a circle: the report stays below."""
    code = (
        "import sys, harness.report.api\n"
        "bad = [m for m in sys.modules if m.startswith(('harness.tourney.runner', "
        "'harness.tourney.repair'))]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    api = (Path(runner.__file__).parents[1] / "report" / "api.py").read_text()
    imported = [
        node.module
        for node in ast.walk(ast.parse(api))
        if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert not [m for m in imported if m.startswith("harness.tourney.runner")]


def test_results_import_no_report_when_loaded():
    code = (
        "import sys, harness.results\n"
        "assert not [m for m in sys.modules if m.startswith('harness.report')]\n"
        "assert 'harness.tourney.runner' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_bar_counts_the_rows_of_a_chunk_still_in_play():
    """Workers stream their rows every 0.2 s: a long chunk moves the progress bar before
    it lands (in_flight), and nothing is counted twice once it has landed."""
    config = load_config(
        {"entrants": ["greedy", "simple"], "deals": 1500, "chunk": 1500, "engine": "python"}
    )
    specs = list(plan.chunks(config))
    assert len(specs) == 1 and specs[0].games == 3000
    made = ProcessBackend(1)
    while_playing, landed = [], None
    for outcome in made.results(specs):
        if outcome is None:
            while_playing.append(made.in_flight())
        else:
            landed = outcome
            after = made.in_flight()
    assert isinstance(landed, Done) and landed.result.rows == 3000
    assert any(0 < n < 3000 for n in while_playing), while_playing
    assert while_playing == sorted(while_playing)  # only ever more
    assert after == 0
    assert SerialBackend().in_flight() == 0
