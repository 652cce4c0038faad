"""The evaluator: exact at the end (R10, R11), the normal approximation where no model
is given, chances that sum to one, and the same position seen from every mover."""

from __future__ import annotations

import pytest
from test_model import tiny_model

from harness.game.rules import Rules
from harness.winprob import Evaluator, ModelError, Position, normal_chances

POSITIONS = [
    Position.of((21, 25, 30, 36), ((22, 33), (24,), (26, 27, 28)), 0),
    Position.of((29,), ((22, 33), (), (26, 27, 28)), 2),
    Position.of(tuple(range(21, 37)), ((), (), ()), 1),
]


def test_exact_at_the_end_of_the_game() -> None:
    ev = Evaluator(Rules(players=3), tiny_model(3))
    assert ev.chances(Position.of((), ((33,), (21, 22, 23, 24), (25,)), 1)) == (1.0, 0.0, 0.0)
    assert ev.chances(Position.of((), ((), (), ()), 0)) == (1 / 3, 1 / 3, 1 / 3)


def test_the_normal_approximation_without_a_model() -> None:
    ev = Evaluator(Rules(players=3), None)
    assert ev.kind == "normal approximation"
    for p in POSITIONS:
        assert ev.chances(p) == normal_chances(p)


def test_a_player_count_without_a_shipped_model_falls_back() -> None:
    ev = Evaluator(Rules(players=7))  # no 7-player model is shipped
    assert ev.model is None and "normal approximation" in ev.describe()


def test_a_model_for_other_player_counts_is_refused() -> None:
    with pytest.raises(ModelError, match="R3"):
        Evaluator(Rules(players=3), tiny_model(2))


@pytest.mark.parametrize("model", [None, "model"])
def test_chances_sum_to_one(model: str | None) -> None:
    ev = Evaluator(Rules(players=3), tiny_model(3) if model else None)
    for c in ev.chances_many(POSITIONS):
        assert abs(sum(c) - 1.0) < 1e-12
        assert all(0.0 <= x <= 1.0 for x in c)


def _rotated(p: Position, r: int) -> Position:
    """The same game with every seat moved r places down (seat s becomes s - r)."""
    n = p.players
    stacks = tuple(p.stacks[(s + r) % n] for s in range(n))
    return Position(p.grill, stacks, (p.to_move - r) % n)


@pytest.mark.parametrize("model", [None, "model"])
def test_the_same_position_seen_from_each_mover(model: str | None) -> None:
    ev = Evaluator(Rules(players=3), tiny_model(3, seed=5) if model else None)
    for p in POSITIONS:
        base = ev.chances(p)
        for r in range(1, 3):
            moved = ev.chances(_rotated(p, r))
            expected = tuple(base[(s + r) % 3] for s in range(3))
            if model:  # integer logits: bit for bit
                assert moved == expected
            else:  # the product over the others runs in seat order: rounding differs
                assert moved == pytest.approx(expected, abs=1e-15)


def test_the_mover_matters_to_a_learned_model() -> None:
    # a check that can fail: the model's inputs start from the mover
    ev = Evaluator(Rules(players=3), tiny_model(3, seed=5))
    p = POSITIONS[0]
    assert ev.chances(p) != ev.chances(Position(p.grill, p.stacks, 1))


def test_the_shipped_two_player_model_knows_a_lead() -> None:
    # a sanity check of the shipped file, not of its accuracy (benchmarks measure that)
    from harness.winprob import evaluator

    ev = evaluator(Rules(players=2))
    assert ev.kind == "learned" and "winprob-2p.bin" in ev.describe()
    ahead = Position.of((21, 22, 23), ((33, 34, 35), (24,)), 1)  # 12 worms to 1, 3 left
    close = Position.of(tuple(range(21, 37)), ((), ()), 0)  # the first turn
    assert ev.chances(ahead)[0] > 0.9
    assert 0.35 < ev.chances(close)[0] < 0.65
    # ahead, the same board with the other seat to move: still far ahead
    assert ev.chances(Position(ahead.grill, ahead.stacks, 0))[0] > 0.9


@pytest.mark.parametrize("players", [2, 3])
def test_a_preset_with_its_own_model_is_judged_by_it_and_every_other_rule_set_is_not(
    monkeypatch, players: int
) -> None:  # noqa: ANN001
    """The preset's own file where one is shipped (and only for exactly that preset);
    every other variant, and a preset without its own, the official rules' model."""
    import importlib

    from harness.game.rules import PRESETS

    evaluator_module = importlib.import_module("harness.winprob.evaluator")

    official, blog = tiny_model(players), tiny_model(players, seed=5)
    files = {("official", players): official, ("piko-blog", players): blog}
    monkeypatch.setattr(
        evaluator_module,
        "shipped_model",
        lambda p, preset="official": files.get((preset, p)),
    )
    judged = {name: Evaluator(Rules.preset(name, players)) for name in PRESETS}
    assert judged["piko-blog"].model is blog and judged["piko-blog"].trained_for == "piko-blog"
    assert "piko-blog" in judged["piko-blog"].describe()
    assert "rules' model" not in judged["piko-blog"].describe()
    for name in ("official", "french", "short"):
        assert judged[name].model is official and judged[name].trained_for == "official"
    assert "(official rules' model)" in judged["french"].describe()
    for mix in (
        Rules(players=players, bust_flip="lowest"),  # half of piko-blog
        Rules(players=players, bust_flip="lowest", flip_without_tile=True, lower_tile="any"),
    ):
        assert Evaluator(mix).model is official
    here = Position.of(range(21, 30), [[30, 31], [32]] + [[33]] * (players - 2), 0)
    assert judged["piko-blog"].chances(here) != judged["official"].chances(here)
    del files["piko-blog", players]  # no file of its own: it borrows, and says so
    assert Evaluator(Rules.preset("piko-blog", players)).model is official
    assert "(official rules' model)" in Evaluator(Rules.preset("piko-blog", players)).describe()


def test_a_given_model_is_described_as_given_not_as_a_shipped_file() -> None:
    model = tiny_model(2, seed=3)
    for rules in (Rules(players=2), Rules.preset("piko-blog", 2)):
        ev = Evaluator(rules, model)
        assert ev.trained_for is None
        assert f"a given model sha256 {model.sha256[:12]}" in ev.describe()
        assert ".bin" not in ev.describe() and "rules' model" not in ev.describe()
