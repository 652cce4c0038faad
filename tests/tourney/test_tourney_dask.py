"""The Dask backend (issue 6): the same games as the local backend, bit for bit; plugins
shipped to workers that cannot read their files; workers killed mid-chunk; chunks that
raise; unreachable schedulers; workers with another harness; Ctrl-C, resume and reuse.

Clusters are LocalClusters of 2 one-thread workers (about a second to start on a quiet
machine) and game counts are tiny. Every test checks it leaves no process behind; the
ones that start a cluster also that nothing lands in the temp folder.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import HANG_GUARD, as_at_a_terminal

# not `engine`: what these add (processes, signals, disks) is not the engine's; a chunk
# picks its engine as in test_tourney_run.py, which pass 2 runs
pytestmark = pytest.mark.interpreter

distributed = pytest.importorskip("distributed")

from harness import __version__  # noqa: E402
from harness.errors import HarnessError, PluginError  # noqa: E402
from harness.tourney import load_config, plan, run_tournament  # noqa: E402
from harness.tourney.backends.dask import DaskBackend, DaskError, WorkerMismatch  # noqa: E402
from harness.tourney.backends.dask_worker import Task, play_task  # noqa: E402
from harness.tourney.chunks import play_chunk  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SMALL = {
    "name": "small",
    "entrants": ["greedy", "random", "threshold(target=28)"],
    "deals": 12,
    "chunk": 5,
}

BOT = '''
from harness.strategy import Strategy


class Bot(Strategy):
    """Sets aside the most points; stops at the target."""

    name = "bot"

    def __init__(self, target: int = 27):
        self.target = target

    def pick(self, view):
        return max(view.choices, key=lambda face: view.counts[face] * min(face, 5))

    def stop(self, view):
        return view.total >= self.target
'''

VICTIM = '''
import os
import time

from harness.strategy import Strategy


class Victim(Strategy):
    """Greedy; the first game anywhere writes its pid to the marker and waits to be
    killed (O_EXCL: exactly one game, in one worker, ever does)."""

    name = "victim"

    def __init__(self, marker: str = ""):
        self.marker = marker

    def new_game(self, seat, rules):
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        time.sleep(60)  # killed from outside long before this ends

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 26
'''

BOOM = '''
import os

from harness.strategy import Strategy


class Boom(Strategy):
    """Cannot be built once the marker exists (after the config was checked)."""

    name = "boom"

    def __init__(self, marker: str = ""):
        if marker and os.path.exists(marker):
            raise RuntimeError("boom")

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True
'''

DIES = '''
import os

from harness.strategy import Strategy


class Dies(Strategy):
    """Kills its worker process in every game."""

    name = "dies"

    def new_game(self, seat, rules):
        os._exit(3)

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True
'''


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def digests(run_dir: Path) -> dict[str, str]:
    lines = (run_dir / "manifest.jsonl").read_text().splitlines()
    return {e["key"]: e["sha256"] for e in map(json.loads, lines)}


def assert_same_run(a: Path, b: Path) -> None:
    """Bit for bit: the same rows, the same part files, the same standings."""
    pd.testing.assert_frame_equal(games_of(a), games_of(b))
    assert digests(a) == digests(b)
    assert (a / "summary.csv").read_text() == (b / "summary.csv").read_text()


def children() -> set[int]:
    """This process's live child processes (every thread's), but Python's own resource
    tracker (started once by the first spawned process, it lives as long as we do)."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            found.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:  # a thread that just ended
            continue
    return {pid for pid in found if not _zombie(pid) and not _tracker(pid)}


