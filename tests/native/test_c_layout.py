"""The constants the C engine shares with Python come from the Python tables, never a hand copy.

harness/native/c/layout.inc.c is *generated* by :func:`layout_text` below from the Python
tables (the rules, the schema's columns and the order the C code takes their buffers,
the native kinds and the bounds of their parameters, the environments' observation and
actions, the seeds' mask, the account's spread, the turn programme's epsilon) and checked
in; core.c #includes it first, so the C code reads every such constant by its name there
and holds no value of its own. These tests fail when the file and the tables differ (a
Python table changed and the file was not written again: the C code would play or
store by the old value), and when a C part defines one of the generated names itself.

    python tests/native/test_c_layout.py    # write layout.inc.c again from the tables

Why a generated file, checked in and tested, rather than one the build writes: setup.py
builds the extension before harness can be imported (its dependencies, numpy among them,
are not installed yet in an isolated build), so the build needs nothing but a C
compiler; and why not a table checked against the built module alone: then a C value
could still differ from Python's until someone builds and runs that test, where here the
C code has no value to differ. The generator lives here, not in harness/native, because
it reads the environments' encoding (harness.env), a room above the native engine's.
"""

from __future__ import annotations

import re
import sys
from array import array
from pathlib import Path

from harness.analysis.account import WIN_SPREAD
from harness.analysis.turn import EPS
from harness.env import encoding
from harness.env.game import REWARDS
from harness.env.single import MAX_SKIPPED
from harness.game import rules
from harness.native import columns, kinds
from harness.runfolder import schema
from harness.tourney.plan import SEED_MASK
from harness.winprob.features import GRILL_FEATURES, PER_SEAT

C_DIR = Path(__file__).resolve().parents[2] / "harness" / "native" / "c"
LAYOUT = C_DIR / "layout.inc.c"


