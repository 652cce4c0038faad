"""Native `win-optimal` (harness/native/c/winprob.inc.c, harness/native/evaluators.py): the
evaluator's chances and whole games bit for bit with the Python engine.

The evaluator in C must give Python's chances to the last bit (integer features, an
int64 network, one softmax in one order; the normal approximation where no model is
shipped; R11's shares at the end). These tests try to break that with models made to
hurt: sums that wrap int64, shifts of 0 and 63, logits far apart (exp underflows to 0),
an out_shift of 0 and of 4000, ties between seats, and with the normal approximation;
then whole games in every preset and every variant combination, 2 to 4 players, both
dice modes, against optimal and the others, with cold and warm plan caches and in a
fresh process. A model the C engine cannot hold, a model whose bytes are not the ones
checked, a shipped file with a wrong checksum and a table seated with no evaluator are
refused, each in one line.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import random
import struct
import subprocess
import sys
from itertools import product

import numpy as np
import pytest
from test_native import CYCLIC, check_deals
from test_native_account import check as account_check

import harness.winprob.model as winprob_model
from harness import native
from harness.errors import HarnessError
from harness.game.board import WORMS
from harness.native import evaluators
from harness.native.extension import NotNative
from harness.rules import PRESETS, VARIANTS, Rules
from harness.strategies import optimal as optimal_module
from harness.winprob import (
    Model,
    ModelError,
    Position,
    evaluator,
    feature_count,
    shipped_model,
)
from harness.winprob import features as winprob_features
from harness.winprob.model import Layer

# the module (harness.winprob's `evaluator` is the function of that name)
winprob_evaluator = importlib.import_module("harness.winprob.evaluator")

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

needs_native = pytest.mark.skipif(not native.available(), reason="native engine not built")


def random_model(
    players: int,
    hidden: tuple[int, ...] = (24,),
    seed: int = 1,
    weights: int = 3000,
    shift: int = 7,
    out_shift: int = 9,
    edges: bool = False,
    knots: tuple[float, ...] = (),
) -> Model:
    """A random integer network (int32 weights in +-``weights``), read back from its bytes
    as a model file is. ``edges``: a tenth of the weights at +-``weights`` exactly;
    ``knots``: with that chance map (an HWP2 file)."""
    rng = np.random.default_rng(seed)
    sizes = [feature_count(players), *hidden, players]
    layers = []
    for i in range(len(sizes) - 1):
        w = rng.integers(-weights, weights + 1, size=(sizes[i + 1], sizes[i]), dtype=np.int64)
        if edges:
            at = rng.random(w.shape) < 0.1
            w[at] = np.where(rng.random(w.shape) < 0.5, weights, -weights)[at]
        b = rng.integers(-weights, weights + 1, size=sizes[i + 1], dtype=np.int64)
        layers.append(Layer(w, b, shift))
    model = Model(players, tuple(layers), out_shift, knots=knots)
    return Model.from_bytes(model.to_bytes())


def many_knots(count: int, seed: int = 0) -> tuple[float, ...]:
    """``count`` + 1 increasing knots with steps of every size, some repeated."""
    steps = np.random.default_rng(seed).exponential(1.0, count + 1)
    steps[::7] = 0.0  # flat pieces
    steps[0] = 1e-6
    return tuple(float(v) for v in np.cumsum(steps))


def quantized_model(players: int, seed: int) -> Model:
    """A model as harness.training makes them: a float network of the training's shape,
    quantized (skipped where the training is not in this tree)."""
    quantize = pytest.importorskip("harness.training.quantize")
    net = pytest.importorskip("harness.training.net")
    inputs = feature_count(players)
    rng = np.random.default_rng(seed)
    fitted = net.Net.new(inputs, (64, 64), players, np.full(inputs, 8.0), rng)
    fitted.weights[-1] *= 30.0  # away from equal chances, as a trained one is
    return Model.from_bytes(quantize.quantize(fitted, players, np.full(inputs, 40.0)).to_bytes())


@pytest.fixture
def use_model(monkeypatch):
    """use_model(players, model, preset="official"): the evaluator's model for that player
    count (None: the normal approximation), Python's and, at the next batch, the C
    engine's; with ``preset``, that preset's own model (its games judged by it, the
    others' not). The test hook is the evaluator's own lookup (shipped_model, read at call
    time)."""
    models: dict[tuple[int, str], Model | None] = {}

    def use(players: int, model: Model | None, preset: str = "official") -> None:
        models[players, preset] = model
        forget_all()

    def lookup(players: int, preset: str = "official") -> Model | None:
        return models.get((players, preset))

    monkeypatch.setattr(winprob_evaluator, "shipped_model", lookup)
    yield use
    monkeypatch.undo()
    forget_all()


def forget_all() -> None:
    """The evaluators made and installed, and the Python strategy's plans (keyed by the
    board, not the model: a board planned under the last test's model would be played
    with its values)."""
    evaluator.cache_clear()
    evaluators.forget()
    optimal_module._PLANS.clear()


def random_positions(players: int, count: int, seed: int) -> list[Position]:
    """Positions of every kind: full and empty grills, empty and tall stacks, ties."""
    r = random.Random(seed)
    out = []
    for _ in range(count):
        tiles = list(range(21, 37))
        r.shuffle(tiles)
        k = r.choice([0, 0, 1, 2, r.randint(0, 16), 16])
        stacks: list[list[int]] = [[] for _ in range(players)]
        for t in tiles[k:]:
            if r.random() < 0.85:
                stacks[r.randrange(players)].append(t)
        out.append(Position.of(tiles[:k], stacks, r.randrange(players)))
    # ties: nobody has a tile (R11: all share), and equal worms with a grill left
    out.append(Position.of(range(21, 37), [[]] * players, 0))
    out.append(Position.of([], [[]] * players, players - 1))
    out.append(Position.of([36], [[21, 25]] + [[22, 26]] * (players - 1), 1))
    return out


def c_chances(position: Position) -> tuple[float, ...]:
    return native._core.wp_chances(
        position.players, position.grill, position.stacks, position.to_move
    )


def assert_same_chances(players: int, count: int = 400, seed: int = 0) -> None:
    evaluators.install(Rules(players=players))
    python = evaluator(Rules(players=players))
    for position in random_positions(players, count, seed):
        assert c_chances(position) == python.chances(position), position


MODELS = {
    "plain": {},
    "deep": {"hidden": (40, 17, 9)},
    "wrapping": {"weights": 2**31 - 1, "shift": 0},  # int64 sums wrap; no shift
    "shift63": {"weights": 2**31 - 1, "shift": 63},  # everything floors to 0 or -1
    "underflow": {"weights": 2**20, "out_shift": 0},  # exp of huge negatives: 0.0
    "flat": {"out_shift": 4000},  # 2**-4000 is 0.0: every seat ties
    # int16 weights and inputs: the C engine's int16 lanes (AVX2 madd), at their edge
    "int16": {"hidden": (40, 33), "weights": 40, "shift": 4},
    "edge16": {"hidden": (20,), "weights": 32767, "shift": 20, "edges": True},
    # the chance map (HWP2): a calibration's shape, one piece, a flat map (every seat
    # ties), the most pieces the file takes, and a map over logits far apart
    "knots": {"knots": (0.02, 0.1, 0.15, 0.4, 0.41, 0.6, 0.9, 1.0)},
    "knots1": {"knots": (0.3, 1.0)},
    "knots-flat": {"knots": (0.5, 0.5, 0.5)},
    "knots-many": {"knots": many_knots(1024)},
    "knots-underflow": {"weights": 2**20, "out_shift": 0, "knots": many_knots(10, 1)},
}


# -- the evaluator's chances --------------------------------------------------------------
@needs_native
@pytest.mark.parametrize("kind", list(MODELS))
@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_model_chances_are_pythons_bit_for_bit(use_model, kind, players):
    use_model(players, random_model(players, seed=players, **MODELS[kind]))
    assert_same_chances(players)


@needs_native
@pytest.mark.parametrize("lanes", [4, 2, 0])
@pytest.mark.parametrize("kind", ["plain", "wrapping", "deep", "int16", "edge16"])
def test_every_width_of_lanes_is_pythons(use_model, kind, lanes):
    """The network's rows in each width the processor has (dp_lanes: AVX2's int32 and
    int16 products, SSE2's int16 ones, one product at a time): each Python's, so each
    other's."""
    use_model(4, random_model(4, seed=7, **MODELS[kind]))
    try:
        if native._core.dp_lanes(lanes) != lanes:
            pytest.skip(f"this processor has no {lanes} lanes")
        assert_same_chances(4, 200, seed=8)
    finally:
        native._core.set_portable(False)


