"""report/'s sub-rooms (issue 31): summaries, charts, pages, comparisons, and the few
modules they all share beside them; the old flat names still reach the modules.

docs/report.md named ``harness.report.colours`` (now ``harness.report.charts.colours``);
notebooks wrote ``harness.report.summary`` and friends through the room's face. Both keep
working, as the same module objects, and every path the docs name now is importable.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import harness.report

ROOM = Path(harness.report.__file__).parent
DOCS = Path(__file__).resolve().parents[2] / "docs"
SUB_ROOMS = {"summaries", "charts", "pages", "comparisons"}
BESIDE = {"__init__", "api", "files", "order", "colours"}  # colours: docs' import path


def test_the_room_is_its_sub_rooms_and_what_they_share():
    flat = {p.stem for p in ROOM.glob("*.py")}
    assert flat == BESIDE
    folders = {p.name for p in ROOM.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == SUB_ROOMS
    for room in SUB_ROOMS:
        assert (ROOM / room / "__init__.py").is_file(), room
        assert len(list((ROOM / room).glob("*.py"))) >= 4, room  # a room, not a renamed file


def test_every_old_flat_name_reaches_its_module():
    moved = {p.stem: f"{p.parent.name}.{p.stem}" for p in ROOM.glob("*/*.py")}
    # modules written since the move (adaptive, race) never had a flat name
    born_in_a_room = {"adaptive", "race"}
    moved = {
        old: new for old, new in moved.items() if old != "__init__" and old not in born_in_a_room
    }
    assert len(moved) == 21  # the flat room's modules but api, files, order
    for old, new in moved.items():
        module = importlib.import_module(f"harness.report.{new}")
        assert getattr(harness.report, old) is module, old
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        harness.report.nothing  # noqa: B018


def test_the_import_paths_the_docs_name_work():
    named = set()
    for page in DOCS.glob("*.md"):
        named |= set(re.findall(r"harness\.report(?:\.[a-z_]+)+", page.read_text()))
    assert "harness.report.charts.colours.colours_for" in named
    for name in sorted(named | {"harness.report.colours.colours_for"}):  # the docs' old path
        parts = name.split(".")
        for end in range(len(parts), 1, -1):  # the longest importable prefix, then attributes
            try:
                value = importlib.import_module(".".join(parts[:end]))
            except ModuleNotFoundError:
                continue
            for attr in parts[end:]:
                value = getattr(value, attr)
            break
        else:
            raise AssertionError(name)


def test_the_docs_colours_path_is_the_charts_module_in_a_fresh_process():
    code = (
        "import harness.report.colours as a\n"
        "from harness.report.charts import colours as b\n"
        "from harness.report.colours import colours_for\n"
        "print(a is b, colours_for is b.colours_for)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["True", "True"], out.stderr