def _tracker(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        return b"resource_tracker" in cmdline or b"forkserver" in cmdline
    except OSError:
        return False


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


@pytest.fixture(autouse=True)
def leaves_nothing(tmp_path, monkeypatch):
    """Every test: no process left behind, nothing in the temp folder (TMPDIR points at
    an empty folder of the test's own, for this process and the workers it starts)."""
    if not Path("/proc/self/task").exists():  # pragma: no cover - not Linux
        yield
        return
    before = children()
    scratch = tmp_path / "system-tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    yield
    deadline = time.monotonic() + 10
    while children() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not children() - before, "worker processes left running"
    # (but the local backend's fork server's folder: it lives as long as this process)
    left = [p for p in scratch.iterdir() if not p.name.startswith("pymp-")]
    assert not left, "files left in the temp folder"


@pytest.fixture
def cluster(tmp_path):
    """A LocalCluster of the test's own (2 workers), for runs given its address."""
    import dask

    space = tmp_path / "test-cluster"
    space.mkdir()
    with dask.config.set({"temporary-directory": str(space)}):
        local = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # leave port 8787 alone
            local_directory=str(space),
            silence_logs=logging.CRITICAL,
        )
        client = distributed.Client(local, set_as_default=False)
        try:
            yield local, client
        finally:
            client.close()
            local.close()


def plugin_config(tmp_path: Path, source: str, cls: str, **params) -> dict:
    (tmp_path / "plugins").mkdir(exist_ok=True)
    path = tmp_path / "plugins" / f"{cls.lower()}.py"
    path.write_text(source)
    entrant = {"strategy": f"{path}:{cls}", "name": cls.lower()}
    if params:
        entrant["params"] = params
    return {"name": cls.lower(), "entrants": ["greedy", "random", entrant], "deals": 6, "chunk": 3}


# -- the same games ------------------------------------------------------------------------
def test_local_cluster_stores_the_same_games_bit_for_bit(tmp_path):
    local = run_tournament(SMALL, out=tmp_path / "local", workers=2)
    dask = run_tournament(SMALL, out=tmp_path / "dask", workers=2, backend="dask")
    assert local.status == dask.status == "complete"
    assert dask.stored == dask.played == 3 * 12 * 2 and dask.workers == 2
    assert_same_run(local.run_dir, dask.run_dir)
    assert dask.counts == local.counts
    log = (dask.run_dir / "run.log").read_text()
    assert log.count(" dask-worker tcp://") == 9, "one record per chunk, from the workers"
    assert "a local Dask cluster of 2 workers" in log
    assert not (dask.run_dir / ".dask").exists(), "scratch space removed"
    meta = json.loads((dask.run_dir / "run.json").read_text())
    assert meta["status"] == "complete" and meta["summary"]["workers"] == 2


@pytest.mark.once
def test_grouped_chunks_on_dask_are_the_local_chunks_bit_for_bit(tmp_path, monkeypatch):
    """A plan of more tables than CHUNK_CAP (here 12) groups them: a chunk of several
    tables is one task, a plugin's (shipped, in a child) as a built-ins' (in the worker)."""
    import harness.tourney.config.model as model

    monkeypatch.setattr(model, "CHUNK_CAP", 12)
    monkeypatch.setattr(model, "CHUNK_GAMES", 40)
    config = plugin_config(tmp_path, BOT, "Bot", target=26)
    config |= {"players": 3, "deals": 2, "chunk": 2, "name": "grouped"}
    config["entrants"] = [*config["entrants"], "threshold", "worm-first", "simple"]  # 20 tables
    local = run_tournament(config, out=tmp_path / "local", workers=2)
    dask = run_tournament(config, out=tmp_path / "dask", workers=2, backend="dask")
    assert local.status == dask.status == "complete"
    lines = (dask.run_dir / "manifest.jsonl").read_text().splitlines()
    assert len(lines) < 20 and any("tables" in json.loads(line) for line in lines)
    assert_same_run(local.run_dir, dask.run_dir)


@pytest.mark.once
def test_three_players_independent_dice_on_a_scheduler(tmp_path, cluster):
    local_cluster, _ = cluster
    config = {
        **SMALL,
        "players": 3,
        "dice": "independent",
        "entrants": [*SMALL["entrants"], "worm-first"],
    }
    local = run_tournament(config, out=tmp_path / "local", workers=1)
    dask = run_tournament(
        config, out=tmp_path / "dask", backend="dask", address=local_cluster.scheduler_address
    )
    assert dask.status == "complete" and dask.workers == 2
    assert_same_run(local.run_dir, dask.run_dir)