@needs_native
@pytest.mark.parametrize("players", range(2, 8))
def test_normal_approximation_is_pythons_bit_for_bit(use_model, players):
    use_model(players, None)
    assert_same_chances(players, seed=players)


@needs_native
def test_the_probe_sees_a_wrong_model(use_model):
    """The comparison can fail: the C engine keeps the model it was given until the next
    install, so a model swapped behind its back gives other chances."""
    use_model(2, random_model(2, seed=1))
    evaluators.install(Rules(players=2))
    position = Position.of(range(21, 30), [[30, 31], [32]], 0)
    before = c_chances(position)
    winprob_evaluator.shipped_model = lambda p, preset="official": random_model(2, seed=2)
    evaluator.cache_clear()  # Python's evaluator now has the other model, C the first
    assert c_chances(position) == before
    assert evaluator(Rules(players=2)).chances(position) != before


# -- whole games --------------------------------------------------------------------------
@needs_native
@pytest.mark.parametrize("dice", native.DICE_MODES)
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.once
def test_games_in_every_preset(use_model, players, preset, dice):
    use_model(players, random_model(players, seed=10 + players))
    opponents = ["optimal", "simple", "tactician"][: players - 1]
    rows = check_deals(
        ["win-optimal", *opponents], Rules.preset(preset, players), dice, 31 + players, 6
    )
    assert rows == 6 * players


