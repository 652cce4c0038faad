"""The command line's import graph (issue 13 item 5; issue 31: commands in one room).

Every command lives in the commands room, ``harness/commands/``: ``group.py`` is the top
(it builds the group and registers the commands, with every import at the top of the
file and no ``noqa``; ``harness/cli.py`` is its face for the console script and ``python
-m harness.cli``); every other command module imports ``harness.commands.common`` and
lower rooms, never the group. These tests read the source (ast), so they fail as soon as
an import runs upward or a command is written in another room, and check that the group,
the console script and ``python -m harness`` still offer the same commands.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

pytestmark = pytest.mark.interpreter

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "harness"
COMMANDS_ROOM = HARNESS / "commands"
TOP = COMMANDS_ROOM / "group.py"
FACE = HARNESS / "cli.py"  # the console script's entry point: the group, re-exported
# What `harness --help` listed before the restructuring, in its order (click sorts by name).
COMMANDS = [
    "analyze",
    "coach",
    "compare",
    "config-schema",
    "diff",
    "init",
    "play",
    "replay",
    "report",
    "sprt",
    "strategies",
    "tourney",
    "tune",
]


def _package(path: Path) -> str:
    """The package a module's relative imports start from."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1])  # a package's __init__ is in the package itself: the same


def _imported(node: ast.AST, package: str) -> list[str]:
    """The modules an import node names (``from harness import cli`` names harness.cli)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: level 1 is the package itself, 2 its parent, ...
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        return [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return []


def _names(text: str, package: str) -> set[str]:
    return {name for node in ast.walk(ast.parse(text)) for name in _imported(node, package)}


def _imports_of(path: Path) -> set[str]:
    return _names(path.read_text(encoding="utf-8"), _package(path))


def test_nothing_in_harness_imports_the_top_but_its_face_and_python_m_harness():
    importers = {
        top: sorted(
            str(path.relative_to(ROOT))
            for path in HARNESS.rglob("*.py")
            if top in _imports_of(path)
        )
        for top in ("harness.cli", "harness.commands.group")
    }
    assert importers == {
        "harness.cli": ["harness/__main__.py"],
        "harness.commands.group": ["harness/cli.py"],
    }
    face = ast.parse(FACE.read_text(encoding="utf-8")).body
    assert len(face) == 3, "harness/cli.py: a docstring, the import of main, __main__"


def _defines_a_command(path: Path) -> bool:
    """Whether a module defines a click command or group (``@click.command``,
    ``@click.group``, ``@<group>.command``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for deco in node.decorator_list:
                call = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(call, ast.Attribute) and call.attr in ("command", "group"):
                    return True
    return False


def test_every_command_is_written_in_the_commands_room():
    elsewhere = sorted(
        str(path.relative_to(ROOT))
        for path in HARNESS.rglob("*.py")
        if COMMANDS_ROOM not in path.parents and _defines_a_command(path)
    )
    assert elsewhere == []
    assert not list(HARNESS.glob("*/cli.py")), "a room's cli.py: commands live in harness/commands"
    assert not (HARNESS / "cli_common.py").exists()
    # the scan sees a command (it must be able to fail)
    assert _defines_a_command(COMMANDS_ROOM / "tourney.py")
    assert _defines_a_command(TOP)


def test_the_scan_sees_an_upward_import():
    # The test above must be able to fail: each spelling of an import of harness.cli.
    for text, package in (
        ("import harness.cli\n", "harness.tourney"),
        ("from harness.cli import main\n", "harness.tourney"),
        ("from harness import cli\n", "harness.tourney"),
        ("def f():\n    from harness.cli import main\n", "harness.tourney"),
        ("from .. import cli\n", "harness.tourney"),
        ("from . import cli\n", "harness"),
        ("from .cli import main\n", "harness"),
    ):
        assert "harness.cli" in _names(text, package), text
    for text, package in (
        ("from harness.commands.group import main\n", "harness.commands"),
        ("from harness.commands import group\n", "harness.commands"),
        ("def f():\n    from . import group\n", "harness.commands"),
        ("from .group import COMMANDS\n", "harness.commands"),
    ):
        assert "harness.commands.group" in _names(text, package), text
    common = "from harness.commands.common import user_errors\n"
    assert "harness.cli" not in _names(common, "harness")
    assert "harness.commands.group" not in _names(common, "harness.commands")
    assert "harness.cli" not in _names("from .cli import tourney\n", "harness.tourney")


def test_the_top_has_its_imports_at_the_top_and_no_noqa():
    text = TOP.read_text(encoding="utf-8")
    assert "noqa" not in text
    tree = ast.parse(text)
    body = tree.body[1:] if isinstance(tree.body[0], ast.Expr) else tree.body  # docstring
    kinds = [isinstance(node, ast.Import | ast.ImportFrom) for node in body]
    first_other = kinds.index(False)
    assert not any(kinds[first_other:]), "an import below the first statement"
    nested = [
        node
        for top in body
        if not isinstance(top, ast.Import | ast.ImportFrom)
        for node in ast.walk(top)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert nested == [], "a late import in harness/commands/group.py"


def test_the_group_lists_the_same_commands_in_the_same_order():
    from harness.cli import main

    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    listed = result.output.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in listed if line.strip()] == COMMANDS
    assert sorted(main.commands) == COMMANDS


def test_every_command_lives_in_a_module_below_the_top():
    from harness.cli import main

    for name, command in main.commands.items():
        module = sys.modules[command.callback.__module__]
        assert module.__name__.startswith("harness.commands."), name
        assert module.__name__ not in ("harness.cli", "harness.commands.group"), name
        imported = _imports_of(Path(module.__file__))
        assert not {"harness.cli", "harness.commands.group"} & imported, name


def test_command_modules_import_without_the_top():
    # In a fresh interpreter: each command module loads, and harness.cli never does.
    from harness.cli import main

    modules = sorted({c.callback.__module__ for c in main.commands.values()})
    assert len(modules) >= 7  # play, strategies, init, tourney, report, analyze, sprt, coach
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "print('harness.cli' in sys.modules or 'harness.commands.group' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_console_script_and_python_m_reach_the_same_group():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"harness": "harness.cli:main"}
    from harness.cli import main

    assert isinstance(main, click.Group)
    for entry in (["-m", "harness"], ["-m", "harness.cli"]):
        out = subprocess.run(
            [sys.executable, *entry, "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        listed = out.stdout.split("Commands:\n", 1)[1].splitlines()
        assert [line.split()[0] for line in listed if line.strip()] == COMMANDS, entry


def test_the_commands_choices_are_the_configs():
    # The luck choices are the seat settings' and the engine choices have one owner at the
    # bottom, which every user reads: the same words in the commands and the config.
    from harness import play
    from harness.commands import common as cli_common
    from harness.env import vector
    from harness.game.engines import ENGINES
    from harness.tourney import config

    assert cli_common.ENGINE_CHOICES is config.ENGINES is play.ENGINES is ENGINES
    assert vector.ENGINES is ENGINES
    assert cli_common.LUCK_CHOICES == config.LUCK_MODES
