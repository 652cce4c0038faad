"""One training run: self-play positions, a fit to the results, fitted value iteration
sweeps on the exact turn backup, and the integer model.

Every random choice comes from the seed (the games' seeds, the tables, the network's
start and its minibatches), so a run repeats byte for byte on one machine: the same
model file, the same sha256 (tests/training checks it on a tiny run).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from harness.game.rules import Rules
from harness.training import backup
from harness.training.net import Net, cross_entropy
from harness.training.progress import Bar
from harness.training.quantize import dequantize, max_error, quantize
from harness.training.selfplay import POOLS, play_positions
from harness.winprob import Model, feature_count, features

#: The largest magnitude any feature takes: 40 worms in all (R1), 16 tiles, 16 numbers.
FEATURE_BOUND = 40


@dataclass(frozen=True)
class Settings:
    """What a run is: players, seed, positions, sweeps, the network and its fits."""

    players: int = 2
    seed: int = 1
    positions: int = 100_000
    sweeps: int = 4
    hidden: tuple[int, ...] = (64, 64)
    first_epochs: int = 20
    sweep_epochs: int = 8
    batch: int = 256
    rate: float = 1e-3
    decay: float = 1.0  # each sweep's refit: the rate times decay**sweep
    pool: str = "mixed"  # harness.training.selfplay.POOLS
    rules: str = "official"  # the preset the games are played and backed up under
    # The model the pool's win-optimal seats play with (None: the normal approximation).
    pool_model: Model | None = None
    # A warm start: the network begins as this model's (None: a seeded new network).
    init: Model | None = None


@dataclass
class Outcome:
    """The model and what the run measured."""

    model: Model
    data_sha256: str
    games_positions: int
    losses: list[float] = field(default_factory=list)
    backup_change: list[float] = field(default_factory=list)
    quantize_error: float = 0.0
    cpu_seconds: float = 0.0


def train(settings: Settings, bar: Bar | None = None) -> Outcome:
    """Run the training of ``settings`` (see the module's text)."""
    bar = bar if bar is not None else Bar()
    cpu = time.process_time()
    s = settings
    rules = Rules.preset(s.rules, s.players)
    rng = np.random.default_rng([s.seed, s.players])

    bar.phase("self-play positions", s.positions)
    positions, labels, _ = play_positions(s.players, s.positions, s.seed, pool=POOLS[s.pool],
                                          rules=s.rules, model=s.pool_model,
                                          tick=bar.tick)  # fmt: skip
    x = np.array([features(p) for p in positions], dtype=np.int64)
    y = np.array(labels, dtype=float)
    digest = hashlib.sha256(x.tobytes() + y.tobytes()).hexdigest()

    scale = np.maximum(np.abs(x).max(axis=0), 1).astype(float)
    if s.init is None:
        net = Net.new(feature_count(s.players), s.hidden, s.players, scale, rng)
    else:
        net = dequantize(s.init, scale)
    losses = [cross_entropy(net.chances(x), y)]
    if s.first_epochs:
        bar.phase("fit to the results", s.first_epochs)
        losses = [net.fit(x, y, epochs=s.first_epochs, rng=rng, batch=s.batch, rate=s.rate,
                          tick=bar.tick)]  # fmt: skip
    changes = []
    target = y
    for sweep in range(1, s.sweeps + 1):
        bar.phase(f"sweep {sweep}/{s.sweeps}: turn backups", len(positions))
        new = backup.targets(positions, net.chances, rules, tick=bar.tick)
        changes.append(float(np.abs(new - target).mean()))
        target = new
        bar.phase(f"sweep {sweep}/{s.sweeps}: refit", s.sweep_epochs)
        rate = s.rate * s.decay**sweep
        losses.append(net.fit(x, target, epochs=s.sweep_epochs, rng=rng, batch=s.batch,
                              rate=rate, tick=bar.tick))  # fmt: skip
    bar.end()
    model = quantize(net, s.players, np.full(x.shape[1], FEATURE_BOUND))
    model = Model.from_bytes(model.to_bytes())  # with its sha256
    error = max_error(net, model, x[: min(len(x), 20_000)])
    return Outcome(
        model=model,
        data_sha256=digest,
        games_positions=len(positions),
        losses=losses,
        backup_change=changes,
        quantize_error=error,
        cpu_seconds=time.process_time() - cpu,
    )


def entropy_floor(targets: np.ndarray) -> float:
    """The cross-entropy a perfect fit would reach (the targets' own entropy)."""
    return cross_entropy(targets, targets)
