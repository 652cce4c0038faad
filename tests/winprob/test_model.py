"""The model file: bytes round trip, and every damaged or foreign file refused in one line
(ModelError) before it is used."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from harness.game.rules import PRESETS
from harness.winprob import Model, ModelError, load, shipped_model
from harness.winprob.evaluator import model_name
from harness.winprob.model import MODELS, Layer, shipped_sums


def tiny_model(players: int = 2, seed: int = 0) -> Model:
    from harness.winprob import feature_count

    rng = np.random.default_rng(seed)
    n = feature_count(players)
    w1 = rng.integers(-2000, 2000, (8, n))
    w2 = rng.integers(-2000, 2000, (players, 8))
    layers = (
        Layer(w1, rng.integers(-5000, 5000, 8), 4),
        Layer(w2, rng.integers(-5000, 5000, players), 8),
    )
    return Model.from_bytes(Model(players, layers, 10).to_bytes())


def test_bytes_round_trip() -> None:
    m = tiny_model(3)
    data = m.to_bytes()
    back = Model.from_bytes(data)
    assert back.to_bytes() == data
    assert back.sha256 == hashlib.sha256(data).hexdigest()
    assert back.players == 3 and back.out_shift == 10
    rows = np.random.default_rng(1).integers(0, 20, (5, back.layers[0].weights.shape[1]))
    assert (back.logits(rows) == m.logits(rows)).all()


def test_a_flipped_byte_is_refused_by_its_sha256(tmp_path: Path) -> None:
    m = tiny_model()
    data = bytearray(m.to_bytes())
    path = tmp_path / "m.bin"
    path.write_bytes(bytes(data))
    assert load(path, m.sha256).sha256 == m.sha256
    data[40] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError) as err:
        load(path, m.sha256)
    text = str(err.value)
    assert "\n" not in text and "sha256" in text and str(path) in text


def test_a_wrong_checksum_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.bin"
    path.write_bytes(tiny_model().to_bytes())
    with pytest.raises(ModelError, match="not the shipped model"):
        load(path, "0" * 64)


@pytest.mark.parametrize("cut", [1, 4, 20, 100])
def test_a_truncated_file_is_refused(cut: int) -> None:
    data = tiny_model().to_bytes()
    with pytest.raises(ModelError) as err:
        Model.from_bytes(data[:-cut])
    assert "\n" not in str(err.value)


def test_extra_bytes_and_a_foreign_file_are_refused() -> None:
    data = tiny_model().to_bytes()
    with pytest.raises(ModelError, match="bytes after the last layer"):
        Model.from_bytes(data + b"\0")
    with pytest.raises(ModelError, match="HWP1"):
        Model.from_bytes(b"PK\3\4" + data[4:])


def test_a_missing_file_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as err:
        load(tmp_path / "none.bin")
    assert "\n" not in str(err.value)


def test_every_shipped_model_matches_its_line_in_sha256sums() -> None:
    for name, digest in shipped_sums().items():
        data = (MODELS / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
        found = re.fullmatch(r"winprob-(\d)p(?:-(.+))?\.bin", name)
        assert found, name
        players, preset = int(found[1]), found[2] or "official"
        assert preset in PRESETS, name
        assert model_name(players, preset) == name
        model = shipped_model(players, preset)
        assert model is not None and model.players == players
        assert model.layers[-1].weights.shape[0] == players


# -- the chance map (HWP2) ------------------------------------------------------------------
KNOTS = (0.02, 0.1, 0.15, 0.4, 0.41, 0.6, 0.9, 1.0)


def mapped_model(players: int = 3, knots: tuple[float, ...] = KNOTS) -> Model:
    from dataclasses import replace

    return Model.from_bytes(replace(tiny_model(players), knots=knots).to_bytes())


def test_a_chance_map_round_trips_and_a_model_without_one_keeps_its_bytes() -> None:
    plain = tiny_model(3)
    assert plain.to_bytes()[:4] == b"HWP1" and plain.knots == ()
    m = mapped_model()
    data = m.to_bytes()
    assert data[:4] == b"HWP2" and data[4 : -4 - 8 * len(KNOTS)] == plain.to_bytes()[4:]
    assert Model.from_bytes(data).knots == KNOTS and Model.from_bytes(data).to_bytes() == data


def test_the_chance_map_is_the_knots_line_divided_by_its_sum() -> None:
    plain, m = tiny_model(3), mapped_model()
    rows = np.random.default_rng(3).integers(0, 20, (200, plain.layers[0].weights.shape[1]))
    logits = plain.logits(rows)
    k = len(KNOTS) - 1
    for q, got in zip(plain.chances_of(logits), m.chances_of(logits), strict=True):
        g = np.interp(np.asarray(q), np.arange(k + 1) / k, KNOTS)
        assert np.allclose(got, g / g.sum(), rtol=1e-12, atol=1e-15)
        assert sum(got) == pytest.approx(1.0, abs=1e-12)
        # monotone: a seat given more by the network is given more by the map
        order = np.argsort(q, kind="stable")
        assert all(np.diff(np.asarray(got)[order]) >= -1e-15)


def test_a_straight_map_through_zero_changes_nothing_but_rounding() -> None:
    plain, m = tiny_model(4), mapped_model(4, tuple((k + 1e-9) / 5 for k in range(6)))
    rows = np.random.default_rng(4).integers(0, 20, (100, plain.layers[0].weights.shape[1]))
    logits = plain.logits(rows)
    assert np.allclose(plain.chances_of(logits), m.chances_of(logits), atol=1e-8)


@pytest.mark.parametrize(
    "knots, words",
    [
        ((0.1, 0.5, 0.4, 1.0), "must not fall"),
        ((0.0, 0.5, 1.0), "above 0"),
        ((0.1, float("nan"), 1.0), "finite"),
        ((0.1, float("inf")), "finite"),
        ((-0.1, 1.0), "above 0"),
    ],
)
def test_a_bad_chance_map_is_refused(knots: tuple[float, ...], words: str) -> None:
    from dataclasses import replace

    data = replace(tiny_model(), knots=knots).to_bytes()
    with pytest.raises(ModelError, match=words) as err:
        Model.from_bytes(data)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("count", [0, 1025, 2**32 - 1])
def test_a_chance_map_of_no_or_too_many_pieces_is_refused(count: int) -> None:
    data = bytearray(mapped_model().to_bytes())
    at = len(data) - 4 - 8 * len(KNOTS)
    data[at : at + 4] = count.to_bytes(4, "little")
    with pytest.raises(ModelError, match="intervals"):
        Model.from_bytes(bytes(data))


@pytest.mark.parametrize("cut", [1, 8, 12, 8 * len(KNOTS) + 4])
def test_a_truncated_chance_map_is_refused(cut: int) -> None:
    data = mapped_model().to_bytes()
    with pytest.raises(ModelError) as err:
        Model.from_bytes(data[:-cut])
    assert "\n" not in str(err.value)
    # an HWP1 file relabelled HWP2 has no map: refused too
    with pytest.raises(ModelError):
        Model.from_bytes(b"HWP2" + tiny_model().to_bytes()[4:])


def test_a_changed_model_changes_every_stored_key(monkeypatch) -> None:  # noqa: ANN001
    """A model retrained or added (its line in SHA256SUMS) must never let a run reuse or
    resume rows played by the model before: the engine digest, and so every chunk key and
    the run key, covers SHA256SUMS (no source digest sees a model file)."""
    from harness.tourney import load_config, plan

    settings = {"name": "m", "players": 2, "deals": 4, "seed": 1, "rules": "piko-blog"}
    config = load_config({**settings, "entrants": ["win-optimal", "optimal"]})
    before = (plan.engine_digest(), plan.run_key(config), [c.key for c in plan.chunks(config)])
    real = Path.read_bytes

    def retrained(self: Path) -> bytes:  # one hex digit of one model's line flipped
        data = real(self)
        if self.name != "SHA256SUMS":
            return data
        lines = data.split(b"\n")
        at = next(i for i, line in enumerate(lines) if line and not line.startswith(b"#"))
        lines[at] = (b"0" if lines[at][:1] != b"0" else b"1") + lines[at][1:]
        return b"\n".join(lines)

    plan.engine_digest.cache_clear()
    monkeypatch.setattr(Path, "read_bytes", retrained)
    try:
        after = (plan.engine_digest(), plan.run_key(config), [c.key for c in plan.chunks(config)])
        assert after[0] != before[0] and after[1] != before[1]
        assert not set(after[2]) & set(before[2])
    finally:
        monkeypatch.undo()
        plan.engine_digest.cache_clear()
    assert plan.engine_digest() == before[0]
