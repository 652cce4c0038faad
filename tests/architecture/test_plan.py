"""The plan's code identity and the rooms below it (issue 13, items 6 and 8).

* ``plan.engine_digest`` covers an explicit list of files (``plan.engine_files``), through
  the one digest function of files (``plugins.files_digest``): an edit of any listed file
  changes it, a listed file that is missing is an error (never a digest of less code).
* The native engine is a peer of the Python engine below the tourney room: it imports
  nothing of ``harness.tourney`` (not even lazily), and the seating designs it plays live
  on the ground floor (``harness.game.seating``; the old module name re-exports them).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import harness
from harness import plugins
from harness.tourney import plan

pytestmark = pytest.mark.interpreter

ROOT = Path(harness.__file__).parent


@pytest.fixture
def fresh_digest():
    plan.engine_digest.cache_clear()
    yield
    plan.engine_digest.cache_clear()


def test_the_engine_files_are_listed_and_all_there():
    files = plan.engine_files()
    names = {f"{f.parent.name}/{f.name}" for f in files}  # the built-ins may live apart
    for must in (
        "game/engine.py",
        "game/dice.py",
        "game/rules.py",
        "game/view.py",
        "game/board.py",
        "game/strategy.py",
        "seats/__init__.py",
        "seats/guarding.py",  # guard and the two wrappers: they decide guarded games
        "seats/timed.py",
        "seats/process_seat.py",
        "seats/clock.py",
        "seats/tracing.py",
        "seats/isolation.py",
        "seats/replies.py",
        "tourney/chunks.py",
        "tourney/chunk_result.py",
        "tourney/decisions.py",
        "tourney/plan.py",
        "strategies/_common.py",
        "native/__init__.py",
        "native/seats.py",
        "c/core.c",
        "c/account.inc.c",  # the luck account, kept during play: it stores what it books
        "c/vecenv.inc.c",
    ):
        assert must in names, must
    # every module of the seat wrappers' room decides guarded games, whatever its face
    # re-exports (output.py only labels what plugins print; the sandbox is the system's)
    seats = {f"seats/{p.name}" for p in (ROOT / "seats").glob("*.py") if p.name != "output.py"}
    assert seats <= names, seats - names
    assert "harness/turnstate.py" not in names  # the dead name the issue found
    assert all(f.is_file() for f in files), [f for f in files if not f.is_file()]
    assert len(set(files)) == len(files)


def test_an_edit_of_any_covered_file_changes_the_digest(monkeypatch, fresh_digest):
    before = plan.engine_digest()
    real = Path.read_bytes
    for target in plan.engine_files():

        def edited(self, target=target):
            data = real(self)
            return data + b"\n# edited\n" if self == target else data

        monkeypatch.setattr(Path, "read_bytes", edited)
        plan.engine_digest.cache_clear()
        assert plan.engine_digest() != before, target
        monkeypatch.undo()
    plan.engine_digest.cache_clear()
    assert plan.engine_digest() == before


def test_a_missing_covered_file_is_an_error_not_an_empty_digest(monkeypatch, fresh_digest):
    listed = plan.engine_files()
    monkeypatch.setattr(plan, "engine_files", lambda: [*listed, ROOT / "turnstate.py"])
    with pytest.raises(FileNotFoundError, match="turnstate.py") as caught:
        plan.engine_digest()
    assert "\n" not in str(caught.value)


def test_files_digest_is_order_and_name_sensitive(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("x = 1\n")
    assert plugins.files_digest([a]) != plugins.files_digest([b])  # same bytes, other name
    assert plugins.files_digest([a, b]) != plugins.files_digest([b, a])
    assert plugins.files_digest([a]) == plugins.files_digest([a])
    assert plugins.file_digest(a) == plugins.file_digest(b)  # one file: its bytes only
    with pytest.raises(FileNotFoundError):
        plugins.files_digest([a, tmp_path / "gone.py"])


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize(
    "module",
    [
        "native/__init__.py",
        "native/seats.py",
        "game/seating.py",
        "game/ranking.py",
        "plugins/__init__.py",
    ],
)
def test_the_ground_and_engine_rooms_import_nothing_above_them(module):
    above = ("harness.tourney", "harness.report", "harness.sprt", "harness.cli", "harness.results")
    upward = sorted(m for m in _imports(ROOT / module) if m.startswith(above))
    assert not upward, f"{module} imports {upward}"


def test_importing_the_native_engine_loads_no_tourney_module():
    code = (
        "import json, sys\n"
        "import harness.native\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('harness.tourney')"
        " or m in ('numpy', 'pyarrow', 'pandas'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def _module_graph() -> dict[str, set[str]]:
    """harness's modules and what each imports (lazy imports too; ``from harness import x``
    is an arrow to harness.x, not to the package, whose __init__ only re-exports)."""
    mods: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = ("harness", *path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{a.name}" for a in node.names} & mods.keys()
                found.update(subs or {node.module})
        graph[name] = {m for m in found if m in mods and m not in (name, "harness")}
    graph.pop("harness", None)
    return graph


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of the graph, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circle_in_harness():
    assert _circle(_module_graph()) is None, " -> ".join(_circle(_module_graph()) or [])
    # the finder finds one when there is one (the old native -> chunks -> native circle)
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
