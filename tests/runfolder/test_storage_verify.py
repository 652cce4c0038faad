"""What is stored is verified (issue 9, items 10-12 and 16): the pieces, one by one.

* A stored chunk is read once and held to its manifest line (size, sha256, the games it
  holds); each way it can be wrong is one line naming it.
* The standings are counted from the verified rows: the same counters the worker counts,
  and the same numbers as summary.csv and report.json.
* Reuse copies the verified bytes (never a hard link) and refuses chunks whose process had
  loaded other strategy code, or that do not say what it had loaded.
* Forfeits are counted by kind in the report; time forfeits apart, machine-dependent.
* A read-only folder and a full disk (small tmpfs mounts; skipped where mount is not
  allowed) are one line each, and nothing half-written is read back as good.

The attacker's view (bit flips everywhere, forged manifests, swapped chunks) is in
tests/runfolder/test_corruption.py.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from run_builders import row, write_run

from harness.game.ranking import add_counts
from harness.report import ReportError, write_report
from harness.report.summaries.aggregate import aggregate
from harness.runfolder.reader import open_run as load_run
from harness.tourney import load_config, plan, run_tournament
from harness.tourney.chunks import play_chunk
from harness.tourney.storage import (
    RUN_FORMAT,
    ChunkDamaged,
    RunFolder,
    StorageError,
    part_summary,
    read_manifest,
    read_part,
)

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
SMALL = {"name": "small", "entrants": ["greedy", "random", "threshold"], "deals": 6, "chunk": 3}

FUMBLER = '''
from harness.strategy import Strategy


class Fumbler(Strategy):
    """Greedy, but raises when it sees three or more ones."""

    name = "fumbler"

    def pick(self, view):
        if view.counts[1] >= 3:
            raise ValueError("too many ones")
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25
'''


def manifest_of(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "manifest.jsonl").read_text().splitlines()]


def write_manifest(run_dir: Path, entries: list[dict]) -> None:
    text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in entries)
    (run_dir / "manifest.jsonl").write_text(text)


# -- a stored chunk, held to its manifest line --------------------------------------------
@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A finished small run (read-only for the tests: they copy what they change)."""
    out = tmp_path_factory.mktemp("stored")
    return run_tournament(SMALL, out=out, workers=1)


def test_every_way_a_chunk_can_differ_from_its_line_is_one_line(stored, tmp_path):
    entry = manifest_of(stored.run_dir)[0]
    good = stored.run_dir / "games" / entry["file"]
    assert read_part(good, entry).num_rows == entry["games"]
    part = tmp_path / entry["file"]
    data = good.read_bytes()

    def damaged(mutated_entry: dict, content: bytes | None) -> str:
        if content is None:
            part.unlink(missing_ok=True)
        else:
            part.write_bytes(content)
        with pytest.raises(ChunkDamaged) as caught:
            read_part(part, mutated_entry)
        text = str(caught.value)
        assert text.startswith(entry["file"] + ": ") and "\n" not in text
        return caught.value.reason

    assert "missing" in damaged(entry, None)
    assert "bytes where the manifest says" in damaged(entry, data[:-1])
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    assert "sha256 differs" in damaged(entry, bytes(flipped))
    assert "no sha256" in damaged({**entry, "sha256": None}, data)
    assert "malformed" in damaged({**entry, "stop": entry["first"]}, data)
    assert "malformed" in damaged({**entry, "games": "6"}, data)
    # a line forged to match another file: the rows must be the deals the line claims
    assert "not deals" in damaged({**entry, "first": 3, "stop": 6}, data)
    assert "not deals" in damaged({**entry, "table": "0" * 12}, data)
    assert "games where the manifest says" in damaged({**entry, "games": 4, "stop": 2}, data)
    # a file that is not Parquet at all, listed with its true digest
    junk = b"PAR1" + b"\x00" * 100
    import hashlib

    forged = {**entry, "bytes": len(junk), "sha256": hashlib.sha256(junk).hexdigest()[:32]}
    assert "not a readable Parquet file" in damaged(forged, junk)


