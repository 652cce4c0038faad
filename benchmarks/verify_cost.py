"""What verifying stored chunks costs: sha256 and row checks over a million games' chunks.

    python benchmarks/verify_cost.py [--games 1000000] [--repeats 5] [--tables 3]

``harness tourney`` (resume, reuse, the last look before "complete") and ``harness
report`` verify every stored chunk against its manifest line. This
measures that cost on a run folder of about a million games, in CPU seconds (this
process, time.process_time) and wall seconds, medians of ``--repeats``:

* stat only: the size check of the version before (what verification replaces);
* sha256: read every chunk and hash it (the last look before a run says "complete",
  :meth:`RunFolder.recheck`);
* report: size, sha256 and the rows' table/deal/seating columns of every chunk, as
  ``harness report`` checks them (:func:`read_part` with no other columns);
* resume: all of that plus the standings counted from the rows, as a resume does for
  every chunk it keeps (:meth:`RunFolder.load`).

The folder is synthesised, not played (a real million-game run takes ~5 minutes on 2
cores): ``--tables`` tables of 2-player duplicate-dice chunks of 1,200 games (the
default chunk size) are played once, as ``configs/million.yaml`` plays them, and copied
under new names with matching manifest lines until the folder holds ``--games`` games.
The chunks are real, so their size and content are what a real run stores; files are
read from the page cache (just written), so the figures are CPU cost, not disk reads.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk
from harness.tourney.storage import (
    GAMES,
    MANIFEST,
    RunFolder,
    chunk_entry,
    digest_of,
    part_summary,
    read_part,
    to_arrow,
)

ENTRANTS = ["greedy", "simple", "tactician", "env-heuristic", "worm-first", "threshold"]


def real_chunks(tables: int) -> list[tuple[dict, bytes]]:
    """(manifest line, Parquet bytes) of one 1,200-game chunk of each of ``tables`` tables."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = ENTRANTS[: max(2, tables + 1)]
    config = load_config(
        {"entrants": names, "deals": 600, "seed": 2024, "players": 2, "dice": "duplicate"}
    )
    out = []
    for spec in list(plan.chunks(config))[:tables]:
        result = play_chunk(spec)
        sink = pa.BufferOutputStream()
        pq.write_table(to_arrow(spec, result), sink, compression="zstd")
        data = sink.getvalue().to_pybytes()
        out.append((chunk_entry(spec, result, len(data), digest_of(data)), data))
    return out


def synthesise(folder: Path, chunks: list[tuple[dict, bytes]], games: int) -> list[dict]:
    """A run folder of copies of ``chunks`` (new names, matching lines) holding ``games``."""
    (folder / GAMES).mkdir(parents=True)
    entries = []
    i = 0
    while sum(e["games"] for e in entries) < games:
        entry, data = chunks[i % len(chunks)]
        name = f"{entry['table']}-copy{i:06d}.parquet"
        (folder / GAMES / name).write_bytes(data)
        key = hashlib.sha256(f"{entry['key']}/{i}".encode()).hexdigest()[:32]
        entries.append({**entry, "key": key, "file": name})
        i += 1
    (folder / MANIFEST).write_text("".join(json.dumps(e) + "\n" for e in entries))
    return entries


def timed(fn) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tables", type=int, default=3, help="distinct real chunks to copy")
    args = parser.parse_args()

    chunks = real_chunks(args.tables)
    with tempfile.TemporaryDirectory(prefix="verify-cost-") as tmp:
        folder = Path(tmp) / "run"
        entries = synthesise(folder, chunks, args.games)
        games = sum(e["games"] for e in entries)
        megabytes = sum(e["bytes"] for e in entries) / 1e6
        games_dir = folder / GAMES
        planned = {e["key"] for e in entries}

        def stat_only() -> None:
            for e in entries:
                assert (games_dir / e["file"]).stat().st_size == e["bytes"]

        def sha256_only() -> None:
            for e in entries:
                assert digest_of((games_dir / e["file"]).read_bytes()) == e["sha256"]

        def report_check() -> None:
            for e in entries:
                read_part(games_dir / e["file"], e, columns=[])

        def resume_check() -> None:
            run = RunFolder(folder)
            run.load(planned)
            assert len(run.entries) == len(entries) and not run.damaged

        def resume_by_parts() -> None:  # the same, without the folder's bookkeeping
            for e in entries:
                part_summary(read_part(games_dir / e["file"], e), 2)

        cases = {
            "stat only (before)": stat_only,
            "sha256": sha256_only,
            "report (sha256 + rows)": report_check,
            "resume (sha256 + rows + counts)": resume_check,
            "  of which per chunk": resume_by_parts,
        }
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.repeats):  # interleaved: a busy moment hits every case alike
            for name, fn in cases.items():
                results[name].append(timed(fn))

        data = os.urandom(64 << 20)
        cpu, _ = timed(lambda: hashlib.sha256(data).digest())
        rate = 64 * (1 << 20) / 1e6 / cpu

    print(
        f"{games:,} games in {len(entries)} chunks of 1,200 games ({megabytes:.1f} MB of "
        f"Parquet, {megabytes / len(entries) * 1000:.0f} kB a chunk); {args.repeats} repeats, "
        f"medians; page cache warm"
    )
    print(f"{'check':<34} {'CPU s':>8} {'wall s':>8} {'CPU s per million games':>24}")
    for name, runs in results.items():
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{name:<34} {cpu:>8.3f} {wall:>8.3f} {cpu * 1e6 / games:>24.3f}")
    print(f"sha256 alone on this CPU: {rate:,.0f} MB/s (hashlib, 64 MB in memory)")


if __name__ == "__main__":
    main()
