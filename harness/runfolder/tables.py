"""A run's list of tables: in ``run.json``, or in a file of its own for a big plan.

``run.json``'s ``tables`` lists every table (its id, its entrants by name in table
order, the engine that plays it and whether it keeps the luck account). A plan of more
tables than ``CHUNK_CAP`` (a 4-player sweep of 64 values: 635,376 tables, a 187 MB
run.json written twice a run) keeps that list in ``tables.parquet`` beside it instead
(:data:`TABLES_FILE`: one row per table, a few MB), and ``run.json``'s ``tables`` says
where and how to check it: ``{"file": "tables.parquet", "count": N, "bytes": B,
"sha256": D}``. :func:`table_rows` reads either form, the file verified against that.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.runfolder.layout import StorageError, atomic_write
from harness.runfolder.manifest import DIGEST_CHARS, digest_of

TABLES_FILE = "tables.parquet"

TableRow = tuple[str, list[str], bool | None]
"""(table id, its entrants' names in table order, whether it keeps the luck account)."""


class TablesDamaged(StorageError):
    """A run's tables file is missing, changed or unreadable (one line)."""


def tables_bytes(rows: Iterable[tuple[str, list[str], str, bool]]) -> bytes:
    """The tables file of (id, entrant names, engine, luck) rows, as bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids, names, engines, luck = [], [], [], []
    for table, entrants, engine, keeps in rows:
        ids.append(table)
        names.append(list(entrants))
        engines.append(engine)
        luck.append(bool(keeps))
    data = pa.table(
        {
            "id": pa.array(ids, pa.string()),
            "entrants": pa.array(names, pa.list_(pa.string())),
            "engine": pa.array(engines, pa.string()).dictionary_encode(),
            "luck": pa.array(luck, pa.bool_()),
        }
    )
    sink = pa.BufferOutputStream()
    pq.write_table(data, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def write_tables(folder: Path, data: bytes) -> dict[str, Any]:
    """Write the tables file (whole or not at all); what run.json's ``tables`` says of it."""
    atomic_write(folder / TABLES_FILE, data, doing="write the table list")
    return stub(data)


def stub(data: bytes) -> dict[str, Any]:
    """run.json's ``tables`` for a tables file of these bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    count = pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
    return {"file": TABLES_FILE, "count": count, "bytes": len(data), "sha256": digest_of(data)}


def in_file(config: Mapping[str, Any]) -> bool:
    """Whether run.json keeps its tables in a file of their own."""
    return isinstance(config.get("tables"), dict)


def table_rows(folder: Path, config: Mapping[str, Any]) -> list[TableRow]:
    """Every table of the run, from run.json or its tables file (checked against its size
    and sha256: :class:`TablesDamaged` otherwise). Entries that are not tables (a
    run.json edited by hand) are left out, as readers always left them out."""
    listed = config.get("tables")
    if isinstance(listed, dict):
        return _from_file(folder, listed)
    rows = []
    for table in listed if isinstance(listed, list) else []:
        if not isinstance(table, dict) or "id" not in table:
            continue
        names = table.get("entrants")
        names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
        luck = table.get("luck")
        rows.append((str(table["id"]), names, luck if isinstance(luck, bool) else None))
    return rows


def _from_file(folder: Path, said: Mapping[str, Any]) -> list[TableRow]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / TABLES_FILE
    if said.get("file") != TABLES_FILE:
        raise TablesDamaged(f"{folder}/run.json: its tables are in an unknown file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TablesDamaged(f"{path}: cannot be read ({exc.strerror or exc})") from None
    digest = said.get("sha256")
    if len(data) != said.get("bytes") or not isinstance(digest, str):
        raise TablesDamaged(f"{path}: {len(data):,} bytes where run.json says {said.get('bytes')}")
    if len(digest) != DIGEST_CHARS or digest_of(data) != digest:
        raise TablesDamaged(f"{path}: its sha256 differs from run.json's: the file changed")
    try:
        table = pq.read_table(pa.BufferReader(data))
        ids = table.column("id").to_pylist()
        names = table.column("entrants").to_pylist()
        luck = table.column("luck").to_pylist()
    except Exception as exc:  # noqa: BLE001 - a damaged file can raise anything: one line
        raise TablesDamaged(f"{path}: not a readable table list ({type(exc).__name__})") from None
    if len(ids) != said.get("count"):
        raise TablesDamaged(f"{path}: {len(ids):,} tables where run.json says {said.get('count')}")
    return list(zip(ids, names, luck, strict=True))
