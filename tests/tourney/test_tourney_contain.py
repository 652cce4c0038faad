"""Plugins are user code: contained by the tournament's workers (issue 9, items 3-4, 6-8).

Each guarantee is attacked with a small hostile plugin (tests/fixtures/hostile/workers_*):
one that patches a built-in when imported, ones that exit, kill their own process, raise
KeyboardInterrupt or exceptions that cannot be pickled or printed, flood the output,
raise megabyte messages, keep state across games. A misbehaving plugin is compared with
its twin (the same plugin raising a plain exception at the same point), loaded through
the same file path so that the tables (and their dice) are the same: every row must be
the twin's row but for the error text and kind.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import HANG_GUARD

from harness.runfolder import schema
from harness.runfolder.schema import ERROR_KINDS
from harness.tourney import load_config, plan, run_tournament

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
MISBEHAVE = HOSTILE / "workers_misbehave.py"


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def manifest(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "manifest.jsonl").read_text().splitlines()]


def harness(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(autouse=True)
def greedy_restored(monkeypatch):
    """A plugin imported here (the config is read in this process) may patch Greedy: undo
    it after each test, so that no other test plays a poisoned greedy."""
    from harness.strategies.greedy import Greedy

    monkeypatch.setattr(Greedy, "stop", Greedy.stop)


def as_p(tmp: Path, cls: str) -> dict:
    """Entrant "p": class ``cls`` of the misbehaving plugins, always as ``tmp/p.py:P``."""
    path = tmp / "p.py"
    path.write_text(MISBEHAVE.read_text() + f"\nP = {cls}\n")
    return {"strategy": f"{path}:P", "name": "p"}


def p_config(tmp: Path, cls: str) -> dict:
    return {"name": "p", "entrants": ["greedy", as_p(tmp, cls)], "deals": 8, "chunk": 4}


@pytest.fixture(scope="module")
def pdir(tmp_path_factory) -> Path:
    """Where every test's p.py is: one path, so one table id and the same dice."""
    return tmp_path_factory.mktemp("plugin")


@pytest.fixture(scope="module")
def twin(pdir) -> pd.DataFrame:
    run = run_tournament(p_config(pdir, "Twin"), out=pdir / "out", workers=0)
    df = games_of(run.run_dir)
    assert run.status == "complete" and (df["status"] == "forfeit").sum() >= 3
    return df


def same_but_errors(bad: pd.DataFrame, twin: pd.DataFrame) -> None:
    cols = [c for c in twin.columns if c not in ("error", "error_kind")]
    pd.testing.assert_frame_equal(bad[cols], twin[cols])


# -- item 4: everything a plugin throws is its seat's forfeit --------------------------------
CASES = [
    ("Exits", 2, "raised", "raised SystemExit in pick()"),
    ("Exits", 0, "raised", "raised SystemExit in pick()"),
    ("Underscore", 2, "crash", "its worker process died (exit code 3) in pick()"),
    ("Suicide", 2, "crash", "its worker process died (killed by SIGKILL) in pick()"),
    ("Interrupts", 2, "raised", "raised KeyboardInterrupt in pick()"),
    ("Interrupts", 0, "raised", "raised KeyboardInterrupt in pick()"),
    ("RaisesUnpicklable", 2, "raised", "raised Unpicklable in pick(): cannot be pickled"),
    ("RaisesBadStr", 2, "raised", "raised BadStr in pick(): <unprintable BadStr>"),
    ("RaisesBadStr", 0, "raised", "raised BadStr in pick(): <unprintable BadStr>"),
]


