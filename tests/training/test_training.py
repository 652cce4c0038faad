"""The training: a tiny run repeats byte for byte from its seed; the turn backup's
pieces against the exact turn programme; the quantizer's bounds; the command's errors."""

from __future__ import annotations

import hashlib
import io
import random

import numpy as np
import pytest

from harness.analysis.turn import Payoff, solve, solve_arrays
from harness.game.rules import Rules
from harness.training import backup
from harness.training.__main__ import main
from harness.training.net import Net
from harness.training.progress import Bar
from harness.training.quantize import QuantizeError, dequantize, max_error, quantize
from harness.training.run import Settings, train
from harness.training.selfplay import ModelWinOptimal, play_positions
from harness.winprob import Model, Position, feature_count, features, shipped_model

TINY = Settings(players=2, seed=3, positions=150, sweeps=1, hidden=(8,), first_epochs=2,
                sweep_epochs=1)  # fmt: skip


def _quiet() -> Bar:
    return Bar(io.StringIO())


def test_a_tiny_run_repeats_byte_for_byte() -> None:
    one = train(TINY, _quiet())
    two = train(TINY, _quiet())
    assert one.model.to_bytes() == two.model.to_bytes()
    assert one.data_sha256 == two.data_sha256
    other = train(Settings(**{**TINY.__dict__, "seed": 4}), _quiet())
    assert other.model.to_bytes() != one.model.to_bytes()
    assert one.quantize_error < 1e-2


def test_outcomes_match_the_exact_programme() -> None:
    rng = random.Random(7)
    for _ in range(3):
        stop = tuple(None if s < 21 else rng.random() for s in range(41))
        payoff = Payoff(stop, rng.random() * 0.3)
        ended, bust = solve(payoff).outcomes()
        value, _, stops = solve_arrays(payoff)
        ended2, bust2 = backup.outcomes(value, stops)
        assert abs(bust - bust2) < 1e-12
        assert all(abs(ended.get(s, 0.0) - ended2[s]) < 1e-12 for s in range(41))
        assert abs(sum(ended.values()) + bust - 1.0) < 1e-12