def _name(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", text.upper()).strip("_")


def _size(typecode: str) -> int:
    return array(typecode).itemsize


def _double(value: float) -> str:
    text = repr(float(value))
    assert float(text) == value and re.fullmatch(r"-?[0-9.]+(e-?[0-9]+)?", text), text
    return text


def _strings(values) -> str:
    return "{" + ", ".join(f'"{v}"' for v in values) + "}"


def _ints(values) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def _wrapped(opening: str, items, closing: str) -> list[str]:
    """``opening item, item, ... closing`` as C lines of at most 96 characters."""
    lines, line = [], opening
    for item in items:
        if len(line) + len(item) + 2 > 96:
            lines.append(line.rstrip())
            line = "    "
        line += f"{item}, "
    return [*lines, line.rstrip(", ") + closing]


def _enum(members, comment: str = "") -> list[str]:
    return _wrapped("enum { ", members, " };" + (f" /* {comment} */" if comment else ""))


def _columns(label: str, prefix: str, order: tuple[str, ...], types: dict[str, str]) -> list[str]:
    """A group of columns: their count, index names, item sizes and names, in C's order."""
    assert sorted(order) == sorted(types), f"{label}: the order names every column once"
    sizes = [_size(types[name]) for name in order]
    return [
        f"/* {label} */",
        f"#define {prefix}_COUNT {len(order)}",
        *_enum(f"{prefix}_{_name(n)}" for n in order),
        *(f"#define {prefix}_{_name(n)}_SIZE {s}" for n, s in zip(order, sizes, strict=True)),
        *_wrapped(
            f"static const char *const {prefix}_NAMES[] = {{", (f'"{n}"' for n in order), "};"
        ),
        f"static const int {prefix}_SIZES[] = {_ints(sizes)};",
    ]


def _rules() -> list[str]:
    top = rules.DICE * max(rules.FACE_POINTS)  # the highest total a turn can reach
    worms = [rules.worms(t) if t in rules.TILES else 0 for t in range(top + 1)]
    faces = sum(1 << f for f in rules.FACES)
    assert list(rules.TILES) == list(range(rules.LOWEST_TILE, rules.HIGHEST_TILE + 1))
    return [
        "/* ==== the rules (harness/game/rules.py) ==== */",
        f"#define MAXP {rules.MAX_PLAYERS} /* MAX_PLAYERS (R3) */",
        f"#define NTILES {len(rules.TILES)} /* TILES (R1) */",
        f"#define LOWEST_TILE {rules.LOWEST_TILE}",
        f"#define HIGHEST_TILE {rules.HIGHEST_TILE}",
        f"#define NDICE {rules.DICE} /* DICE (R2) */",
        f"#define WORM {rules.WORM} /* the worm's face (R2) */",
        f"#define ALL_FACES 0x{faces:X}u /* FACES as a mask: bit f for face f */",
        f"#define MAX_TOTAL {top} /* DICE * the most points a face counts */",
        f"static const int FACE_POINTS[{len(rules.FACE_POINTS)}] = {_ints(rules.FACE_POINTS)};",
        "/* WORMS[tile]: worms(tile), 0 off the tiles (R1) */",
        *_wrapped("static const int WORMS[MAX_TOTAL + 1] = {", map(str, worms), "};"),
        "/* the bust_flip variant as a flip mode (harness/native/columns.py FLIP_MODES) */",
        *_enum([*(f"FLIP_{_name(m)}" for m in columns.FLIP_MODES), "FLIP_MODES"]),
        "/* the evaluator slots: one per preset (harness/game/rules.py PRESETS), which model"
        " judges its games */",
        f"#define WP_SLOTS {len(rules.PRESETS)}",
    ]


def _bounds(name: str, attributes: tuple[str, ...]) -> str:
    """One kind's entry of KIND_BOUNDS: how many parameters, their names and bounds."""
    declared = kinds.builtin_class(name).bounds
    bounds = []
    for attribute in attributes:
        b = declared[attribute]
        assert b.low is not None and b.high is not None, f"{name}.{attribute}: C needs both ends"
        bounds.append(f"{{{_double(b.low)}, {_double(b.high)}, {int(b.low_open)}}}")
    names = _strings(attributes) if attributes else "{0}"
    params = "{" + ", ".join(bounds) + "}" if bounds else "{{0}}"
    return f"    [S_{_name(name)}] = {{{len(attributes)}, {names}, {params}}},"


def _kinds() -> list[str]:
    order = sorted(kinds.KINDS.items(), key=lambda item: item[1][0])
    assert [k for _, (k, *_) in order] == list(range(len(order))), "kinds are 0..n-1"
    members = [f"S_{_name(name)} = {k}" for name, (k, *_) in order]
    return [
        "/* ==== the native kinds (harness/native/kinds.py KINDS) and the parameters each",
        " * reads, in its order, with the bounds its built-in declares (Strategy.bounds) */",
        *_enum([*members, f"S_KINDS = {len(order)}"]),
        f"#define MAX_PARAMS {max(len(item[1][3]) for item in order)}",
        "typedef struct {",
        "    double low, high;",
        "    int low_open; /* low itself excluded */",
        "} Bound;",
        "static const struct {",
        "    int count;",
        "    const char *names[MAX_PARAMS];",
        "    Bound p[MAX_PARAMS];",
        "} KIND_BOUNDS[S_KINDS] = {",
        *(_bounds(name, attributes) for name, (*_, attributes) in order),
        "};",
    ]


def _tables() -> list[str]:
    account = columns.ACCOUNT_ORDER
    sums = [n for n in account if columns.ACCOUNT_COLUMNS[n] == "d"]
    assert list(account[: len(sums)]) == sums, "the account's sums come first, then its counts"
    return [
        "/* ==== the columns of a batch (harness/native/columns.py GAME_ORDER, SEAT_ORDER,",
        " * ACCOUNT_ORDER: the order the C code takes their buffers in; item sizes from",
        " * harness/runfolder/schema.py) ==== */",
        *_columns("a game's", "GCOL", columns.GAME_ORDER, columns.GAME_COLUMNS),
        *_columns("a seat's", "SCOL", columns.SEAT_ORDER, columns.SEAT_COLUMNS),
        *_columns("a seat's account", "ACC", account, columns.ACCOUNT_COLUMNS),
        f"#define ACC_SUMS {len(sums)} /* float64 sums, then the int16 counts */",
        f"#define ACC_COUNTS {len(account) - len(sums)}",
        "/* the status column's codes and the error kinds (schema.STATUSES, ERROR_KINDS) */",
        "enum { "
        + ", ".join(f"STATUS_{_name(s)} = {c}" for s, c in schema.STATUS_CODES.items())
        + " };",
        f"#define ERROR_KINDS {len(schema.ERROR_KINDS)}",
        f"#define NO_KIND ({schema.NO_KIND})",
        f"#define MAX_ORDERS {columns.MAX_ORDERS} /* a design's seat orders (an int8 column) */",
        "/* chunk_stats' counters of an entrant (columns.STAT_FIELDS), then shared[0..players] */",
        *_enum([*(f"STAT_{_name(f)}" for f in columns.STAT_FIELDS), "STAT_FIELDS"]),
        "/* a game's final board (columns.DETAIL_*) */",
        f"#define DETAIL_BYTES {columns.DETAIL_BYTES}",
        f"#define DETAIL_HEAD {columns.DETAIL_HEAD}",
        f"#define DETAIL_SEAT {columns.DETAIL_SEAT}",
        "/* ==== seeds, the account, optimal's turn programme ==== */",
        f"#define SEED_MASK 0x{SEED_MASK:x}ULL /* harness.tourney.plan.SEED_MASK: int64 */",
        f"#define ACC_SPREAD {_double(WIN_SPREAD)} /* harness.analysis.account.WIN_SPREAD */",
        f"#define DP_EPS {_double(EPS)} /* harness.analysis.turn.EPS */",
        "/* the win-probability evaluator's inputs (harness/winprob/features.py) */",
        f"#define PER_SEAT_FEATURES {PER_SEAT} /* PER_SEAT: integers per seat */",
        f"#define GRILL_FEATURES {GRILL_FEATURES} /* the grill's: bits, count, worms */",
    ]


def _environment() -> list[str]:
    phases = {"pick": encoding.PICK, "stop": encoding.STOP_OR_ROLL, "claim": encoding.CLAIM}
    assert [phases[p] for p in encoding.PHASES] == [0, 1, 2]
    return [
        "/* ==== the environments (harness/env/encoding.py, game.py, single.py) ==== */",
        f"#define VE_OBS {encoding.OBS_SIZE} /* OBS_SIZE */",
        f"#define VE_ACTIONS {encoding.ACTIONS} /* ACTIONS */",
        f"#define VE_STOP {encoding.STOP} /* STOP */",
        f"#define VE_ROLL {encoding.ROLL_ON} /* ROLL_ON */",
        f"#define VE_CLAIM0 {encoding.FIRST_CLAIM} /* FIRST_CLAIM: claim tile LOWEST_TILE */",
        *_enum(f"PHASE_{_name(p)} = {phases[p]}" for p in encoding.PHASES),
        "/* OFFSETS: where each field of the observation starts */",
        *(f"#define O_{_name(n)} {at}" for n, at in encoding.OFFSETS.items()),
        f"#define O_SEAT_BLOCK {encoding.SEAT_BLOCK} /* SEAT_BLOCK: a seat's floats in O_SEATS */",
        f"#define VE_SKIPS {MAX_SKIPPED} /* harness.env.single.MAX_SKIPPED */",
        *_enum((f"R_{_name(r)}" for r in REWARDS), "harness.env.game.REWARDS"),
    ]


def layout_text() -> str:
    """layout.inc.c as the Python tables make it now."""
    head = [
        "/* The constants the C engine shares with Python: GENERATED from the Python tables by",
        " * tests/native/test_c_layout.py (`python tests/native/test_c_layout.py` writes this",
        " * file again). Do not edit: change the Python table, then write this file again;",
        " * the test fails while the two differ. A part of core.c, #included first. */",
    ]
    body = [*head, "", *_rules(), "", *_kinds(), "", *_tables(), "", *_environment()]
    return "\n".join(body) + "\n"


def test_the_layout_is_written_from_the_python_tables():
    assert LAYOUT.is_file(), "no layout.inc.c: python tests/native/test_c_layout.py writes it"
    assert LAYOUT.read_text() == layout_text(), (
        "harness/native/c/layout.inc.c differs from the Python tables: "
        "python tests/native/test_c_layout.py writes it again"
    )


def _generated_names(text: str) -> set[str]:
    """The names layout.inc.c defines: macros, enum members, tables."""
    names = set(re.findall(r"#define (\w+)", text))
    for members in re.findall(r"enum \{([^}]*)\}", text):
        names |= {m.split("=")[0].strip() for m in members.split(",")}
    names |= set(re.findall(r"static const [^=;{]*?\b(\w+)\[", text))
    return names | set(re.findall(r"^\} (\w+)\b", text, re.MULTILINE))  # typedefs, a table


def test_no_c_part_defines_a_generated_name_again():
    # a hand copy beside the generated one (an old #define O_ROLL 3 left in vecenv.inc.c)
    # would be a second value to drift
    names = _generated_names(layout_text())
    assert {"O_SEATS", "GCOL_STATUS", "S_OPTIMAL", "WORMS", "KIND_BOUNDS", "Bound"} <= names
    again = []
    for part in sorted(C_DIR.glob("*.c")):
        if part == LAYOUT:
            continue
        text = part.read_text()
        for name in names:
            defined = (
                rf"#define {name}\b",
                rf"\b{name}\s*=\s*-?\d",  # an enum member given a value
                rf"static[\w\s*]*\b{name}\s*\[",
                rf"^\}}\s*{name}\b",  # a struct of that name
            )
            if any(re.search(d, text, re.MULTILINE) for d in defined):
                again.append(f"{part.name}: {name}")
    assert again == []


def test_a_changed_table_changes_the_layout(monkeypatch):
    # the generator reads the tables (a generator that wrote a fixed text passes the first
    # test for ever): swap two int8 columns, move a field, rename a kind's parameter
    before = layout_text()
    order = list(columns.GAME_ORDER)
    i, j = order.index("status"), order.index("winner")
    order[i], order[j] = order[j], order[i]
    monkeypatch.setattr(columns, "GAME_ORDER", tuple(order))
    assert layout_text() != before
    monkeypatch.undo()
    monkeypatch.setitem(encoding.OFFSETS, "seats", encoding.OFFSETS["seats"] + 1)
    assert layout_text() != before
    monkeypatch.undo()
    kind, module, cls, attributes = kinds.KINDS["threshold"]
    monkeypatch.setitem(kinds.KINDS, "threshold", (kind, module, cls, ("target",) * 2))
    assert layout_text() != before
    monkeypatch.undo()
    assert layout_text() == before


if __name__ == "__main__":
    LAYOUT.write_text(layout_text())
    print(f"wrote {LAYOUT}", file=sys.stderr)
