"""One meaning per name (issue 31, item 3).

* ``settings`` is the seat settings (:class:`~harness.seats.settings.SeatSettings`): the
  rules' ``--set KEY=VALUE`` overrides reach a command as ``variants``, never under that
  name, on every command that takes them.
* "swing" is the account's payoff (the change of the turn-taker's margin, a steal's worms
  times P / (P - 1)): the claims' sort key (worms gained plus the victim's loss, a steal's
  worms twice) is ``claim_key``. The old public name still imports, deprecated, as the same
  function, and the stored account keeps its ``swing`` key.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import click
import pytest

import harness
from harness.errors import Deprecated
from harness.game.board import Claim, legal_claims, mask_of

pytestmark = pytest.mark.interpreter

HARNESS = Path(harness.__file__).parent


def _commands() -> list[click.Command]:
    from harness.cli import main

    found = []
    for name in main.list_commands(click.Context(main)):
        command = main.get_command(click.Context(main), name)
        found.extend(command.commands.values() if isinstance(command, click.Group) else [command])
    return found


def test_the_rules_overrides_are_variants_and_settings_is_the_seat_settings():
    with_set = 0
    for command in _commands():
        for param in command.params:
            if "--set" in getattr(param, "opts", ()):
                with_set += 1
                assert param.name == "variants", command.name
            assert param.name != "settings", (command.name, param.opts)
    assert with_set >= 4  # play, sprt, coach, diff


def test_no_function_of_harness_is_named_swing():
    for path in HARNESS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.name != "swing", f"{path.relative_to(HARNESS)}:{node.lineno}"


@pytest.mark.parametrize("module", ["harness.strategy", "harness.view"])
def test_the_old_name_still_imports_deprecated_as_the_same_function(module):
    from harness.game.board import claim_key

    with pytest.warns(Deprecated, match=rf"^{module}\.swing is now claim_key"):
        old = importlib.import_module(module).swing
    assert old is claim_key
    with pytest.warns(Deprecated):
        exec(f"from {module} import swing as imported", namespace := {})  # a plugin's way
    assert namespace["imported"] is claim_key
    assert "swing" not in importlib.import_module(module).__all__
    with pytest.raises(AttributeError, match="no attribute 'nonesuch'"):
        importlib.import_module(module).nonesuch  # noqa: B018


def test_claim_key_is_not_the_worm_swing():
    """At 3 players a steal of 1 worm swings 1.5 worms, a grill tile of 2 worms 2; the sort
    key counts the steal twice (2) and breaks the tie by the tile: they are two payoffs."""
    from harness.analysis.account import steal_share
    from harness.game.board import claim_key

    steal, grill = Claim(24, 1), Claim(25)  # tile 24: 1 worm (stolen); tile 25: 2 worms
    assert claim_key(steal) == (2, 24) and claim_key(grill) == (2, 25)
    assert steal_share(3) * steal.worms == 1.5 < grill.worms
    offered = legal_claims(0, 25, True, mask_of([25]), [0, 25, 0], lower_any=False)
    assert offered == (Claim(25, 1), Claim(25))  # a steal of 25 first: its key is (4, 25)
    assert claim_key(Claim(25, 1)) == (4, 25)


def test_the_stored_account_keeps_its_swing_key():
    """A record's turns store the account's swing under the key they always had."""
    from harness.analysis.account import TurnAccount
    from harness.analysis.game import turn_summary

    turn = TurnAccount(1, 0, 0.5, 0.0, (21,), (0, 0), swing=1.0, end="claim")
    assert turn_summary(turn) == {"par": 0.5, "luck": 0.0, "regret": 0.0, "swing": 1.0}