def _uniform(players: int):  # noqa: ANN202
    return lambda rows: np.full((len(rows), players), 1.0 / players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_backups_are_chances(players: int) -> None:
    rules = Rules(players=players)
    stacks = tuple((21 + k,) for k in range(players))
    grill = tuple(t for t in range(25, 37))
    positions = [Position.of(grill, stacks, m) for m in range(players)]
    t = backup.targets(positions, _uniform(players), rules)
    assert np.allclose(t.sum(axis=1), 1.0)
    assert (t >= 0).all()
    # the same board seen from each mover, seats rotated from it: the same row
    assert np.allclose(t, t[0])


def test_the_backup_of_a_last_tile_is_exact() -> None:
    # 2 players, only 36 left, seat 1 to move with no tile; seat 0 holds 33 (4 worms).
    # Seat 1's turn ends: claiming 36 at 36+ (4-4, the highest tile wins, R11: 1), a
    # steal of 33 at exactly 33 (0-4, 36 still up: the model's 1/2), or a bust (no tile
    # to return, and official R9 turns nothing without one: the model's 1/2).
    p = Position.of((36,), ((33,), ()), 1)
    t = backup.targets([p], _uniform(2), Rules(players=2))[0]
    stop = tuple(1.0 if s >= 36 else 0.5 if s == 33 else None for s in range(41))
    best = solve(Payoff(stop, 0.5)).start
    assert t[0] == pytest.approx(best, abs=1e-12)  # t[0]: the mover's (seat 1's)
    assert t[1] == pytest.approx(1.0 - best, abs=1e-12)
    assert 0.5 < best < 1.0


def test_quantizing_checks_its_bounds() -> None:
    rng = np.random.default_rng(0)
    n = feature_count(2)
    net = Net.new(n, (8,), 2, np.ones(n), rng)
    rows = np.array([features(Position.of((21, 30), ((22,), (33,)), 0))])
    model = quantize(net, 2, np.full(n, 40))
    assert max_error(net, model, rows) < 1e-3
    net.biases[-1][0] = 1e6  # does not fit int32 with its fraction bits
    with pytest.raises(QuantizeError, match="int32"):
        quantize(net, 2, np.full(n, 40))


def _tiny_model() -> Model:
    return train(TINY, _quiet()).model


def test_a_warm_start_begins_as_its_model() -> None:
    model = _tiny_model()
    rows = np.array([features(Position.of((21, 30, 36), ((22,), (33, 25)), 1))])
    scale = np.arange(1.0, feature_count(2) + 1)  # any scale: folded into the first layer
    net = dequantize(model, scale)
    again = quantize(net, 2, np.full(feature_count(2), 40))
    assert again.to_bytes() == model.to_bytes()
    assert max_error(net, model, rows) < 1e-3
    # No first fit and no sweeps: the run's model is the file it started from.
    same = train(Settings(**{**TINY.__dict__, "first_epochs": 0, "sweeps": 0, "init": model}),
                 _quiet())  # fmt: skip
    assert same.model.to_bytes() == model.to_bytes()
    moved = train(Settings(**{**TINY.__dict__, "first_epochs": 0, "init": model}), _quiet())
    assert moved.model.to_bytes() != model.to_bytes()


def test_the_pool_model_plays_the_win_optimal_seats() -> None:
    model = shipped_model(2)  # plays otherwise than the normal approximation
    assert model is not None
    pool = ("win-optimal",)
    pinned, pinned_labels, _ = play_positions(2, 60, 5, pool=pool)
    played, played_labels, _ = play_positions(2, 60, 5, pool=pool, model=model)
    again, again_labels, _ = play_positions(2, 60, 5, pool=pool, model=model)
    assert (played, played_labels) == (again, again_labels)
    assert (played, played_labels) != (pinned, pinned_labels)
    seat = ModelWinOptimal(model)
    assert seat.name == "win-optimal" and seat.model is model
    run = Settings(**{**TINY.__dict__, "pool": "self", "pool_model": model})
    one, two = train(run, _quiet()), train(run, _quiet())
    assert one.model.to_bytes() == two.model.to_bytes()
    assert one.data_sha256 == two.data_sha256 != train(TINY, _quiet()).data_sha256


def test_a_preset_is_trained_on_its_own_games_and_backups(monkeypatch) -> None:  # noqa: ANN001
    """``rules``: the games are played and every turn backed up under the preset (a
    piko-blog model learns piko-blog's endings), and the run repeats byte for byte."""
    run = Settings(**{**TINY.__dict__, "rules": "piko-blog"})
    seen = []
    targets = backup.targets

    def spy(positions, chances, rules, **kw):  # noqa: ANN001, ANN003, ANN202
        seen.append(rules)
        return targets(positions, chances, rules, **kw)

    monkeypatch.setattr(backup, "targets", spy)
    one, two = train(run, _quiet()), train(run, _quiet())
    assert seen == [Rules.preset("piko-blog", 2)] * 2
    assert one.model.to_bytes() == two.model.to_bytes()
    positions, labels, _ = play_positions(2, TINY.positions, TINY.seed, rules="piko-blog")
    x = np.array([features(p) for p in positions], dtype=np.int64)
    y = np.array(labels, dtype=float)
    assert one.data_sha256 == hashlib.sha256(x.tobytes() + y.tobytes()).hexdigest()
    assert one.data_sha256 != train(TINY, _quiet()).data_sha256


def test_a_presets_model_is_named_as_it_ships(tmp_path, monkeypatch, capsys) -> None:  # noqa: ANN001
    monkeypatch.chdir(tmp_path)
    argv = ["--rules", "piko-blog", "--positions", "60", "--sweeps", "0", "--epochs", "1",
            "--hidden", "4"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "under the piko-blog rules" in printed
    assert "winprob-2p-piko-blog.bin" in printed
    assert (tmp_path / "winprob-2p-piko-blog.bin").exists()


def test_model_files_on_the_command_line(tmp_path, capsys) -> None:  # noqa: ANN001
    model = _tiny_model()
    path = tmp_path / "m.bin"
    path.write_bytes(model.to_bytes())
    out = tmp_path / "out.bin"
    argv = ["--positions", "100", "--sweeps", "0", "--epochs", "0", "--hidden", "8",
            "--init", str(path), "--pool-model", str(path), "--pool", "self",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert f"--pool-model: sha256 {model.sha256}" in printed
    assert f"--init: sha256 {model.sha256}" in printed
    assert out.read_bytes() == model.to_bytes()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--epochs", "0"], "--init"),
        (["--pool-model", "/nonexistent/m.bin"], "--pool-model"),
        (["--init", "/nonexistent/m.bin"], "--init"),
        (["--init", __file__], "unreadable"),
    ],
)
def test_bad_model_input_is_one_line(argv: list[str], words: str, capsys) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_a_model_of_other_players_is_refused(tmp_path, capsys) -> None:  # noqa: ANN001
    path = tmp_path / "m.bin"
    path.write_bytes(_tiny_model().to_bytes())
    with pytest.raises(SystemExit) as exit_:
        main(["--players", "3", "--init", str(path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2-player model" in err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--players", "1"], "R3"),
        (["--players", "9"], "R3"),
        (["--positions", "0"], "at least"),
        (["--hidden", "a,b"], "widths"),
        (["--bogus"], "unrecognized"),
        (["--rules", "nosuch"], "--rules"),
    ],
)
def test_bad_input_is_one_line(argv: list[str], words: str, capsys) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err