@pytest.mark.once
def test_resume_and_reuse_work_across_backends(tmp_path):
    """Chunks stored by one backend are resumed or reused by the other."""
    pair = {**SMALL, "entrants": ["greedy", "random"]}
    first = run_tournament(pair, out=tmp_path / "out", workers=1)
    grown = run_tournament(SMALL, out=tmp_path / "out", workers=2, backend="dask")
    assert grown.reused == first.stored and grown.played == 2 * 12 * 2
    reference = run_tournament(SMALL, out=tmp_path / "ref", workers=2)
    assert_same_run(reference.run_dir, grown.run_dir)
    again = run_tournament(SMALL, out=tmp_path / "out", backend="dask")
    assert again.run_dir == grown.run_dir and again.played == 0, "nothing left: no cluster"


# -- plugins reach remote workers -------------------------------------------------------------
def _workers_cannot_read_plugin_files() -> None:
    """On a worker: any file plugin load fails, as on a machine without the file."""
    import harness.plugins.references

    def denied(ref: str, where: str):
        raise PluginError(f"strategy {ref!r}: file {where} not found (this worker)")

    # where a strategy reference is resolved: the name its lookup reads
    harness.plugins.references._load_file = denied


@pytest.mark.once
def test_plugin_file_is_shipped_to_workers_that_cannot_read_it(tmp_path, cluster):
    local_cluster, client = cluster
    config = plugin_config(tmp_path, BOT, "Bot", target=26)
    reference = run_tournament(config, out=tmp_path / "local", workers=2)
    client.run(_workers_cannot_read_plugin_files)
    # Without shipping, the workers cannot play it: the simulation holds.
    spec = next(s for s in plan.chunks(load_config(config)) if "bot" in s.describe())
    with pytest.raises(PluginError, match="not found \\(this worker\\)"):
        client.submit(play_chunk, spec, pure=False).result()
    # With it, they play the very same games.
    run = run_tournament(
        config, out=tmp_path / "dask", backend="dask", address=local_cluster.scheduler_address
    )
    assert run.status == "complete", run.failed
    assert_same_run(reference.run_dir, run.run_dir)
    assert set(games_of(run.run_dir)["seat0_strategy"]) == {"greedy", "random", "bot"}


def test_a_shipped_plugin_is_checked_against_the_planned_code(tmp_path):
    """The worker loads the shipped source and checks its digest (EntrantRef.code): a
    file edited after the run was planned fails its chunks, as locally."""
    config = load_config(plugin_config(tmp_path, BOT, "Bot"))
    (tmp_path / "plugins" / "bot.py").write_text(
        BOT.replace("max(view.choices", "min(view.choices")
    )
    backend = DaskBackend(address="tcp://unused:1")
    spec = next(s for s in plan.chunks(config) if "bot" in s.describe())
    task = backend.task(spec)
    assert len(task.shipped) == 1 and task.shipped[0].source.decode().count("min(view.choices")
    reply = play_task(task)
    assert reply.status == "error" and "its code changed since the run was planned" in reply.reason


# -- faults ------------------------------------------------------------------------------------
@pytest.mark.once
def test_a_worker_killed_mid_chunk_is_replaced_and_the_run_ends_correct(tmp_path):
    marker = tmp_path / "victim.pid"
    config = plugin_config(tmp_path, VICTIM, "Victim", marker=str(marker))
    killed: list[int] = []

    def kill_the_victim() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if marker.exists() and marker.read_text():
                pid = int(marker.read_text())
                os.kill(pid, signal.SIGKILL)  # a real kill, mid-chunk
                killed.append(pid)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_the_victim)
    killer.start()
    run = run_tournament(config, out=tmp_path / "dask", workers=2, backend="dask")
    killer.join()
    assert killed and killed[0] != os.getpid(), "a Dask worker process was killed"
    assert not Path(f"/proc/{killed[0]}").exists() or _zombie(killed[0])
    assert run.status == "complete" and run.stored == 3 * 6 * 2 and not run.failed
    reference = run_tournament(config, out=tmp_path / "local", workers=1)  # marker exists now
    assert_same_run(reference.run_dir, run.run_dir)
    log = (run.run_dir / "run.log").read_text()
    assert "its worker process died (killed by SIGKILL)" in log, "the death is in run.log"
    infos = [
        line for line in log.splitlines() if " dask-worker tcp://" in line and " INFO " in line
    ]
    assert len(infos) == 6, "one record per chunk, from the workers"