@needs_native
@pytest.mark.parametrize("players", [2, 3])
def test_a_preset_with_its_own_model_is_judged_by_it_on_both_engines(use_model, players):
    """piko-blog with a model of its own, official with another: each preset's games are
    played for its model on both engines, batch after batch in one process (each in its
    slot: neither swaps the other's), and a variant mix that is no preset borrows the
    official rules' model, as Python's evaluator does."""
    official, own = random_model(players, seed=40), random_model(players, seed=41)
    use_model(players, official)
    use_model(players, own, "piko-blog")
    blog = Rules.preset("piko-blog", players)
    mix = Rules(players=players, bust_flip="lowest")  # one of piko-blog's two keys
    assert evaluator(blog).model is own and evaluator(Rules(players=players)).model is official
    assert evaluator(mix).model is official
    assert "(official rules' model)" in evaluator(mix).describe()
    assert f"winprob-{players}p-piko-blog.bin" in evaluator(blog).describe()
    assert "rules' model" not in evaluator(blog).describe()
    entrants = ["win-optimal", "optimal", "win-optimal"][:players]
    for rules in (Rules(players=players), blog, mix, Rules(players=players), blog):
        check_deals(entrants, rules, "duplicate", 7, 3)
    position = Position.of(range(21, 30), [[30, 31], [32, 33]] + [[34]] * (players - 2), 1)
    slot = list(PRESETS).index("piko-blog")
    assert native._core.wp_chances(
        players, position.grill, position.stacks, position.to_move, slot
    ) == evaluator(blog).chances(position)
    assert c_chances(position) == evaluator(Rules(players=players)).chances(position)
    assert c_chances(position) != evaluator(blog).chances(position)  # two models, two answers


@needs_native
def test_a_wrong_evaluator_slot_is_refused():
    """A slot beyond the presets: one line, nothing installed or played."""
    with pytest.raises(ValueError, match="evaluator slot must be 0 to 3"):
        native._core.wp_install(2, None, False, len(PRESETS))
    with pytest.raises(ValueError, match="wp_chances"):
        native._core.wp_chances(2, 1 << 21, ((), ()), 0, -1)


@needs_native
@pytest.mark.once
def test_games_in_every_variant_combination(use_model):
    use_model(3, random_model(3, seed=3, hidden=(16, 8)))
    played = 0
    for cell, values in enumerate(product(*VARIANTS.values())):
        rules = Rules(players=3, **dict(zip(VARIANTS, values, strict=True)))
        entrants = ["win-optimal", "optimal", "win-optimal"] if cell % 2 else ["win-optimal"] * 3
        played += check_deals(entrants, rules, "independent", 200 + cell, 2, max_turns=90)
    assert played == 24 * 2 * 3


@needs_native
@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_on_the_normal_approximation(use_model, players):
    use_model(players, None)
    entrants = ["win-optimal", "optimal", "greedy", "win-optimal"][:players]
    for seed in (1, 2):
        check_deals(entrants, Rules(players=players), "duplicate", seed, 4)