def test_the_standings_counters_are_the_workers_own(tmp_path):
    """Counted from the stored rows, the counters equal what the worker counted while
    playing (chunk_stats), with forfeits and turn-capped games among them."""
    (tmp_path / "fumbler.py").write_text(FUMBLER)
    config = load_config(
        {
            "entrants": ["greedy", str(tmp_path / "fumbler.py") + ":Fumbler"],
            "deals": 40,
            "max_turns": 12,
            "dice": "independent",
        }
    )
    spec = next(plan.chunks(config))
    result = play_chunk(spec)
    folder = RunFolder(tmp_path / "run")
    folder.create()
    try:
        entry = folder.write_chunk(spec, result)
    finally:
        folder.close()
    table = read_part(folder.games_dir / spec.file, entry)
    counted = part_summary(table, 2)
    worker: dict = {}  # in the counters' own type (add_counts converts the worker's)
    add_counts(worker, {e.name: s for e, s in zip(spec.entrants, result.stats, strict=True)})
    assert counted.counters == worker
    assert counted.forfeits == len(result.errors) == entry["forfeits"] > 0
    assert sum(s.capped for s in result.stats) > 0, "some games hit the turn cap"
    assert "stats" not in manifest_of(folder.path)[0], "no counters kept in the manifest"


def test_a_chunk_whose_rows_are_not_its_deals_is_never_stored(tmp_path):
    config = load_config({"entrants": ["greedy", "random"], "deals": 4})
    spec = next(plan.chunks(config))
    result = play_chunk(spec)
    for column in result.games.values():
        column.pop()  # the last game lost
    for seat in result.seats:
        for column in seat.values():
            column.pop()
    folder = RunFolder(tmp_path / "run")
    folder.create()
    try:
        with pytest.raises(StorageError, match="not stored: 7 games where the manifest says 8"):
            folder.write_chunk(spec, result)
    finally:
        folder.close()
    assert not list(folder.games_dir.iterdir()) and not folder.manifest_path.exists()


def test_terminal_standings_summary_csv_and_report_agree(tmp_path):
    (tmp_path / "fumbler.py").write_text(FUMBLER)
    config = {
        "name": "agree",
        "entrants": ["greedy", "random", str(tmp_path / "fumbler.py") + ":Fumbler"],
        "deals": 8,
        "chunk": 3,
        "max_turns": 30,
    }
    run = run_tournament(config, out=tmp_path / "out", workers=1)
    report = write_report(run.run_dir, plots=False).summary
    with open(run.run_dir / "summary.csv", newline="") as f:
        csv_rows = {r["strategy"]: r for r in csv.DictReader(f)}
    from_report = {r["strategy"]: r for r in report["standings"]}
    assert run.forfeits == report["games"]["forfeit"] > 0
    assert sum(r["capped"] for r in run.counts) > 0
    for r in run.counts:
        name = r["strategy"]
        other = from_report[name]
        assert r["games"] == other["games"] == int(csv_rows[name]["games"])
        assert r["win_share"] == pytest.approx(other["win_share"], abs=1e-12)
        assert r["mean_worms"] == pytest.approx(other["worms"], abs=1e-12)
        assert r["mean_rank"] == pytest.approx(other["mean_rank"], abs=1e-12)
        assert float(csv_rows[name]["win_share"]) == pytest.approx(r["win_share"], abs=1e-6)
    run_json = json.loads((run.run_dir / "run.json").read_text())
    assert run_json["run_format"] == RUN_FORMAT == "harness-run/2"
    assert run_json["summary"]["standings"] == run.counts


def test_the_reports_counts_are_the_runners_to_the_unit(tmp_path):
    """The report counts each entrant exactly (integers, not rebuilt from float sums):
    every field of its Counts, forfeits and turn caps included, is the runner's."""
    (tmp_path / "fumbler.py").write_text(FUMBLER)
    config = {
        "name": "exact",
        "entrants": ["greedy", "random", str(tmp_path / "fumbler.py") + ":Fumbler"],
        "deals": 8,
        "chunk": 3,
        "max_turns": 30,
    }
    run = run_tournament(config, out=tmp_path / "out", workers=1)
    folder = RunFolder(run.run_dir)
    folder.load({entry["key"] for entry in read_manifest(folder.manifest_path)[0]})
    counts = aggregate(run.run_dir).entrant_counts()
    assert counts == folder.totals
    assert sum(c.forfeits for c in counts.values()) > 0 < sum(c.capped for c in counts.values())