@pytest.mark.once
def test_a_plugin_that_cannot_be_built_forfeits_its_games(tmp_path):
    marker = tmp_path / "boom-now"
    config = load_config(plugin_config(tmp_path, BOOM, "Boom", marker=str(marker)))
    marker.touch()  # after the config was checked: now only the workers' builds fail
    run = run_tournament(config, out=tmp_path / "out", workers=2, backend="dask")
    assert run.status == "complete" and run.stored == 3 * 6 * 2 and not run.failed
    df = games_of(run.run_dir)
    boom = df[(df["seat0_strategy"] == "boom") | (df["seat1_strategy"] == "boom")]
    assert len(boom) == 24 and (boom["status"] == "forfeit").all()
    assert boom["error"].str.contains("raised RuntimeError in __init__\\(\\): boom").all()
    log = (run.run_dir / "run.log").read_text()
    assert "Traceback (most recent call last)" in log and "RuntimeError: boom" in log


@pytest.mark.once
def test_a_plugin_that_kills_its_process_forfeits_its_games_and_the_run_goes_on(tmp_path):
    config = plugin_config(tmp_path, DIES, "Dies")
    config["players"] = 3  # one table, with dies: every game kills
    config["deals"], config["chunk"] = 2, 2
    run = run_tournament(config, out=tmp_path / "out", workers=2, backend="dask")
    # balanced seating (the default): 3 players, 6 seat orders a deal
    assert run.status == "complete" and run.stored == 2 * 6 and not run.failed
    df = games_of(run.run_dir)
    assert (df["status"] == "forfeit").all() and set(df["error_kind"]) == {"crash"}


# -- the scheduler and the workers ---------------------------------------------------------
@pytest.mark.once
def test_unreachable_scheduler_is_one_line_within_seconds(tmp_path, cli):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "small.yaml"
    config.write_text(json.dumps(SMALL))
    started = time.monotonic()
    result = cli(
        "tourney",
        str(config),
        "--out",
        str(tmp_path / "out"),
        "--address",
        f"tcp://127.0.0.1:{port}",
    )
    assert time.monotonic() - started < HANG_GUARD
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith(f"Error: cannot reach a Dask scheduler at tcp://127.0.0.1:{port}")
    assert "Traceback" not in result.output


def test_malformed_address_is_one_line(tmp_path):
    # Bad input (exit 2, issue 24 item 7), said before any folder is made.
    with pytest.raises(HarnessError, match="--address nonsense: missing port") as caught:
        run_tournament(SMALL, out=tmp_path / "out", backend="dask", address="nonsense")
    assert not isinstance(caught.value, DaskError)
    assert not (tmp_path / "out").exists()


def _pretend_other_version() -> None:
    import harness

    harness.__version__ = "0.0.1"


@pytest.mark.once
def test_worker_with_another_harness_version_is_refused(tmp_path, cluster, cli):
    local_cluster, client = cluster
    client.run(_pretend_other_version)
    address = local_cluster.scheduler_address
    with pytest.raises(WorkerMismatch) as caught:
        run_tournament(SMALL, out=tmp_path / "out", backend="dask", address=address)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("Dask worker tcp://127.0.0.1:")
    assert f"has harness 0.0.1, this machine has {__version__}" in message
    config = tmp_path / "small.yaml"
    config.write_text(json.dumps(SMALL))
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--address", address)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1] == f"Error: {message}"