@needs_native
@pytest.mark.parametrize("preset", ["official", "piko-blog"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_games_with_the_shipped_model(players, preset):
    """The shipped files as they are (the 3- and 4-player ones carry a chance map; a
    preset's own file is played in its games only)."""
    if shipped_model(players, preset) is None:
        pytest.skip(f"no {players}-player model of the {preset} rules shipped")
    evaluators.forget()
    evaluator.cache_clear()
    rules = Rules.preset(preset, players)
    assert evaluator(rules).model is shipped_model(players, preset)
    entrants = ["win-optimal", "optimal", "simple", "win-optimal"][:players]
    for seed in (1, 2, 3):
        check_deals(entrants, rules, "duplicate", seed, 10 if players == 2 else 4)


@needs_native
@pytest.mark.parametrize("players", [2, 4])
def test_a_model_the_training_quantizes_plays_the_same(use_model, players):
    """A model as harness.training makes them (its float network, quantized: first-layer
    weights in the millions, hidden ones in the thousands, 12 fractional bits): the same
    chances and games. Skipped where the training is not in this tree."""
    use_model(players, quantized_model(players, seed=players))
    assert_same_chances(players, 300, seed=players)
    entrants = ["win-optimal", "optimal", "simple", "win-optimal"][:players]
    check_deals(entrants, Rules(players=players), "duplicate", 11, 4)


@needs_native
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_model_the_calibration_folds_plays_the_same(use_model, players):
    """A calibrated model (a map of the logits folded into the last layer: its weights
    rescaled with more fraction bits, its shift longer): the same chances and games.
    Skipped where the training is not in this tree."""
    calibrate = pytest.importorskip("harness.training.calibrate")
    model = quantized_model(players, seed=20 + players)
    scale = tuple(1.0 / (0.8 + 0.05 * k) for k in range(players))
    shift = tuple(0.1 * k * (-1) ** k for k in range(players))
    folded, extra = calibrate.fold(model, calibrate.Map(scale, shift))
    assert extra > 0  # the longer shift is what this test is for
    use_model(players, folded)
    assert_same_chances(players, 300, seed=30 + players)
    entrants = ["win-optimal", "optimal", "simple", "win-optimal"][:players]
    check_deals(entrants, Rules(players=players), "duplicate", 12, 4)


@needs_native
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_model_with_a_chance_map_plays_the_same(use_model, players):
    """A model the calibration's ``knots`` map gives (a trained network and its chance
    map, fitted to games): the same chances and games in C as in Python."""
    calibrate = pytest.importorskip("harness.training.calibrate")
    model = quantized_model(players, seed=40 + players)
    rng = np.random.default_rng(40 + players)
    q = np.array(model.chances_of(model.logits(np.array(
        [winprob_features(p) for p in random_positions(players, 600, players)]))))  # fmt: skip
    shrunk = 0.5 * q + 0.5 / players  # results as if the model were twice too bold
    won = (np.cumsum(shrunk, axis=1) < rng.random(len(q))[:, None]).sum(axis=1)
    knots, _ = calibrate.fit_knots(q, np.eye(players)[np.minimum(won, players - 1)], 10)
    mapped = Model.from_bytes(dataclasses.replace(model, knots=knots).to_bytes())
    use_model(players, mapped)
    assert_same_chances(players, 300, seed=50 + players)
    entrants = ["win-optimal", "optimal", "simple", "win-optimal"][:players]
    check_deals(entrants, Rules(players=players), "duplicate", 13, 4)


@needs_native
def test_cold_and_warm_plan_caches_decide_the_same(use_model):
    use_model(2, random_model(2, seed=4))
    args = (Rules(players=2), ["win-optimal", "win-optimal"], 9, 0, 30)
    cold = native.play_deals(*args, orders=CYCLIC[2], detail=True)
    hits = native._core.wp_plan_stats()[0]
    warm = native.play_deals(*args, orders=CYCLIC[2], detail=True)
    assert native._core.wp_plan_stats()[0] > hits  # the second run found its boards
    assert cold.games == warm.games and cold.seats == warm.seats and cold.detail == warm.detail


@needs_native
def test_a_new_model_is_not_played_from_the_old_ones_plans(use_model):
    """The plan cache is keyed by the model installed: a board planned under one model is
    planned again under the next (else the second table would play the first's values)."""
    args = (Rules(players=2), ["win-optimal", "optimal"], 4, 0, 8)
    use_model(2, random_model(2, seed=5))
    first = native.play_deals(*args, orders=CYCLIC[2]).games
    use_model(2, random_model(2, seed=6, out_shift=2))
    check_deals(args[1], args[0], "independent", 4, 8)  # the second model's games, as Python's
    assert native.play_deals(*args, orders=CYCLIC[2]).games != first


_FRESH = """
from harness import native
from harness.game import seating
from harness.rules import Rules
res = native.play_deals(Rules(players=3), ["win-optimal", "optimal", "win-optimal"], 5, 0, 6,
                        orders=seating.design(3, "cyclic"), detail=True)
print(list(res.games["winner"]), list(res.games["turns"]), [res.board(k) for k in range(res.rows)])
"""


@needs_native
def test_a_fresh_process_installs_its_evaluator_and_plays_the_same(use_model):
    """A worker process prepares its own batch: its evaluator installed there (the normal
    approximation here: no model is shipped for three players in the test's process or
    the fresh one unless one is shipped, and then both use it)."""
    use_model(3, shipped_model(3))
    done = subprocess.run(
        [sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    res = native.play_deals(
        Rules(players=3), ["win-optimal", "optimal", "win-optimal"], 5, 0, 6,
        orders=CYCLIC[3], detail=True,
    )  # fmt: skip
    here = f"{list(res.games['winner'])} {list(res.games['turns'])} "
    here += str([res.board(k) for k in range(res.rows)])
    assert done.stdout.strip() == here


@needs_native
@pytest.mark.parametrize("players", [2, 3])
def test_the_luck_account_of_a_win_optimal_seat_is_the_accountants(use_model, players):
    """The luck account solves its own (worm-swing) programme for a win-optimal seat: its
    columns natively are the Python Accountant's, bit for bit."""
    use_model(players, random_model(players, seed=20 + players))
    entrants = ["win-optimal", "optimal", "win-optimal"][:players]
    assert account_check(entrants, Rules(players=players), "duplicate", 8, 4) == 4 * players


# -- refusals -----------------------------------------------------------------------------
def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and text
    return text


@needs_native
def test_a_model_the_c_engine_cannot_hold_is_not_native(use_model):
    bad = random_model(2, hidden=(2000,))  # wider than the C engine's layers
    use_model(2, bad)
    with pytest.raises(NotNative) as caught:
        native.play_deals(Rules(players=2), ["win-optimal", "simple"], 1, 0, 1, orders=CYCLIC[2])
    assert "widths 1 to 1024" in one_line(caught.value)
    assert not native.supports(["win-optimal"]) or True  # the seat itself stays native


@needs_native
@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1],  # the file ends inside a layer
        lambda data: data + b"\0",  # bytes after the last layer
        lambda data: b"HWP2" + data[4:],
        lambda data: data[:4] + (3).to_bytes(4, "little") + data[8:],  # players
    ],
)
def test_damaged_model_bytes_are_refused_by_the_c_engine(damage):
    data = random_model(2).to_bytes()
    native._core.wp_install(2, data, False)  # the undamaged one fits
    with pytest.raises(ValueError) as caught:
        native._core.wp_install(2, damage(data), False)
    one_line(caught.value)
    evaluators.forget()


def _knot(data: bytes, k: int, value: float) -> bytes:
    """``data`` (an HWP2 file of MODELS["knots"]' eight knots) with knot k set to value."""
    at = len(data) - 8 * (8 - k)
    return data[:at] + struct.pack("<d", value) + data[at + 8 :]


@needs_native
@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda data: data[:-1], "ends inside"),
        (lambda data: data[:-68], "ends inside"),  # the count's last byte and the knots gone
        (lambda data: data[:-68] + (0).to_bytes(4, "little") + data[-64:], "intervals"),
        (lambda data: data[:-68] + (1025).to_bytes(4, "little") + data[-64:], "intervals"),
        (lambda data: _knot(data, 3, 0.05), "must not fall"),
        (lambda data: _knot(data, 0, 0.0), "above 0"),
        (lambda data: _knot(data, 0, -1.0), "above 0"),
        (lambda data: _knot(data, 7, math.inf), "finite"),
        (lambda data: _knot(data, 5, math.nan), "finite"),
        (lambda data: data + b"\0", "after the last layer"),
    ],
)
def test_a_damaged_chance_map_is_refused_by_the_c_engine(damage, words):
    """Each as the Python reader refuses it (harness.winprob.model._knots)."""
    data = random_model(2, **MODELS["knots"]).to_bytes()
    with pytest.raises(ModelError):
        Model.from_bytes(damage(data))
    native._core.wp_install(2, data, False)  # the undamaged one fits
    with pytest.raises(ValueError) as caught:
        native._core.wp_install(2, damage(data), False)
    assert words in one_line(caught.value)
    evaluators.forget()


