"""Stored results corrupted the way an attacker (or a failing disk) would: nothing changes
silently (issue 9, items 10-12).

Every damage below is made to a finished run folder; each time, resume plays the damaged
chunk again (and the games equal an undamaged run's), ``harness report`` refuses in one
line naming the chunk, or ``harness report --repair`` plays it again; and the terminal
standings, summary.csv and report.json agree. The damage: single-bit flips that keep the
size, at positions spread over a whole chunk (header, pages, footer); a chunk replaced by
another valid chunk of the same table (with the manifest forged to match); counters in
the manifest edited; a truncated chunk; manifest lines relabelled or repeated; and a
hard-linked source damaged after reuse.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from harness.report import write_report
from harness.runfolder.reader import DamagedRun
from harness.runfolder.reader import open_run as load_run
from harness.tourney import run_tournament

pytestmark = pytest.mark.engine

CONFIG = {"name": "c", "entrants": ["greedy", "random", "threshold"], "deals": 6, "chunk": 3}
PER_CHUNK = 3 * 2  # deals x rotations


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An undamaged finished run, with its report (read-only: tests copy it)."""
    run = run_tournament(CONFIG, out=tmp_path_factory.mktemp("ref"), workers=1)
    write_report(run.run_dir, plots=False)
    return run


@pytest.fixture
def copy(reference, tmp_path):
    """A copy of the reference's results root (same run folder name); returns its run."""
    out = tmp_path / "out"
    shutil.copytree(reference.run_dir.parent.parent, out)
    return out / CONFIG["name"] / reference.run_dir.name


def games(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def manifest(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "manifest.jsonl").read_text().splitlines()]


def write_manifest(run_dir: Path, entries: list[dict]) -> None:
    text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in entries)
    (run_dir / "manifest.jsonl").write_text(text)


def summary_csv(run_dir: Path) -> list[dict]:
    with open(run_dir / "summary.csv", newline="") as f:
        return list(csv.DictReader(f))


def refused(run_dir: Path, file: str) -> str:
    """The report refuses in one line naming ``file`` (and how to repair)."""
    with pytest.raises(DamagedRun) as caught:
        load_run(run_dir)
    text = str(caught.value)
    assert f"games/{file}" in text and "--repair" in text and "\n" not in text
    return text


def resumed_as_reference(run_dir: Path, reference, replayed_games: int) -> None:
    """Resume plays exactly the damaged games again, and the run equals the reference."""
    again = run_tournament(CONFIG, out=run_dir.parent.parent, workers=1)
    assert again.run_dir == run_dir and again.status == "complete"
    assert again.played == replayed_games
    pd.testing.assert_frame_equal(games(run_dir), games(reference.run_dir))
    assert again.counts == reference.counts
    assert summary_csv(run_dir) == summary_csv(reference.run_dir)
    report = write_report(run_dir, plots=False).summary
    assert (
        report["standings"]
        == json.loads((reference.run_dir / "report.json").read_text())["standings"]
    )


def flip(path: Path, offset: int, bit: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


# -- single-bit flips, same size ------------------------------------------------------------
@pytest.mark.once
def test_a_bit_flip_anywhere_in_a_chunk_is_refused_by_the_report(copy):
    entry = manifest(copy)[2]
    part = copy / "games" / entry["file"]
    good = part.read_bytes()
    size = len(good)
    positions = sorted({*range(0, size, max(1, size // 150)), *range(size - 12, size)})
    assert len(positions) > 150  # header (PAR1), pages, footer and its length, trailer
    for i, offset in enumerate(positions):
        flip(part, offset, bit=i % 8)
        assert part.stat().st_size == size
        refused(copy, entry["file"])
        part.write_bytes(good)
    assert load_run(copy).parts  # restored: verifies again


@pytest.mark.parametrize("where", ["header", "middle", "footer", "last"])
def test_resume_plays_a_flipped_chunk_again(copy, reference, where):
    entry = manifest(copy)[1]
    part = copy / "games" / entry["file"]
    size = part.stat().st_size
    offset = {"header": 1, "middle": size // 2, "footer": size - 20, "last": size - 1}[where]
    flip(part, offset, bit=3)
    refused(copy, entry["file"])
    resumed_as_reference(copy, reference, replayed_games=PER_CHUNK)
    assert "its sha256 differs" in (copy / "run.log").read_text()


@pytest.mark.once
def test_a_garbled_complete_run_is_never_left_without_a_report(copy, reference, cli):
    """Same-size garbage in a chunk of a complete run: running the same command again
    replays it and writes the report (before: "complete" forever, no report)."""
    entry = manifest(copy)[0]
    part = copy / "games" / entry["file"]
    part.write_bytes(os.urandom(part.stat().st_size))
    config = copy.parent.parent / "c.yaml"
    config.write_text(
        "name: c\nentrants: [greedy, random, threshold]\ndeals: 6\nchunk: 3\nworkers: 0\n"
    )
    result = cli("tourney", str(config), "--out", str(copy.parent.parent), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["run_dir"] == str(copy) and summary["played"] == PER_CHUNK
    assert summary["report"] and Path(summary["report"]).exists()
    pd.testing.assert_frame_equal(games(copy), games(reference.run_dir))


# -- a valid chunk in the wrong place, a truncated one --------------------------------------
def test_a_chunk_replaced_by_another_of_the_same_table_is_caught(copy, reference):
    """Deals 3-5 copied over deals 0-2 of one table, the manifest forged to match its size
    and sha256: the rows are not the deals the line claims."""
    entries = manifest(copy)
    first = next(e for e in entries if e["first"] == 0)
    second = next(e for e in entries if e["table"] == first["table"] and e["first"] == 3)
    data = (copy / "games" / second["file"]).read_bytes()
    (copy / "games" / first["file"]).write_bytes(data)
    first.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest()[:32])
    write_manifest(copy, entries)
    assert "its rows are not deals 0-2" in refused(copy, first["file"])
    resumed_as_reference(copy, reference, replayed_games=PER_CHUNK)


def test_a_truncated_chunk_is_caught(copy, reference):
    entry = manifest(copy)[3]
    part = copy / "games" / entry["file"]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 3])
    assert "bytes where the manifest says" in refused(copy, entry["file"])
    resumed_as_reference(copy, reference, replayed_games=PER_CHUNK)


def test_a_missing_chunk_of_a_complete_run_is_caught(copy, reference):
    entries = manifest(copy)
    (copy / "games" / entries[4]["file"]).unlink()
    assert "listed in the manifest but missing" in refused(copy, entries[4]["file"])
    write_manifest(copy, entries[:4] + entries[5:])  # and its line gone too
    with pytest.raises(DamagedRun, match="says complete but no stored chunk holds deal"):
        load_run(copy)
    resumed_as_reference(copy, reference, replayed_games=PER_CHUNK)


# -- the manifest edited --------------------------------------------------------------------
def test_counters_edited_in_the_manifest_change_nothing(copy, reference):
    """The manifest holds no standings counters; ones added by hand (as older versions
    had: +10 wins), or forfeit counts and examples, are never read."""
    entries = manifest(copy)
    for entry in entries:
        entry["stats"] = {"greedy": {"games": 1, "wins": 10, "shared": [0, 0, 0], "worms": 99}}
        entry["forfeits"] = 7
        entry["forfeit_examples"] = [{"deal": 0, "seating": 0, "seat": 0, "error": "forged"}]
    write_manifest(copy, entries)
    report = load_run(copy)  # verifies: these fields are not what a chunk is checked by
    assert len(report.parts) == len(entries)
    again = run_tournament(CONFIG, out=copy.parent.parent, workers=1)
    assert again.played == 0 and again.reused == 0
    assert again.counts == reference.counts
    assert again.forfeits == 0 and again.forfeit_examples == []
    assert summary_csv(copy) == summary_csv(reference.run_dir)
    summary = write_report(copy, plots=False).summary
    by_name = {r["strategy"]: r for r in summary["standings"]}
    for r in again.counts:
        assert r["games"] == by_name[r["strategy"]]["games"]
        assert r["win_share"] == pytest.approx(by_name[r["strategy"]]["win_share"], abs=1e-12)


def test_a_games_count_edited_in_the_manifest_is_caught(copy, reference):
    entries = manifest(copy)
    entries[2]["games"] += 2
    entries[2]["stop"] += 1
    write_manifest(copy, entries)
    assert "games where the manifest says" in refused(copy, entries[2]["file"])
    resumed_as_reference(copy, reference, replayed_games=PER_CHUNK)


def test_manifest_lines_relabelled_with_each_others_keys_are_played_again(copy, reference):
    entries = manifest(copy)
    entries[0]["key"], entries[1]["key"] = entries[1]["key"], entries[0]["key"]
    write_manifest(copy, entries)
    resumed_as_reference(copy, reference, replayed_games=2 * PER_CHUNK)
    assert "does not describe the chunk its key names" in (copy / "run.log").read_text()


def test_a_chunk_listed_twice_under_two_names_is_caught(copy, reference):
    entries = manifest(copy)
    twin = dict(entries[0], file="f" * 12 + "-000000000.parquet")
    shutil.copy(copy / "games" / entries[0]["file"], copy / "games" / twin["file"])
    write_manifest(copy, [*entries, twin])
    with pytest.raises(DamagedRun, match="overlap"):
        load_run(copy)
    resumed_as_reference(copy, reference, replayed_games=0)  # the twin line is dropped


# -- --repair -------------------------------------------------------------------------------
def test_report_repair_plays_the_damaged_chunks_again(copy, reference, cli, monkeypatch):
    entries = manifest(copy)
    flip(copy / "games" / entries[0]["file"], 100)
    (copy / "games" / entries[5]["file"]).write_bytes(b"")
    result = cli("report", str(copy), "--no-plots")
    assert result.exit_code == 2 and "--repair" in result.output
    assert len(result.output.strip().splitlines()) == 1
    monkeypatch.chdir(copy.parent.parent)  # anywhere: the run's config is in run.json
    result = cli("report", str(copy), "--no-plots", "--repair")
    assert result.exit_code == 0, result.output
    pd.testing.assert_frame_equal(games(copy), games(reference.run_dir))
    summary = json.loads((copy / "report.json").read_text())
    expected = json.loads((reference.run_dir / "report.json").read_text())
    assert summary["standings"] == expected["standings"]
    assert summary_csv(copy) == summary_csv(reference.run_dir)
    result = cli("report", str(copy), "--no-plots", "--repair")
    assert result.exit_code == 0 and "Nothing to repair" in result.output


def test_repair_refuses_when_the_config_no_longer_plans_the_same_run(copy, cli):
    meta = json.loads((copy / "run.json").read_text())
    meta["seed"] = 99  # as if the run had been played with another seed
    (copy / "run.json").write_text(json.dumps(meta))
    flip(copy / "games" / manifest(copy)[0]["file"], 50)
    before = sorted(p.name for p in (copy / "games").iterdir())
    result = cli("report", str(copy), "--no-plots", "--repair")
    assert result.exit_code == 2 and "cannot repair" in result.output
    assert sorted(p.name for p in (copy / "games").iterdir()) == before


# -- reuse: a damaged source, a legacy hard link --------------------------------------------
def test_damage_to_a_reused_source_changes_nothing_in_the_run_that_reused_it(copy, reference):
    root = copy.parent.parent
    other = run_tournament({**CONFIG, "name": "other"}, out=root, workers=1)
    assert other.reused == reference.stored
    for part in (copy / "games").glob("*.parquet"):  # every source chunk damaged
        flip(part, part.stat().st_size // 2)
    assert len(load_run(other.run_dir).parts) == len(manifest(other.run_dir))
    again = run_tournament({**CONFIG, "name": "other"}, out=root, workers=1)
    assert again.played == 0 and again.counts == reference.counts
    # a third run reuses the intact copies, never the damaged sources
    third = run_tournament({**CONFIG, "name": "third"}, out=root, workers=1)
    assert third.reused == reference.stored and third.played == 0
    pd.testing.assert_frame_equal(games(third.run_dir), games(reference.run_dir))
    assert all(e["reused_from"] == str(other.run_dir) for e in manifest(third.run_dir))


def test_a_hard_link_left_by_an_older_version_is_caught_when_its_source_is_damaged(copy, reference):
    root = copy.parent.parent
    other = run_tournament({**CONFIG, "name": "other"}, out=root, workers=1)
    entry = manifest(other.run_dir)[0]
    mine = other.run_dir / "games" / entry["file"]
    mine.unlink()
    os.link(copy / "games" / entry["file"], mine)  # reuse as the old version did it
    flip(copy / "games" / entry["file"], 10)  # damage to the source reaches the link
    refused(other.run_dir, entry["file"])
    again = run_tournament({**CONFIG, "name": "other"}, out=root, workers=1)
    assert again.played == PER_CHUNK and mine.stat().st_nlink == 1
    pd.testing.assert_frame_equal(games(other.run_dir), games(reference.run_dir))


@pytest.mark.parametrize("other", [{"seed": 2}, {"max_turns": 900}, {"rules": "french"}])
@pytest.mark.once
def test_a_key_copied_into_another_runs_manifest_is_not_reused(tmp_path, other):
    """Another run with the same entrants names its chunks alike; a manifest line's key
    is only its claim: the run's own settings and the rows' seeds must agree too."""
    root = tmp_path / "out"
    wanted = run_tournament({**CONFIG, "name": "a"}, out=root, workers=1)
    keys = {(e["table"], e["first"]): e["key"] for e in manifest(wanted.run_dir)}
    reference = games(wanted.run_dir)
    shutil.rmtree(wanted.run_dir)
    impostor = run_tournament({**CONFIG, **other, "name": "b"}, out=root, workers=1)
    forged = [{**e, "key": keys[e["table"], e["first"]]} for e in manifest(impostor.run_dir)]
    write_manifest(impostor.run_dir, forged)
    again = run_tournament({**CONFIG, "name": "a"}, out=root, workers=1)
    assert again.reused == 0 and again.played == again.stored
    pd.testing.assert_frame_equal(games(again.run_dir), reference)