def test_a_task_on_a_worker_with_other_code_is_refused():
    """Workers that join after the start are checked by their first task."""
    spec = next(plan.chunks(load_config(SMALL)))
    backend = DaskBackend(address="tcp://unused:1")
    task = backend.task(spec)
    assert play_task(task).status == "ok"
    other = Task(task.spec, task.shipped, "9.9.9", task.engine, task.codes)
    reply = play_task(other)
    assert reply.status == "refused" and "has harness " + __version__ in reply.reason
    assert "this machine has 9.9.9" in reply.reason
    code = Task(task.spec, task.shipped, task.version, "0" * 16, task.codes)
    assert "other engine code" in play_task(code).reason
    strategy = Task(task.spec, task.shipped, task.version, task.engine, ("x", *task.codes[1:]))
    reply = play_task(strategy)
    assert reply.status == "refused" and "has other code for strategy" in reply.reason


# -- the command line -----------------------------------------------------------------------
def test_without_dask_installed_the_error_says_how_to_install_it(tmp_path, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    config = tmp_path / "small.yaml"
    config.write_text(json.dumps(SMALL))
    result = cli("tourney", str(config), "--out", str(tmp_path / "out"), "--backend", "dask")
    assert result.exit_code == 1
    assert result.output.strip() == (
        "Error: --backend dask needs Dask distributed, which is not installed: "
        "pip install 'pickomino-harness[dask]'"
    )
    assert not (tmp_path / "out").exists(), "refused before any folder was made"


def test_backend_options_are_checked(tmp_path, cli):
    config = tmp_path / "small.yaml"
    config.write_text(json.dumps(SMALL))
    out = str(tmp_path / "out")
    result = cli(
        "tourney", str(config), "--out", out, "--backend", "local", "--address", "tcp://x:1"
    )
    assert result.exit_code == 2 and "are for the Dask backend" in result.output
    result = cli("tourney", str(config), "--out", out, "--backend", "dask", "--workers", "0")
    assert result.exit_code == 2 and "a local Dask cluster needs 1 or more" in result.output
    result = cli("tourney", str(config), "--out", out, "--backend", "spark")
    assert result.exit_code == 2 and "'spark' is not one of 'local', 'dask'" in result.output


@pytest.mark.once
def test_ctrl_c_stops_the_cluster_cleanly_and_the_run_resumes(tmp_path):
    config = plugin_config(tmp_path, SLOW_SOURCE, "Slow")
    path = tmp_path / "slow.yaml"
    path.write_text(json.dumps({**config, "deals": 24, "chunk": 2}))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "tourney", str(path), "--out", str(out)]
        + ["--backend", "dask", "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group: Ctrl-C reaches the cluster's workers too
        preexec_fn=as_at_a_terminal,
    )
    deadline = time.monotonic() + 60
    manifest = None
    while time.monotonic() < deadline and proc.poll() is None:
        manifest = (
            next((out / "slow").glob("*/manifest.jsonl"), None) if (out / "slow").exists() else None
        )
        if manifest is not None and len(manifest.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    if manifest is None or proc.poll() is not None:
        proc.kill()
        raise AssertionError(f"the run ended before Ctrl-C: {proc.communicate()[1]}")
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Interrupted:" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    run_dir = manifest.parent
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    assert not (run_dir / ".dask").exists()
    resumed = run_tournament(path, out=out, workers=2)  # on the local backend
    assert resumed.run_dir == run_dir and resumed.status == "complete" and resumed.resumed > 0
    reference = run_tournament(path, out=tmp_path / "ref", workers=2)
    assert_same_run(reference.run_dir, run_dir)


SLOW_SOURCE = '''
import time

from harness.strategy import Strategy


class Slow(Strategy):
    """Greedy, after a short nap per game (sleeps, no CPU)."""

    name = "slow"

    def new_game(self, seat, rules):
        time.sleep(0.005)

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= 26
'''