@needs_native
def test_a_model_changed_after_its_check_is_refused(use_model):
    model = random_model(2)
    checked = Model(model.players, model.layers, model.out_shift, "0" * 64)  # not its sha
    use_model(2, checked)
    with pytest.raises(ModelError) as caught:
        native.play_deals(Rules(players=2), ["win-optimal", "simple"], 1, 0, 1, orders=CYCLIC[2])
    assert "sha256" in one_line(caught.value)


@needs_native
def test_a_shipped_file_with_a_wrong_checksum_is_refused(tmp_path, monkeypatch):
    data = random_model(2).to_bytes()
    (tmp_path / "winprob-2p.bin").write_bytes(data)
    (tmp_path / "SHA256SUMS").write_text(f"{'ab' * 32}  winprob-2p.bin\n")  # not its sum
    monkeypatch.setattr(winprob_model, "SUMS", tmp_path / "SHA256SUMS")
    monkeypatch.setattr(winprob_evaluator, "MODELS", tmp_path)
    shipped_model.cache_clear()
    forget_all()
    try:
        with pytest.raises(ModelError) as caught:
            native.play_deals(
                Rules(players=2), ["win-optimal", "simple"], 1, 0, 1, orders=CYCLIC[2]
            )
        assert isinstance(caught.value, HarnessError)
        assert "is not the shipped model's" in one_line(caught.value)
    finally:
        monkeypatch.undo()
        shipped_model.cache_clear()
        forget_all()


