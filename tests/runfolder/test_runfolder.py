"""The run folder contract, written once (issue 13, item 3): harness.runfolder.

* The schema's columns and types are defined once; the Arrow schema, the chunk arrays'
  typecodes and the status / error-kind codes all derive from them and cannot drift.
* The manifest's torn-line rule: the first torn, unparsable or incomplete line ends the
  good part, and the byte length returned is exactly the good lines'.
* A manifest's file name cannot reach outside ``games/``; a line's claim is refused when
  it cannot describe a chunk.
* A chunk's arrays become exactly the stored schema (encoded or not); the complete parts of
  an unverified folder are the listed ones at their listed size.
* The package imports nothing above the ground floor (no tourney, report, nor pyarrow).
"""

from __future__ import annotations

import json
import subprocess
import sys
from array import array

import pyarrow as pa
import pytest

from harness.runfolder import layout, manifest, parts, schema


# -- the schema, once ----------------------------------------------------------------------
def test_every_view_of_the_schema_derives_from_its_one_table():
    bits = {"b": 8, "h": 16, "i": 32, "q": 64}
    for name, code in schema.GAME_ARRAYS.items():
        kind = schema.column_type(name)
        if name in schema.CODED:
            assert kind == "string" and code == "b"
        else:
            assert kind == f"int{bits[code]}", name
        assert array(code).itemsize * 8 == bits[code]
    for name, code in schema.SEAT_ARRAYS.items():
        assert schema.column_type(schema.seat_column(3, name)) == f"int{bits[code]}"
    # Every stored column is an array, or one of the few filled otherwise.
    rest = set(schema.GAME_COLUMNS) - set(schema.GAME_ARRAYS)
    assert rest == {"table", "players", "error"}
    # ... and the account's arrays, kept when the run keeps the account (else nulls), and
    # the win account's luck and its vector (schemas 5, 6), kept when it keeps that too
    # (luck: win).
    accounts = {*schema.ACCOUNT_FIELDS, *schema.WIN_ACCOUNT_FIELDS}
    assert set(schema.SEAT_FIELDS) - set(schema.SEAT_ARRAYS) == {"strategy", *accounts}
    assert schema.WIN_ACCOUNT_FIELDS == ("winluck", "winvec")
    for name, code in {**schema.ACCOUNT_ARRAYS, **schema.WIN_ACCOUNT_ARRAYS}.items():
        kind = schema.column_type(schema.seat_column(0, name))
        assert kind == ("float64" if code == "d" else f"int{bits[code]}"), name
    assert all(schema.is_optional(schema.seat_column(6, f)) for f in accounts)
    assert not schema.is_optional("seat0_worms") and schema.is_optional("error_kind")
    for players in range(2, 8):
        stored = schema.arrow_schema(players)
        assert stored.names == schema.columns(players)
        for f in stored:
            assert f.type == getattr(pa, schema.column_type(f.name))(), f.name


def test_status_and_kind_codes_are_the_index_of_their_names():
    assert [schema.STATUS_CODES[s] for s in schema.STATUSES] == [0, 1, 2]
    assert schema.STATUSES[schema.OVER] == "over"
    assert schema.STATUSES[schema.TURN_CAP] == "turn-cap"
    assert schema.STATUSES[schema.FORFEIT] == "forfeit"
    assert [schema.KIND_CODES[k] for k in schema.ERROR_KINDS] == list(range(4))
    assert schema.NO_KIND < 0


def test_the_engines_fill_the_schemas_arrays():
    from harness import native
    from harness.tourney import chunks

    assert native.GAME_COLUMNS is schema.GAME_ARRAYS
    assert native.SEAT_COLUMNS is schema.SEAT_ARRAYS
    assert chunks.GAME_ARRAYS is schema.GAME_ARRAYS


def test_a_seat_column_and_a_game_column_named_alike_are_told_apart():
    assert schema.column_type("seating") == "int8"
    assert schema.column_type("seat0_strategy") == "string"
    with pytest.raises(KeyError):
        schema.column_type("seat0_nonsense")
    with pytest.raises(KeyError):
        schema.column_type("nonsense")