# -- reuse: a copy of verified bytes, never of poisoned games -------------------------------
def test_a_reused_chunk_is_a_copy_not_a_link(stored, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(stored.run_dir.parent.parent, out)
    source = out / "small" / stored.run_dir.name
    other = run_tournament({**SMALL, "name": "other"}, out=out, workers=1)
    assert other.reused == other.stored == stored.stored and other.played == 0
    for entry in manifest_of(other.run_dir):
        mine = other.run_dir / "games" / entry["file"]
        theirs = source / "games" / entry["file"]
        assert mine.read_bytes() == theirs.read_bytes()
        assert mine.stat().st_nlink == 1 and mine.stat().st_ino != theirs.stat().st_ino
        assert entry["reused_from"] == str(source)
    # damage to the source later changes nothing in the run that reused it
    for part in (source / "games").glob("*.parquet"):
        part.write_bytes(part.read_bytes()[::-1])
    assert write_report(other.run_dir, plots=False).summary["games"]["stored"] == stored.stored


def test_reuse_is_refused_unless_the_line_says_only_own_code_was_loaded(stored, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(stored.run_dir.parent.parent, out)
    source = out / "small" / stored.run_dir.name
    entries = manifest_of(source)
    assert all(e["loaded"] == [] for e in entries), "built-ins only: no user code loaded"
    entries[0]["loaded"] = ["0123456789abcdef"]  # some other plugin's code
    del entries[1]["loaded"]  # an older writer that does not say
    entries[2]["loaded"] = "everything"  # not a list
    write_manifest(source, entries)
    other = run_tournament({**SMALL, "name": "other"}, out=out, workers=1)
    assert other.played == 3 * 6 and other.reused == stored.stored - 3 * 6
    log = (other.run_dir / "run.log").read_text()
    assert "loaded strategy code of other entrants" in log
    assert "does not record which strategy code" in log
    pd.testing.assert_frame_equal(games_sorted(other.run_dir), games_sorted(stored.run_dir))


def games_sorted(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


@pytest.mark.once
def test_a_run_that_loaded_a_patching_plugin_is_not_reused(tmp_path, harness_process):
    """A plugin that patches Greedy on import, played in-process (workers 0), poisons the
    greedy-simple table it does not sit at; a later run without it must play that table
    itself. (Subprocesses: importing the plugin here would poison this test process.)"""
    out = tmp_path / "out"
    patcher = HOSTILE / "storage_patcher.py"
    poisoned = tmp_path / "poisoned.yaml"
    poisoned.write_text(
        f"name: poisoned\nentrants: [greedy, simple, '{patcher}:Patcher']\ndeals: 6\n"
    )
    done = harness_process(
        "tourney", str(poisoned), "--out", str(out), "--workers", "0", "--no-report"
    )
    assert done.returncode == 0, done.stderr
    clean = {"name": "clean", "entrants": ["greedy", "simple"], "deals": 6}
    again = run_tournament(clean, out=out, workers=1)
    assert again.reused == 0 and again.played == 12
    reference = run_tournament(clean, out=tmp_path / "ref", workers=1)
    pd.testing.assert_frame_equal(games_sorted(again.run_dir), games_sorted(reference.run_dir))
    assert "loaded strategy code of other entrants" in (again.run_dir / "run.log").read_text()


def test_folders_of_the_previous_format_are_never_resumed_or_reused(stored, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(stored.run_dir.parent.parent, out)
    old = out / "small" / stored.run_dir.name
    meta = json.loads((old / "run.json").read_text())
    meta["run_format"] = "harness-run/1"
    (old / "run.json").write_text(json.dumps(meta))
    with pytest.raises(StorageError, match=r"harness-run/1.*--fresh"):
        run_tournament(SMALL, out=out, workers=1)
    other = run_tournament({**SMALL, "name": "other"}, out=out, workers=1)
    assert other.reused == 0 and other.played == stored.stored


# -- the report: verified parts, forfeits by kind -----------------------------------------
def test_time_forfeits_are_counted_apart_as_machine_dependent(tmp_path):
    rows = []
    for deal in range(6):
        for rot in range(2):
            seats = [["a", "b"][rot], ["b", "a"][rot]]
            game = row("t", deal, rot, seats, [5, 3])
            if deal < 3 and rot == 0:
                game.update(status="forfeit", error="turn 2, seat 0 (a) took 3 s", error_seat=0)
                game["error_kind"] = "time" if deal < 2 else "raised"
            rows.append(game)
    summary = write_report(write_run(tmp_path / "r", rows), plots=False).summary
    kinds = summary["forfeit_kinds"]
    assert kinds["total"] == 3 and kinds["machine_dependent"] == 2
    assert [(k["kind"], k["games"]) for k in kinds["by_kind"]] == [("raised", 1), ("time", 2)]
    assert kinds["by_strategy"] == {"a": {"raised": 1, "time": 2}}
    assert any("time limit" in m and "machine" in m for m in summary["messages"])
    md = (tmp_path / "r" / "report.md").read_text()
    assert "time (machine-dependent)" in md and "2 of them on time: machine-dependent" in md
    # a run stored before error_kind existed: its forfeits' kind is unknown, no time claim
    old = tmp_path / "old"
    write_run(old, rows)
    part = old / "games" / "part-00000.parquet"
    pd.read_parquet(part).drop(columns=["error_kind"]).to_parquet(part)
    kinds = write_report(old, plots=False).summary["forfeit_kinds"]
    assert kinds["by_kind"][0]["kind"] == "unknown" and kinds["machine_dependent"] == 0


def test_a_bit_flip_in_a_parquet_footer_is_one_line(tmp_path):
    """In a folder without a manifest too (nothing to check the digest against)."""
    run = write_run(tmp_path / "r", [row("t", 0, r, ["a", "b"], [3, 1]) for r in range(2)])
    part = run / "games" / "part-00000.parquet"
    data = bytearray(part.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    for offset in range(len(data) - 8 - footer, len(data) - 8, max(1, footer // 25)):
        flipped = bytearray(data)
        flipped[offset] ^= 0x80
        part.write_bytes(bytes(flipped))
        try:
            write_report(run, plots=False)
        except ReportError as exc:
            assert "part-00000.parquet" in str(exc) and "\n" not in str(exc)
        # or the flip hit a byte the reader does not need: then the report is written


def test_report_of_a_damaged_chunk_names_it_and_the_repair(stored, tmp_path, cli):
    run_dir = tmp_path / "run"
    shutil.copytree(stored.run_dir, run_dir)
    meta = json.loads((run_dir / "run.json").read_text())
    entry = manifest_of(run_dir)[1]
    part = run_dir / "games" / entry["file"]
    part.write_bytes(part.read_bytes()[:-1] + b"\x00")
    result = cli("report", str(run_dir))
    assert result.exit_code == 2 and "Traceback" not in result.output
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and line.startswith("Error:")
    assert f"games/{entry['file']}: its sha256 differs" in line and "--repair" in line
    info = load_run(run_dir, check=False)
    assert len(info.problems) == 1 and len(info.parts) == len(manifest_of(run_dir)) - 1
    assert meta["status"] == "complete"


# -- the end of a run: nothing damaged meanwhile is called complete -------------------------
def test_a_chunk_damaged_while_the_run_goes_on_leaves_it_incomplete(tmp_path, monkeypatch):
    real = RunFolder.write_chunk
    calls = []

    def write_then_damage(self, spec, result):
        entry = real(self, spec, result)
        calls.append(entry["file"])
        if len(calls) == 2:  # the first chunk rots on disk after it was stored
            first = self.games_dir / calls[0]
            first.write_bytes(first.read_bytes()[::-1])
        return entry

    monkeypatch.setattr(RunFolder, "write_chunk", write_then_damage)
    run = run_tournament(SMALL, out=tmp_path, workers=1)
    assert run.status == "incomplete"
    assert not (run.run_dir / "summary.csv").exists()
    assert "changed on disk while the run went on" in (run.run_dir / "run.log").read_text()
    monkeypatch.setattr(RunFolder, "write_chunk", real)
    again = run_tournament(SMALL, out=tmp_path, workers=1)
    assert again.status == "complete" and again.played == 6 and again.run_dir == run.run_dir


# -- a read-only folder, a full disk: one line each, nothing half-written -----------------
@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    path.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            check=True,
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        pytest.skip("cannot mount a tmpfs here (needs root and mount rights)")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=10)


def remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True, timeout=10)


def one_line_error(result) -> str:
    """The one error line (notes such as "Playing N games ..." may come before it)."""
    text = result.output.strip()
    errors = [line for line in text.splitlines() if line.startswith("Error:")]
    assert "Traceback" not in text and len(errors) == 1, text
    assert text.endswith(errors[0]), text
    return errors[0]


def test_read_only_results_folder_is_one_line_for_tourney_and_report(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text("name: ro\nentrants: [greedy, random]\ndeals: 4\nworkers: 0\n")
    with tmpfs(tmp_path / "mnt", "8m") as mnt:
        done = cli("tourney", str(config), "--out", str(mnt), "--no-report")
        assert done.exit_code == 0, done.output
        run_dir = next((mnt / "ro").iterdir())
        before = {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()}
        remount(mnt, "ro")
        try:
            result = cli("report", str(run_dir), "--no-plots")
            assert result.exit_code == 1
            assert "the file system is read-only" in one_line_error(result)
            # an --out that cannot be written in is the user's to fix: exit 2, before any
            # game (docs/trust.md)
            result = cli("tourney", str(config), "--out", str(mnt), "--fresh")
            assert result.exit_code == 2
            assert "the file system is read-only" in one_line_error(result)
        finally:
            remount(mnt, "rw")
        assert {p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file()} == before


def test_full_disk_is_one_line_and_what_is_stored_verifies(tmp_path, cli):
    config = tmp_path / "c.yaml"
    config.write_text(
        "name: full\nentrants: [greedy, random, threshold, simple]\ndeals: 40\nchunk: 10\n"
        "workers: 0\n"
    )
    reference = run_tournament(config, out=tmp_path / "ref", workers=1)
    with tmpfs(tmp_path / "mnt", "64k") as mnt:
        result = cli("tourney", str(config), "--out", str(mnt), "--no-report")
        assert result.exit_code == 1
        assert "the disk is full" in one_line_error(result)
        run_dir = next((mnt / "full").iterdir())
        # The disk may fill in the middle of a manifest line: a torn last line, which is
        # not a listing (read_manifest drops it, as resume does).
        listed, _ = read_manifest(run_dir / "manifest.jsonl")
        assert 0 < len(listed) < 24, "the disk filled mid-run"
        for entry in listed:  # what is listed is whole and verifies
            read_part(run_dir / "games" / entry["file"], entry)
        remount(mnt, "size=8m")
        again = cli("tourney", str(config), "--out", str(mnt), "--json", "--no-report")
        assert again.exit_code == 0, again.output
        assert json.loads(again.output)["resumed"] == sum(e["games"] for e in listed)
        pd.testing.assert_frame_equal(games_sorted(run_dir), games_sorted(reference.run_dir))
        # the report on a full disk: one line, and no report file half-written
        filler = mnt / "filler"
        # Unbuffered: a buffered file would flush its tail at close, outside the suppress.
        with open(filler, "wb", buffering=0) as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 65536)
        result = cli("report", str(run_dir), "--no-plots")
        assert result.exit_code == 1 and "the disk is full" in one_line_error(result)
        assert not (run_dir / "report.json").exists()
        assert not [p for p in run_dir.iterdir() if p.name.startswith(".report")]
        os.unlink(filler)