@pytest.mark.parametrize("cls, workers, kind, text", CASES)
@pytest.mark.once
def test_a_misbehaving_plugin_forfeits_its_seat_and_the_run_finishes(
    tmp_path, pdir, twin, cls, workers, kind, text
):
    run = run_tournament(p_config(pdir, cls), out=tmp_path / "out", workers=workers)
    assert run.status == "complete" and run.stored == 16 and not run.failed
    bad = games_of(run.run_dir)
    same_but_errors(bad, twin)  # every other game played and stored, as the twin's
    lost = bad[bad["status"] == "forfeit"]
    assert len(lost) == run.forfeits == (twin["status"] == "forfeit").sum()
    for _, row in lost.iterrows():
        assert row[f"seat{row['error_seat']}_strategy"] == "p"
        assert row["error_kind"] == kind and text in row["error"]
    assert run.forfeit_examples[0]["command"].startswith("harness play ")


def test_a_plugin_keyboard_interrupt_is_no_ctrl_c_in_process(tmp_path):
    from harness.interrupts import user_interrupts

    with user_interrupts():  # as the CLI runs: only a real SIGINT is the user's
        run = run_tournament(p_config(tmp_path, "Interrupts"), out=tmp_path, workers=0)
    assert run.status == "complete" and run.forfeits > 0


def test_a_plugin_that_exits_at_import_is_one_line_exit_2_nothing_written(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(
        f"entrants: [greedy, {HOSTILE / 'workers_import_exit.py'}:Nothing]\ndeals: 2\n"
    )
    done = harness("tourney", str(config), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "workers_import_exit.py" in lines[0]
    assert "SystemExit" in lines[0] and not done.stdout
    assert not (tmp_path / "out").exists()


# -- item 3: a chunk's games depend on its own entrants' code only -----------------------------
def test_a_plugin_that_patches_greedy_changes_no_table_it_does_not_play(tmp_path):
    pair = {"name": "pair", "entrants": ["greedy", "simple"], "deals": 10, "chunk": 5}
    clean = run_tournament(pair, out=tmp_path / "clean", workers=1)
    patcher = {"strategy": f"{HOSTILE / 'workers_patcher.py'}:Patcher", "name": "patcher"}
    mixed_config = {**pair, "name": "mixed", "entrants": ["greedy", "simple", patcher]}
    # One worker plays every table in plan order (by table id), so whether it must be
    # replaced (a patcher table before the clean one) is known in advance.
    mixed = run_tournament(mixed_config, out=tmp_path / "mixed", workers=1)
    assert mixed.status == "complete"
    a, b = games_of(clean.run_dir), games_of(mixed.run_dir)
    table = a["table"].iloc[0]
    pd.testing.assert_frame_equal(a, b[b["table"] == table].reset_index(drop=True))
    code = next(e.code for e in load_config(mixed_config).entrants if e.name == "patcher")
    for entry in manifest(mixed.run_dir):
        assert entry["loaded"] == ([] if entry["table"] == table else [code]), entry["table"]
    order = [t.names for t in plan.tables(load_config(mixed_config))]
    replaced = order.index(["greedy", "simple"]) > 0  # a patcher table came first
    assert ("a fresh worker for table" in (mixed.run_dir / "run.log").read_text()) == replaced


def test_in_process_play_records_the_foreign_code_it_had_loaded(tmp_path):
    patcher = {"strategy": f"{HOSTILE / 'workers_patcher.py'}:Patcher", "name": "patcher"}
    config = {"name": "serial", "entrants": ["greedy", "simple", patcher], "deals": 4}
    run = run_tournament(config, out=tmp_path, workers=0)
    code = next(e.code for e in load_config(config).entrants if e.name == "patcher")
    # In one process the patch reaches greedy v simple too: said, and recorded honestly.
    assert all(code in entry["loaded"] for entry in manifest(run.run_dir))
    log = (run.run_dir / "run.log").read_text()
    assert log.count("workers: 0 plays every table in this one process") == 1


# -- item 6: output is contained and bounded ------------------------------------------------------
@pytest.mark.parametrize("workers", ["1", "0"])
@pytest.mark.once
def test_plugin_output_goes_to_run_log_labelled_never_to_stdout(tmp_path, workers):
    config = tmp_path / "chat.yaml"
    chatty = f"{HOSTILE / 'workers_chatty.py'}:Chatty"
    config.write_text(f"name: chat\nentrants: [greedy, {{strategy: {chatty}, name: chatty}}]\n")
    config.write_text(config.read_text() + "deals: 3\n")
    done = harness(
        "tourney",
        str(config),
        "--out",
        str(tmp_path / "o"),
        "--workers",
        workers,
        "--json",
        "--no-report",
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)  # nothing but the summary on stdout
    assert "hello" not in done.stderr and "raw fd write" not in done.stderr
    log = (Path(summary["run_dir"]) / "run.log").read_text()
    spec = next(plan.chunks(load_config(config)))
    assert f"output of chatty (seat 1), table {spec.table} deal 2 seating 1: hello" in log
    assert "WARNING chatty: chatty warns" in log  # its logging too
    assert log.count("raw fd write") == 6  # and what it writes to file descriptor 1


def test_a_flood_of_output_is_cut_per_chunk(tmp_path):
    flood = {"strategy": f"{HOSTILE / 'workers_chatty.py'}:Flood", "name": "flood"}
    config = {"name": "flood", "entrants": ["greedy", flood], "deals": 6, "chunk": 3}
    run = run_tournament(config, out=tmp_path, workers=1)  # 2 MB a game, 24 MB in all
    log = (run.run_dir / "run.log").read_text()
    assert log.count("output truncated") == 2  # once per chunk
    assert len(log) < 2 * 80_000 + 20_000


@pytest.mark.parametrize("workers", [1, 0])
def test_a_megabyte_exception_message_stays_a_few_kilobytes_everywhere(tmp_path, workers):
    run = run_tournament(p_config(tmp_path, "Huge"), out=tmp_path, workers=workers)
    assert run.status == "complete" and run.forfeits >= 3
    for name in ("manifest.jsonl", "run.json", "run.log"):
        assert (run.run_dir / name).stat().st_size < 60_000, name
    assert games_of(run.run_dir)["error"].dropna().str.len().max() < 2_200


# -- item 7: tracebacks for plugin authors --------------------------------------------------------
def test_game_traceback_shows_the_plugin_frame_and_run_log_has_the_first(tmp_path):
    config = tmp_path / "p.yaml"
    config.write_text(json.dumps(p_config(tmp_path, "Twin")))
    run = run_tournament(config, out=tmp_path / "out", workers=1)
    example = run.forfeit_examples[0]
    game = f"{example['table']}:{example['deal']}:{example['seating']}"
    done = harness("tourney", str(config), "--game", game, "--traceback")
    assert done.returncode == 1, done.stderr
    assert "raised RuntimeError in pick(): plain" in done.stdout
    assert "Traceback (most recent call last)" in done.stderr
    assert "in misbehave" in done.stderr and 'raise RuntimeError("plain")' in done.stderr
    log = (run.run_dir / "run.log").read_text()
    assert log.count("first forfeit of p") == 1 and "in misbehave" in log


# -- item 8: chunking does not change games ------------------------------------------------------
def test_a_stateful_plugin_plays_the_same_games_for_any_chunking(tmp_path, cli, monkeypatch):
    stateful = {"strategy": f"{HOSTILE / 'workers_stateful.py'}:Stateful", "name": "stateful"}
    config = {"name": "state", "entrants": ["greedy", stateful], "deals": 20, "dice": "independent"}
    ten = run_tournament({**config, "chunk": 10}, out=tmp_path / "a", workers=0)
    seven = run_tournament({**config, "chunk": 7}, out=tmp_path / "b", workers=1)
    pd.testing.assert_frame_equal(games_of(ten.run_dir), games_of(seven.run_dir))
    assert ten.forfeits > 0
    example = seven.forfeit_examples[-1]  # a forfeit deep in a chunk: the reproduce command
    monkeypatch.chdir(tmp_path)
    result = cli(*shlex.split(example["command"])[1:], "--json")
    payload = json.loads(result.output)
    assert payload["status"] == "forfeit" and "four ones" in payload["error"]
    assert payload["error"].split(" (")[0] == example["error"].split(" (")[0]  # turn, seat


# -- the stored rows and the exit statuses --------------------------------------------------------
def test_error_kind_is_stored_in_schema_version_2(tmp_path, twin):
    assert schema.SCHEMA_VERSION >= 2 and "error_kind" in schema.columns(2)  # since 2
    assert schema.column_type("error_kind") == "string"
    assert set(twin["error_kind"].dropna()) == {"raised"}
    assert twin.loc[twin["status"] != "forfeit", "error_kind"].isna().all()
    assert set(ERROR_KINDS) == {"rule", "raised", "time", "crash"}


def test_strict_makes_a_finished_run_with_forfeits_exit_3(tmp_path, pdir, cli):
    config = tmp_path / "p.yaml"
    config.write_text(json.dumps(p_config(pdir, "Twin")))
    out = str(tmp_path / "out")
    plain = cli("tourney", str(config), "--out", out, "--workers", "0", "--no-report")
    assert plain.exit_code == 0, plain.output
    strict = cli("tourney", str(config), "--out", out, "--workers", "0", "--strict", "--no-report")
    assert strict.exit_code == 3 and "--strict" in strict.output
    clean = tmp_path / "clean.yaml"
    clean.write_text("entrants: [greedy, random]\ndeals: 2\n")
    ok = cli("tourney", str(clean), "--out", out, "--workers", "0", "--strict", "--no-report")
    assert ok.exit_code == 0, ok.output


# -- the same on Dask: plugin chunks in clean children of the Dask workers -----------------------
@pytest.mark.once
def test_dask_workers_play_plugin_tables_in_clean_children(tmp_path, pdir, twin):
    pytest.importorskip("distributed")
    patcher = {"strategy": f"{HOSTILE / 'workers_patcher.py'}:Patcher", "name": "patcher"}
    entrants = ["greedy", "simple", patcher, as_p(pdir, "Underscore")]
    config = {"name": "dask", "entrants": entrants, "deals": 8, "chunk": 4}
    run = run_tournament(config, out=tmp_path / "dask", workers=2, backend="dask")
    assert run.status == "complete" and run.stored == 6 * 16 and not run.failed
    df = games_of(run.run_dir)
    # The crashing plugin: its seat forfeits, every other game as its twin's.
    bad = df[df["table"] == twin["table"].iloc[0]].reset_index(drop=True)
    # The run's frame holds tables without the account (luck auto: greedy v simple): its
    # account columns are floats with nulls there; this table's rows have every value.
    same_but_errors(bad.astype(twin.dtypes.to_dict()), twin)
    assert set(bad["error_kind"].dropna()) == {"crash"}
    # The patcher reached no table it does not sit at.
    pair = {"name": "pair", "entrants": ["greedy", "simple"], "deals": 8, "chunk": 4}
    clean = games_of(run_tournament(pair, out=tmp_path / "clean", workers=1).run_dir)
    table = clean["table"].iloc[0]
    pd.testing.assert_frame_equal(clean, df[df["table"] == table].reset_index(drop=True))
    for entry in manifest(run.run_dir):
        if entry["table"] == table:
            assert entry["loaded"] == []


def test_a_plugin_that_kills_every_worker_importing_it_fails_its_chunks_only(tmp_path):
    fine = {"strategy": f"{HOSTILE / 'workers_import_kills_worker.py'}:Fine", "name": "fine"}
    config = {"name": "kills", "entrants": ["greedy", "random", fine], "deals": 4}
    started = time.monotonic()
    run = run_tournament(config, out=tmp_path, workers=1)
    assert time.monotonic() - started < HANG_GUARD
    assert run.status == "incomplete" and run.stored == 8  # greedy v random only
    assert len(run.failed) == 2
    assert all(
        "died (exit code 7) each time before it played a game" in f["reason"] for f in run.failed
    )