# -- the manifest --------------------------------------------------------------------------
def line(**entry) -> bytes:
    return manifest.manifest_line({"key": "k", "file": "t-000000000.parquet", **entry})


@pytest.mark.parametrize(
    "tail",
    [
        b'{"key": "k2", "file": "x.parquet"',  # torn: no newline
        b"not json\n",
        b"[1, 2]\n",
        b'{"key": "k2"}\n',  # no file
        b'{"key": "k2", "file": 7}\n',
        b'{"file": "x.parquet"}\n',  # no key (keyed)
    ],
)
def test_the_first_bad_line_ends_the_good_part(tmp_path, tail):
    good = line(a=1) + line(a=2)
    path = tmp_path / layout.MANIFEST
    path.write_bytes(good + tail + line(a=3))
    entries, size = manifest.read_manifest(path)
    assert [e["a"] for e in entries] == [1, 2]
    assert size == len(good)


def test_a_hand_made_manifest_may_list_files_without_keys(tmp_path):
    path = tmp_path / layout.MANIFEST
    path.write_bytes(b'{"file": "a.parquet"}\n{"file": "b.parquet", "bytes": 3}\n')
    assert manifest.read_manifest(path)[0] == []
    entries, size = manifest.read_manifest(path, keyed=False)
    assert [e["file"] for e in entries] == ["a.parquet", "b.parquet"]
    assert size == path.stat().st_size


def test_a_missing_manifest_is_empty_and_an_unreadable_one_is_the_callers(tmp_path):
    assert manifest.read_manifest(tmp_path / "none.jsonl") == ([], 0)
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(OSError):
        manifest.read_manifest(tmp_path / "dir.jsonl")


def test_lines_are_written_as_they_are_read(tmp_path):
    entries = [{"key": "b", "file": "f.parquet", "z": [1]}, {"file": "g.parquet", "key": "a"}]
    path = tmp_path / layout.MANIFEST
    path.write_bytes(manifest.manifest_text(entries))
    assert manifest.read_manifest(path) == (entries, path.stat().st_size)
    assert manifest.manifest_line(entries[1]) == b'{"file": "g.parquet", "key": "a"}\n'


@pytest.mark.parametrize(
    "name",
    [
        "../x.parquet",
        "a/b.parquet",
        "a\\b.parquet",
        ".hidden.parquet",
        "x\x00.parquet",
        "x.csv",
        7,
        None,
    ],
)
def test_a_file_name_cannot_leave_games(name):
    assert not manifest.safe_part_name(name)


def test_a_part_name_is_safe_and_sorts_by_table_then_deal():
    names = [layout.part_name(t, d) for t in ("a", "b") for d in (0, 9, 10, 123456)]
    assert all(manifest.safe_part_name(n) for n in names)
    assert sorted(names) == names


@pytest.mark.parametrize(
    "entry",
    [
        {"table": "t", "first": 0, "stop": 0, "games": 2},
        {"table": "t", "first": -1, "stop": 1, "games": 4},
        {"table": "t", "first": 0, "stop": 2, "games": 3},  # not whole orders per deal
        {"table": "t", "first": 0, "stop": 1, "games": 1},  # one order: no design has one
        {"table": "t", "first": 0, "stop": 1, "games": manifest.MAX_ORDERS + 1},
        {"table": "t", "first": True, "stop": 2, "games": 4},
        {"table": 1, "first": 0, "stop": 2, "games": 4},
        {"first": 0, "stop": 2, "games": 4},
    ],
)
def test_a_claim_that_cannot_describe_a_chunk_is_refused(entry):
    assert manifest.covered(entry) is None


def test_a_claim_says_table_deals_and_orders():
    entry = {"table": "t", "first": 10, "stop": 13, "games": 18}
    assert manifest.covered(entry) == ("t", 10, 13, 6)


