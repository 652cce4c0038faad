"""harness.tune as a room: beside sprt, above the tourney (whose chunks, backends and
config checker it uses), below the commands; its command (harness.commands.tune) loads
nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_stats_package import imported_modules  # one reader of import lines

import harness
import harness.tune

pytestmark = pytest.mark.interpreter

ROOT = Path(harness.__file__).parent


@pytest.mark.parametrize(
    "path",
    sorted([*(ROOT / "tourney").rglob("*.py"), *(ROOT / "report").rglob("*.py")]),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_neither_the_tourney_nor_the_report_imports_the_tuner(path):
    assert not [
        m for m in imported_modules(path) if m.startswith("harness.tune.") or m == "harness.tune"
    ]


@pytest.mark.parametrize("path", sorted((ROOT / "tune").glob("*.py")), ids=lambda p: p.name)
def test_the_tuner_never_imports_the_commands_the_report_or_sprt(path):
    for name in imported_modules(path):
        assert not name.startswith(("harness.cli", "harness.commands", "harness.report"))
        assert not name.startswith("harness.sprt")


def test_spsa_is_pure():
    allowed = ("__future__", "math", "dataclasses", "numpy")
    assert set(imported_modules(ROOT / "tune" / "spsa.py")) <= set(allowed)


def test_the_command_module_loads_neither_the_tuner_nor_numpy():
    code = (
        "import json, sys, harness.commands.tune\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('harness', 'numpy')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "harness.commands.tune" in loaded
    for heavy in ("harness.commands.group", "harness.tune.run", "harness.tourney.plan", "numpy"):
        assert heavy not in loaded


def test_the_face_gives_the_tuner():
    from harness.tune.run import run_tune
    from harness.tune.setup import make_setup

    assert harness.tune.make_setup is make_setup and harness.tune.run_tune is run_tune
    for name in harness.tune.__all__:
        assert getattr(harness.tune, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'points'"):
        harness.tune.points  # noqa: B018 - not on the face: from .spsa
