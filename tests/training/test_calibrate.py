"""The calibration: the fit finds a known map, the fold puts it in the integer model
exactly enough and within its bounds, a tiny run repeats byte for byte from its seed,
the games are its own, and the command's errors are one line."""

from __future__ import annotations

import io

import numpy as np
import pytest

from harness.game.rules import Rules
from harness.training import calibrate as cal
from harness.training import selfplay
from harness.training.net import Net, softmax
from harness.training.progress import Bar
from harness.training.quantize import QuantizeError, check_bounds, quantize
from harness.winprob import Model, feature_count, features

BOUND = 40


def _quiet() -> Bar:
    return Bar(io.StringIO())


def _model(players: int, seed: int = 0, spread: float = 30.0) -> Model:
    """A model as the training makes them: a float network, quantized."""
    n = feature_count(players)
    net = Net.new(n, (16, 8), players, np.full(n, 8.0), np.random.default_rng(seed))
    net.weights[-1] *= spread  # away from equal chances, as a trained one is
    return Model.from_bytes(quantize(net, players, np.full(n, BOUND)).to_bytes())


def _draws(z: np.ndarray, p: np.ndarray, seed: int) -> np.ndarray:
    """One-hot results drawn from the chances ``p`` (each row's winner)."""
    rng = np.random.default_rng(seed)
    u = rng.random(len(z))[:, None]
    won = (np.cumsum(p, axis=1) < u).sum(axis=1)
    return np.eye(z.shape[1])[np.minimum(won, z.shape[1] - 1)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fit_finds_a_known_temperature(players: int) -> None:
    rng = np.random.default_rng(players)
    z = rng.normal(0.0, 1.5, (40_000, players))
    y = _draws(z, softmax(z / 0.7), seed=players)
    fitted = cal.fit(z, y, "temperature")
    assert 1.0 / fitted.scale[0] == pytest.approx(0.7, abs=0.03)
    assert len(set(fitted.scale)) == 1 and not any(fitted.shift)


def test_the_fit_finds_seat_temperatures_and_biases() -> None:
    rng = np.random.default_rng(5)
    z = rng.normal(0.0, 1.5, (60_000, 3))
    scale, shift = np.array([1.6, 1.2, 0.9]), np.array([0.0, 0.3, -0.2])
    y = _draws(z, softmax(z * scale + shift), seed=6)
    fitted = cal.fit(z, y, "seat-affine")
    assert np.allclose(fitted.scale, scale, atol=0.06)
    assert np.allclose(fitted.shift, shift, atol=0.05)
    assert fitted.shift[0] == 0.0
    # the one-number map cannot take seat 0's sharper scale: a worse fit of these results
    one = cal.fit(z, y, "temperature")

    def loss(m: cal.Map) -> float:
        return float(-(y * np.log(softmax(m.apply(z)))).sum(axis=1).mean())

    assert loss(fitted) < loss(one) - 1e-3


@pytest.mark.parametrize("players", [4])
def test_the_knots_mend_a_shape_a_temperature_cannot(players: int) -> None:
    """Results whose chances are the model's bent (timid in the middle, right at the ends,
    as the 3- and 4-player models were): the knots' map brings every decile within a
    point on held-out draws; the best temperature leaves a bin 1.5 points off or more."""
    rng = np.random.default_rng(players)
    z = rng.normal(0.0, 1.5, (200_000, players))
    q = softmax(z)
    bent = q + 0.1 * np.sin(np.pi * q) ** 2 * (q - 1.0 / players) * players
    truth = bent / bent.sum(axis=1, keepdims=True)
    fit_y, held_y = _draws(z, truth, seed=1), _draws(z, truth, seed=2)
    half = len(z) // 2
    knots, polished = cal.fit_knots(q[:half], fit_y[:half], 10)
    assert polished
    assert len(knots) == 11 and knots[-1] == 1.0 and all(np.diff(knots) >= 0) and knots[0] > 0
    g = np.interp(q[half:], np.linspace(0.0, 1.0, 11), knots)
    mapped = g / g.sum(axis=1, keepdims=True)
    model = Model(players, (), 0, knots=knots)  # the evaluator's map is that, to rounding
    assert np.allclose([model.mapped(list(row)) for row in q[half : half + 500]], mapped[:500])
    assert cal.decile_error(q[half:], held_y[half:]) > 0.025  # the bend shows
    assert cal.decile_error(mapped, held_y[half:]) < 0.01
    temp = cal.fit(z[:half], fit_y[:half], "temperature")
    assert cal.decile_error(softmax(temp.apply(z[half:])), held_y[half:]) > 0.015


def _bent(players: int, rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Chances ``q`` and results drawn from them bent (a shape a map can mend), with few
    positions above 0.9 at 4 players: the last piece of the fit collapses, as the shipped
    4-player model's did."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.5, (rows, players))
    q = softmax(z)
    bent = q + 0.1 * np.sin(np.pi * q) ** 2 * (q - 1.0 / players) * players
    return q, _draws(z, bent / bent.sum(axis=1, keepdims=True), seed=seed + 1)


def _knot_loss(knots: tuple[float, ...] | np.ndarray, q: np.ndarray, y: np.ndarray) -> float:
    g = np.interp(q, np.linspace(0.0, 1.0, len(knots)), knots)
    return float(-(y * np.log(g / g.sum(axis=1, keepdims=True))).sum(axis=1).mean())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_knots_are_the_same_wherever_the_optimiser_stopped(players: int) -> None:
    """Two libraries' L-BFGS-B stop up to 2e-6 apart (scipy 1.14-1.17 on the shipped
    4-player positions): the polish takes every such endpoint to the same knots, bit for
    bit, on the grid, above 0, never falling, the last 1, and no worse a fit."""
    q, y = _bent(players, 30_000, seed=players)
    knots, polished = cal.fit_knots(q, y, 10)
    assert polished
    assert knots[-1] == 1.0 and knots[0] > 0 and all(np.diff(knots) >= 0)
    assert all(v == round(v / cal.KNOT_GRID) * cal.KNOT_GRID or v == cal.KNOT_FLOOR for v in knots)
    rng = np.random.default_rng(7)
    steps = np.diff(np.concatenate([[0.0], knots]))
    for _ in range(4):  # other endpoints: each increment moved by up to 2e-6, the scale too
        other = np.cumsum(steps * (1.0 + rng.uniform(-2e-6, 2e-6, len(steps)))) * 1.7
        assert cal.polish_knots(other, q, y) == (knots, True)
    # the polish is the optimum's on the pieces it keeps open: no move of a knot between
    # two open pieces lowers the loss (a collapsed piece is L-BFGS-B's, kept as it left it)
    best = _knot_loss(knots, q, y)
    for j in range(1, 10):
        if steps[j] > 0 and steps[j + 1] > 0:
            for delta in (-1e-4, 1e-4):
                nudged = np.array(knots)
                nudged[j] += delta
                assert _knot_loss(nudged, q, y) >= best - 1e-12


def test_knots_far_from_the_optimum_are_rounded_not_moved() -> None:
    """The polish is for an endpoint near the optimum: knots far from it (a crude guess,
    a map of other chances) are kept as given, on the grid and scaled to end at 1, never
    sent somewhere else by Newton steps."""
    q, y = _bent(3, 10_000, seed=3)
    guess = np.linspace(0.05, 2.0, 11) ** 1.3
    polished, settled = cal.polish_knots(guess, q, y)
    assert not settled  # and the command says so (below)
    scaled = guess / guess[-1]
    assert np.abs(np.array(polished) - scaled).max() <= cal.KNOT_GRID
    assert polished[-1] == 1.0


def test_a_calibration_by_knots_keeps_the_network_and_writes_its_map(monkeypatch) -> None:  # noqa: ANN001
    model = _model(3, seed=9)
    settings = cal.Settings(players=3, model=model, seed=4, positions=300, kind="knots",
                            knots=5)  # fmt: skip
    one = cal.calibrate(settings, _quiet())
    assert one.model.to_bytes() == cal.calibrate(settings, _quiet()).model.to_bytes()
    assert one.model.to_bytes()[:4] == b"HWP2" and len(one.model.knots) == 6
    assert all(
        (a.weights == b.weights).all() and (a.biases == b.biases).all() and a.shift == b.shift
        for a, b in zip(one.model.layers, model.layers, strict=True))  # fmt: skip
    assert one.loss_after <= one.loss_before + 1e-9 and one.fitted.knots == one.model.knots
    # again on its own output: the map is refitted to the network's chances, not stacked
    again = cal.calibrate(cal.Settings(**{**settings.__dict__, "model": one.model}), _quiet())
    assert again.model.layers[-1].shift == model.layers[-1].shift
    # a logit map fitted after a chance map would be applied before it: refused
    with pytest.raises(cal.CalibrationError, match="chance map"):
        cal.calibrate(cal.Settings(**{**settings.__dict__, "model": one.model,
                                      "kind": "temperature"}), _quiet())  # fmt: skip


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fold_is_the_map_in_the_integer_model(players: int) -> None:
    model = _model(players, seed=players)
    mapping = cal.Map(tuple(1.0 + 0.2 * k for k in range(players)),
                      tuple(0.0 if k == 0 else 0.1 * k for k in range(players)))  # fmt: skip
    folded, extra = cal.fold(model, mapping)
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 8, (500, feature_count(players)))
    z = cal.float_logits(model, rows)
    assert np.abs(cal.float_logits(folded, rows) - mapping.apply(z)).max() < 2e-3
    # only the last layer changed; the weights stay int16 where they were (the C lanes)
    assert all(
        (a.weights == b.weights).all() and a.shift == b.shift
        for a, b in zip(model.layers[:-1], folded.layers[:-1], strict=True)
    )
    assert folded.layers[-1].shift == model.layers[-1].shift + extra
    assert np.abs(folded.layers[-1].weights).max() <= cal.INT16 < 2 * np.abs(
        folded.layers[-1].weights
    ).max()  # fmt: skip
    assert Model.from_bytes(folded.to_bytes()).sha256 == folded.sha256 != model.sha256


def test_the_identity_folds_to_the_same_logits() -> None:
    model = _model(3)
    folded, _ = cal.fold(model, cal.Map((1.0, 1.0, 1.0), (0.0, 0.0, 0.0)))
    rows = np.random.default_rng(2).integers(0, 8, (300, feature_count(3)))
    assert (model.logits(rows) == folded.logits(rows)).all()


def test_bounds_are_checked() -> None:
    model = _model(2)
    check_bounds(model, np.full(feature_count(2), BOUND))
    last = model.layers[-1]
    big = type(last)(last.weights, last.biases + 2**31, last.shift)
    with pytest.raises(QuantizeError, match="int32"):
        check_bounds(Model(2, (*model.layers[:-1], big), model.out_shift), np.full(32, BOUND))
    first = model.layers[0]
    wide = type(first)(first.weights * 0 + 2**31 - 1, first.biases, first.shift)
    with pytest.raises(QuantizeError, match="int64"):
        check_bounds(Model(2, (wide, *model.layers[1:]), model.out_shift), np.full(32, 2.0**40))
    # a map too steep for the file: refused, never written
    with pytest.raises(QuantizeError):
        cal.fold(model, cal.Map((1e9, 1e9), (0.0, 0.0)))


def games_played(monkeypatch) -> list[tuple]:  # noqa: ANN001
    """The (rules, seed) of every game the calibration plays from now on (it plays the
    training's self-play)."""
    played: list[tuple] = []
    real = selfplay.play_game

    def spy(seats, rules, seed, **kw):  # noqa: ANN001, ANN202
        played.append((rules, seed))
        return real(seats, rules, seed, **kw)

    monkeypatch.setattr(selfplay, "play_game", spy)
    return played


def test_a_tiny_calibration_repeats_and_plays_its_own_games(monkeypatch) -> None:  # noqa: ANN001
    played = games_played(monkeypatch)
    settings = cal.Settings(players=3, model=_model(3, seed=9), seed=4, positions=300,
                            kind="seat-affine")  # fmt: skip
    one = cal.calibrate(settings, _quiet())
    two = cal.calibrate(settings, _quiet())
    assert one.model.to_bytes() == two.model.to_bytes()
    assert one.positions >= 300 and one.fold_error < 2e-3
    seeds = [seed for _, seed in played]
    assert seeds and all(s.startswith("fit-4-") for s in seeds)  # neither train- nor calib-
    # the fitted map is the best of its kind on its games: never a worse cross-entropy
    assert one.loss_after <= one.loss_before + 1e-9
    other = cal.calibrate(cal.Settings(**{**settings.__dict__, "seed": 5}), _quiet())
    assert other.model.to_bytes() != one.model.to_bytes()


def test_a_preset_is_calibrated_on_its_own_games(monkeypatch) -> None:  # noqa: ANN001
    played = games_played(monkeypatch)
    settings = cal.Settings(players=2, model=_model(2, seed=9), seed=4, positions=150,
                            rules="piko-blog")  # fmt: skip
    blog = cal.calibrate(settings, _quiet())
    assert played and {rules for rules, _ in played} == {Rules.preset("piko-blog", 2)}
    official = cal.calibrate(cal.Settings(**{**settings.__dict__, "rules": "official"}), _quiet())
    assert (blog.loss_before, blog.fitted) != (official.loss_before, official.fitted)  # other games


def test_win_optimal_plays_with_the_model_given(monkeypatch) -> None:  # noqa: ANN001
    """The games depend on the input model, not on the installed ones."""
    model = _model(2, seed=3)
    judged = []
    real = selfplay.ending_chances  # the model's win-optimal is the training's own

    def spy(position, rules, judge=None):  # noqa: ANN001, ANN202
        judged.append(judge)
        return real(position, rules, judge)

    monkeypatch.setattr(selfplay, "ending_chances", spy)
    cal.play(model, 40, 1, ("win-optimal",))
    assert judged and all(j is not None and j.model is model for j in judged)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--players", "1"], "R3"),
        (["--players", "3", "--positions", "5"], "at least"),
        (["--players", "3", "--map", "bogus"], "invalid choice"),
        (["--players", "3", "--map", "knots", "--knots", "0"], "--knots 0"),
        (["--players", "3", "--knots", "5000"], "--knots 5000"),
        (["--players", "7"], "no shipped model"),
        (["--players", "3", "--rules", "french"], "--rules french: no shipped model"),
        (["--players", "2", "--rules", "bogus"], "invalid choice"),
        (["--players", "3", "--model", "/nonexistent/m.bin"], "cannot read"),
    ],
)
def test_bad_input_is_one_line(argv: list[str], words: str, capsys) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit) as exit_:
        cal.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_a_model_of_other_players_is_refused(tmp_path, capsys) -> None:  # noqa: ANN001
    path = tmp_path / "m.bin"
    path.write_bytes(_model(2).to_bytes())
    with pytest.raises(SystemExit) as exit_:
        cal.main(["--players", "3", "--model", str(path)])
    assert exit_.value.code == 2
    assert "2-player model" in capsys.readouterr().err


