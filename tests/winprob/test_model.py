"""The model file: bytes round trip, and every damaged or foreign file refused in one line
(ModelError) before it is used."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

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
        players = int(name.removeprefix("winprob-").removesuffix("p.bin"))
        assert model_name(players) == name
        model = shipped_model(players)
        assert model is not None and model.players == players
        assert model.layers[-1].weights.shape[0] == players
