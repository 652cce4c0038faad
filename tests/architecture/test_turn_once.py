"""The turn is written once in Python (harness.game.turn), and its drivers hold it.

* The stepped environment holds a Game (composition); no driver of the turn reaches into
  another object's private state.
* The rules a driver needs come from their one definition: the rolls and their weights
  from harness.game.dice (the shadow play and the turn programme enumerate none of their
  own), the steal share from the account (no other module of the harness types it; a
  built-in strategy is a plugin, on the public API, and keeps its own).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[2] / "harness"
DRIVERS = (
    "game/engine.py",
    "env/game.py",
    "env/single.py",
    "env/aec.py",
    "analysis/account.py",
    "coach/shadow.py",
    "native/seats.py",
)


def _tree(path: str) -> ast.Module:
    return ast.parse((HARNESS / path).read_text(), filename=path)


def test_the_stepped_game_holds_a_game_rather_than_being_one():
    from harness.env.game import SteppedGame
    from harness.game.engine import Game

    assert not issubclass(SteppedGame, Game)


@pytest.mark.parametrize("path", DRIVERS)
def test_no_driver_reaches_into_another_objects_private_state(path):
    """``x._name`` only for ``self`` (and ``cls``): what a driver needs of the game, the
    turn or the board is public (Game.board, Game.begin_turn, the Turn's steps)."""
    reaches = [
        f"{path}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert reaches == []


@pytest.mark.parametrize("path", ["coach/shadow.py", "analysis/turn.py"])
def test_the_rolls_and_their_weights_are_enumerated_once(path):
    source = (HARNESS / path).read_text()
    tree = _tree(path)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert "factorial" not in names  # no multinomial weights of its own
    assert "ROLLS" not in names and "ROLLS.values" not in source  # no rolls of its own


def _is_share(node: ast.AST) -> bool:
    """``1 / (x - 1)`` or ``1.0 / (x - 1)``: a steal share's shape (R7's swing)."""
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Div)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 1
        and isinstance(node.right, ast.BinOp)
        and isinstance(node.right.op, ast.Sub)
        and isinstance(node.right.right, ast.Constant)
        and node.right.right.value == 1
    )


def test_the_steal_share_is_typed_once():
    found = [
        f"{path.relative_to(HARNESS)}:{node.lineno}"
        for path in HARNESS.rglob("*.py")
        if "strategies" not in path.parts
        for node in ast.walk(ast.parse(path.read_text()))
        if _is_share(node)
    ]
    assert len(found) == 1 and found[0].startswith("analysis/account.py:"), found