def test_features_of_the_games_positions_are_the_models() -> None:
    positions, labels, games = cal.play(_model(2), 60, 2, ("simple", "greedy"))
    assert games >= 1 and len(positions) == len(labels) >= 60
    assert np.allclose(labels.sum(axis=1), 1.0)
    assert all(len(features(p)) == feature_count(2) for p in positions)


def test_plans_of_another_model_are_not_played() -> None:
    """optimal's plan cache is one per process: the games of one model are the same
    whether or not another model's games were played before them."""
    from harness.strategies import optimal

    a = _model(2, seed=11, spread=60.0)
    last = a.layers[-1]  # b: a's logits the other way round, a bot that plays to lose
    b = Model(2, (*a.layers[:-1], type(last)(-last.weights, -last.biases, last.shift)), 12)
    b = Model.from_bytes(b.to_bytes())
    optimal._PLANS.clear()
    fresh = cal.play(b, 80, 3, ("win-optimal",))
    optimal._PLANS.clear()
    cal.play(a, 80, 3, ("win-optimal",))  # its plans cached, then b on the same boards
    again = cal.play(b, 80, 3, ("win-optimal",))
    assert fresh[0] == again[0] and (fresh[1] == again[1]).all()


@pytest.mark.parametrize("polished", [True, False])
def test_the_command_says_whether_the_knots_were_polished(  # noqa: ANN001
    tmp_path, capsys, monkeypatch, polished: bool
) -> None:
    """A chance map whose fit stopped too far from its optimum is kept as fitted,
    rounded: its last digits may move with the libraries, and the command says so."""
    path = tmp_path / "in.bin"
    path.write_bytes(_model(3, seed=9).to_bytes())
    knots = (0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
    monkeypatch.setattr(cal, "fit_knots", lambda q, y, pieces: cal.FittedKnots(knots, polished))
    out = tmp_path / "out.bin"
    argv = ["--players", "3", "--model", str(path), "--positions", "100", "--map", "knots",
            "--knots", "5", "--seed", "4", "--out", str(out)]  # fmt: skip
    assert cal.main(argv) == 0
    printed = capsys.readouterr().out
    assert ("NOT polished" in printed) is (not polished)
    assert ("polished to the fit's optimum" in printed) is polished
    assert Model.from_bytes(out.read_bytes()).knots == knots