# -- parts ---------------------------------------------------------------------------------
def arrays(rows: int, players: int, forfeit_row: int | None = None):
    games = {name: array(code, [0] * rows) for name, code in schema.GAME_ARRAYS.items()}
    games["deal"] = array("i", [r // 2 for r in range(rows)])
    games["seating"] = array("b", [r % 2 for r in range(rows)])
    games["error_kind"] = array("b", [schema.NO_KIND] * rows)
    games["error_seat"] = array("b", [-1] * rows)
    errors = {}
    if forfeit_row is not None:
        games["status"][forfeit_row] = schema.FORFEIT
        games["error_kind"][forfeit_row] = schema.KIND_CODES["time"]
        games["error_seat"][forfeit_row] = 1
        errors[forfeit_row] = "too slow"
    seats = [
        {name: array(code, [seat + 1] * rows) for name, code in schema.SEAT_ARRAYS.items()}
        for seat in range(players)
    ]
    return games, seats, errors


@pytest.mark.parametrize("encoded", [False, True])
def test_a_chunks_arrays_become_the_stored_schema(encoded):
    games, seats, errors = arrays(6, 2, forfeit_row=3)
    table = parts.part_table(
        games,
        seats,
        errors,
        table="t",
        entrants=["x", "y"],
        orders=[(0, 1), (1, 0)],
        players=2,
        encoded=encoded,
    )
    if encoded:
        assert pa.types.is_dictionary(table.schema.field("status").type)
        table = table.cast(schema.arrow_schema(2))
    assert table.schema == schema.arrow_schema(2)
    assert table.column("status").to_pylist() == ["over"] * 3 + ["forfeit"] + ["over"] * 2
    assert table.column("error_kind").to_pylist() == [None] * 3 + ["time"] + [None] * 2
    assert table.column("error").to_pylist()[3] == "too slow"
    assert table.column("seat0_strategy").to_pylist() == ["x", "y"] * 3
    assert table.column("players").to_pylist() == [2] * 6
    parts.check_rows(table, ("t", 0, 3, 2), "t-000000000.parquet", 2)


def test_rows_that_are_not_the_claim_are_refused():
    games, seats, errors = arrays(6, 2)
    table = parts.part_table(
        games, seats, errors, table="t", entrants=["x", "y"], orders=[(0, 1), (1, 0)], players=2
    )
    for claim in [("t", 0, 4, 2), ("u", 0, 3, 2), ("t", 1, 4, 2), ("t", 0, 2, 3)]:
        with pytest.raises(parts.ChunkDamaged):
            parts.check_rows(table, claim, "f.parquet", 2)
    with pytest.raises(parts.ChunkDamaged):
        parts.check_rows(table, ("t", 0, 3, 2), "f.parquet", 3)


def test_the_complete_parts_are_the_listed_ones_at_their_size(tmp_path):
    games = tmp_path / layout.GAMES
    games.mkdir()
    for name, data in [("a.parquet", b"12"), ("b.parquet", b"123"), ("c.parquet", b"1")]:
        (games / name).write_bytes(data)
    (games / ".d.parquet").write_bytes(b"")
    (games / "e.txt").write_bytes(b"")
    assert [p.name for p in parts.complete_parts(games, None)[0]] == [
        "a.parquet",
        "b.parquet",
        "c.parquet",
    ]
    listed = [
        {"file": "a.parquet", "bytes": 2},
        {"file": "b.parquet", "bytes": 4},  # changed size
        {"file": "z.parquet"},  # missing
    ]
    found, notes = parts.complete_parts(games, listed)
    assert [p.name for p in found] == ["a.parquet"]
    assert len(notes) == 3 and all(len(n.splitlines()) == 1 for n in notes)


def test_writer_and_reader_share_one_rule():
    """The writer and the report read the manifest through the same function."""
    import inspect

    from harness.runfolder import reader
    from harness.tourney import storage

    assert storage.read_manifest is manifest.read_manifest
    assert storage.read_part is parts.read_part and reader.read_part is parts.read_part
    source = inspect.getsource(reader)
    assert "splitlines" not in source and "json.loads(line" not in source


def test_the_package_imports_nothing_above_the_ground_floor():
    code = (
        "import sys, harness.runfolder.layout, harness.runfolder.manifest, "
        "harness.runfolder.parts, harness.runfolder.schema\n"
        "bad = [m for m in sys.modules if m.startswith(('harness.tourney', 'harness.report',"
        " 'harness.sprt', 'harness.cli', 'pyarrow', 'pandas', 'numpy'))]\n"
        "print(json.dumps(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json\n" + code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == []
