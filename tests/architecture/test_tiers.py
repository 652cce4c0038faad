"""The folders as tiers (issue 31): no import runs from a lower tier to a higher one.

docs/architecture.md draws harness's rooms in tiers, top to bottom: commands >
experiments > people > seats > engines > API > ground. :data:`TIERS` is that drawing as a
table, a folder (or a module) to its tier; a module takes the tier of the longest entry
that holds it. The import graph is test_plan's (every import, lazy ones inside functions
included; ``from harness import x`` is an arrow to ``harness.x``), so what these tests
check is what the code does: every module has a tier, no arrow runs up, and the drawing
lists the tiers in this order. The circles are test_plan's test.

Folders split across tiers only where the drawing splits them: ``game/`` (the rules and
the board on the ground, the strategy API, the engine and its records) and
``analysis/`` (the turn programme and the board payoffs are API: strategies build on
them; the account, a roll's options and the hints are what the engines and the seats
compute with; the ``analyze turn`` page and its simulation are pages for people).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from test_plan import ROOT, _module_graph  # one reader of the import graph

pytestmark = pytest.mark.interpreter

ORDER = ("commands", "experiments", "people", "seats", "engines", "API", "ground")

TIERS: dict[str, str] = {
    # commands: every click command and what they share; the console script's face
    "harness.commands": "commands",
    "harness.cli": "commands",
    "harness.__main__": "commands",
    # experiments: what plays many games to answer a question
    "harness.tourney": "experiments",
    "harness.sprt": "experiments",
    "harness.tune": "experiments",
    "harness.training": "experiments",
    "harness.coach": "experiments",
    "harness.people": "experiments",
    "harness.env": "experiments",
    # people: one game told, reports, a run for notebooks
    "harness.play": "people",
    "harness.report": "people",
    "harness.results": "people",
    "harness.analysis.report": "people",
    "harness.analysis.simulate": "people",
    # seats: the wrappers around a seat, the built-in strategies
    "harness.seats": "seats",
    "harness.strategies": "seats",
    # engines: the two engines, their records, finding strategies, the exact analyses
    "harness.native": "engines",
    "harness.game.engine": "engines",
    "harness.game.turn": "engines",
    "harness.game.record": "engines",
    "harness.plugins": "engines",
    "harness.analysis": "engines",
    # API: what a plugin subclasses and is shown, and what it may build on
    "harness.game.strategy": "API",
    "harness.game.view": "API",
    "harness.strategy": "API",
    "harness.view": "API",
    "harness.analysis.turn": "API",
    "harness.analysis.board": "API",
    "harness.winprob": "API",
    # ground: the rules, the run folder's contract, statistics, what every room shares
    "harness.game": "ground",
    "harness.rules": "ground",
    "harness.runfolder": "ground",
    "harness.configs": "ground",
    "harness.stats": "ground",
    "harness.errors": "ground",
    "harness.interrupts": "ground",
    "harness.jsonsafe": "ground",
}
# The folders whose modules are not all in one tier (the drawing splits them).
SPLIT = {"harness.game", "harness.analysis"}


def tier_of(module: str, table: dict[str, str] = TIERS) -> str | None:
    """The tier of the longest table entry that is ``module`` or a package holding it."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        if (found := table.get(".".join(parts[:end]))) is not None:
            return found
    return None


def arrows_up(graph: dict[str, set[str]], table: dict[str, str] = TIERS) -> list[str]:
    """Every import from a module to one in a higher tier, as ``a (tier) -> b (tier)``."""
    rank = {tier: i for i, tier in enumerate(ORDER)}  # 0 is the top
    found = []
    for module, imported in sorted(graph.items()):
        here = tier_of(module, table)
        for other in sorted(imported):
            there = tier_of(other, table)
            if here is not None and there is not None and rank[there] < rank[here]:
                found.append(f"{module} ({here}) -> {other} ({there})")
    return found


def test_every_module_has_a_tier():
    untiered = sorted(m for m in _module_graph() if tier_of(m) is None)
    assert untiered == [], "place them in TIERS (and in docs/architecture.md's drawing)"
    assert set(TIERS.values()) == set(ORDER)


def test_no_import_runs_up_a_tier():
    assert arrows_up(_module_graph()) == []


def test_the_check_sees_an_arrow_up():
    # It must be able to fail: a ground module importing a command, lazily or not, and an
    # engine importing the tourney room; the longest entry decides (game/ is split).
    graph = {
        "harness.game.record": {"harness.commands.common", "harness.game.rules"},
        "harness.native.batch": {"harness.tourney.plan"},
        "harness.game.rules": {"harness.game.engine"},
        "harness.strategies.optimal": {"harness.analysis.turn"},
    }
    assert arrows_up(graph) == [
        "harness.game.record (engines) -> harness.commands.common (commands)",
        "harness.game.rules (ground) -> harness.game.engine (engines)",
        "harness.native.batch (engines) -> harness.tourney.plan (experiments)",
    ]
    source = "def f():\n    from harness.commands.common import user_errors\n"
    nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)]
    assert [n.module for n in nodes] == ["harness.commands.common"]  # what the graph reads


def test_every_import_is_absolute():
    # The graph reads absolute imports only: a relative one would be an arrow it misses.
    relative = sorted(
        f"{path.relative_to(ROOT.parent)}:{node.lineno}"
        for path in ROOT.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level
    )
    assert relative == []


def test_folders_split_across_tiers_only_where_the_drawing_splits_them():
    modules = _module_graph()
    by_folder: dict[str, set[str]] = {}
    for module in modules:
        parts = module.split(".")
        if len(parts) > 2:  # a module in a room's folder (harness.<room>.<module>...)
            by_folder.setdefault(".".join(parts[:2]), set()).add(tier_of(module) or "?")
    split = {folder for folder, tiers in by_folder.items() if len(tiers) > 1}
    assert split == SPLIT


def test_the_drawing_lists_the_tiers_in_this_order():
    doc = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = doc.split("```", 2)[1]
    named = [m.group(1) for m in re.finditer(r"^(\w+)\s", drawing, re.MULTILINE)]
    assert tuple(named) == ORDER
    for folder in {m.split(".")[1] for m in TIERS if m.count(".") == 1}:
        assert re.search(rf"\b{folder}\b", drawing), f"{folder} is not in the drawing"


def test_the_table_names_real_modules():
    modules = set(_module_graph())
    for entry in TIERS:
        holds = entry in modules or any(m.startswith(f"{entry}.") for m in modules)
        assert holds or Path(ROOT.parent, *entry.split(".")).with_suffix(".py").exists(), entry