_NO_EVALUATOR = """
from harness import native
from harness.native.kinds import KINDS
core = native._core
try:
    core.wp_install(9, None, False)
except ValueError as exc:
    print("players:", exc)
from harness.native.columns import rules_c, new_columns, flat, design_c
from harness.rules import Rules
rules = Rules(players=5)
games, seats = new_columns(5, 1, False)
try:
    core.play_games(rules_c(rules), ((KINDS["win-optimal"][0],),) + ((0,),) * 4, 1000, 0, 1,
                    design_c(None, 5), flat(games, seats), None, None, None)
except ValueError as exc:
    print("seat:", exc)
"""


@needs_native
def test_a_table_with_no_evaluator_installed_is_refused():
    """Straight to the C engine, past the door that installs it: refused, never played
    on no evaluator."""
    done = subprocess.run(
        [sys.executable, "-c", _NO_EVALUATOR], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "players: 9 players; a game has 2 to 7 (R3)" in done.stdout
    assert "seat: seat 0: win-optimal has no evaluator for 5 players installed" in done.stdout


def neumaier_sum(values: list[float]) -> float:
    """CPython 3.12's sum() of floats (bltinmodule.c: Neumaier's compensated sum)."""
    total, c = values[0], 0.0
    for x in values[1:]:
        t = total + x
        c += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    return total + c if c and math.isfinite(c) else total


@needs_native
@pytest.mark.parametrize("players", [3, 5, 7])
def test_normal_approximation_sums_as_the_python_it_runs_on(use_model, players):
    """This Python's sum() is the C engine's (NEUMAIER says which); the other summation,
    asked for, is 3.12's, as a Python 3.12 would give it."""
    assert (sys.version_info >= (3, 12)) == evaluators.NEUMAIER
    use_model(players, None)
    evaluators.install(Rules(players=players))
    native._core.wp_install(players, None, not evaluators.NEUMAIER)
    differ = 0
    try:
        for position in random_positions(players, 300, players):
            if position.over:
                continue
            raw = _raw_normal(position)
            add = plain_sum if evaluators.NEUMAIER else neumaier_sum  # the other one
            expected = tuple(c / add(raw) for c in raw)
            assert c_chances(position) == expected, position
            differ += neumaier_sum(raw) != plain_sum(raw)
    finally:
        evaluators.forget()
    assert differ  # positions where the two sums differ: the test can fail


def plain_sum(values: list[float]) -> float:
    """sum() as Python 3.11 adds floats: left to right, no compensation (3.12+'s builtin
    sum() compensates, so it cannot stand for the other summation there)."""
    total = 0.0
    for v in values:
        total += v
    return total


def _raw_normal(position: Position) -> list[float]:
    """normal_chances' products before they are normalised (evaluator.py's loop)."""
    scores = position.scores
    sigma = math.sqrt(winprob_evaluator.SPREAD * sum(WORMS[t] for t in position.tiles))
    raw = []
    for i, mine in enumerate(scores):
        c = 1.0
        for j, other in enumerate(scores):
            if j != i:
                c *= 0.5 * (1.0 + math.erf((mine - other) / sigma / math.sqrt(2.0)))
        raw.append(c)
    return raw
