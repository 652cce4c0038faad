"""A small float network in numpy, fitted to soft targets: the model before quantizing.

Inputs are :func:`harness.winprob.features` (integers) divided by a fixed per-input
scale (folded into the first layer when quantizing); ReLU hidden layers; one output per
seat (seats from the one to move); softmax cross-entropy against soft targets (result
shares or turn backups, which sum to one). Adam, seeded, minibatches in a seeded order:
the same data and seed give the same weights on one machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Net:
    """Weights (out x in) and biases per layer; ``scale`` divides the inputs."""

    scale: np.ndarray
    weights: list[np.ndarray]
    biases: list[np.ndarray]
    # Adam's moments, kept across fits (fitted value iteration warm-starts each refit).
    moments: list[np.ndarray] = field(default_factory=list)
    steps: int = 0

    @classmethod
    def new(cls, inputs: int, hidden: Sequence[int], outputs: int, scale: np.ndarray,
            rng: np.random.Generator) -> Net:  # fmt: skip
        sizes = [inputs, *hidden, outputs]
        weights, biases = [], []
        for a, b in zip(sizes, sizes[1:], strict=False):
            weights.append(rng.normal(0.0, np.sqrt(2.0 / a), (b, a)))
            biases.append(np.zeros(b))
        weights[-1] *= 0.1  # start near equal chances
        return cls(np.asarray(scale, dtype=float), weights, biases)

    def forward(self, x: np.ndarray) -> list[np.ndarray]:
        """Every layer's activations (the last: logits) of integer feature rows."""
        acts = [np.asarray(x, dtype=float) / self.scale]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = acts[-1] @ w.T + b
            acts.append(np.maximum(h, 0.0) if i < last else h)
        return acts

    def chances(self, x: np.ndarray) -> np.ndarray:
        """Softmax of the logits: each row's chances, seats from the one to move."""
        return softmax(self.forward(x)[-1])

    def fit(
        self,
        x: np.ndarray,
        targets: np.ndarray,
        *,
        epochs: int,
        rng: np.random.Generator,
        batch: int = 256,
        rate: float = 1e-3,
        tick: Callable[[int], None] | None = None,
    ) -> float:
        """Adam on the cross-entropy to ``targets``; the last epoch's mean loss."""
        params = [*self.weights, *self.biases]
        if not self.moments:
            self.moments = [np.zeros_like(p) for p in params for _ in (0, 1)]
        b1, b2, eps = 0.9, 0.999, 1e-8
        n = len(x)
        loss = 0.0
        for _ in range(epochs):
            order = rng.permutation(n)
            loss = 0.0
            for start in range(0, n, batch):
                rows = order[start : start + batch]
                grads, part = self._grads(x[rows], targets[rows])
                loss += part * len(rows)
                self.steps += 1
                t = self.steps
                for k, (p, g) in enumerate(zip(params, grads, strict=True)):
                    m, v = self.moments[2 * k], self.moments[2 * k + 1]
                    m *= b1
                    m += (1 - b1) * g
                    v *= b2
                    v += (1 - b2) * g * g
                    p -= rate * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
            loss /= n
            if tick is not None:
                tick(1)
        return loss

    def _grads(self, x: np.ndarray, t: np.ndarray) -> tuple[list[np.ndarray], float]:
        acts = self.forward(x)
        p = softmax(acts[-1])
        loss = float(-(t * np.log(np.maximum(p, 1e-12))).sum(axis=1).mean())
        delta = (p - t) / len(x)
        gw: list[np.ndarray] = []
        gb: list[np.ndarray] = []
        for i in range(len(self.weights) - 1, -1, -1):
            gw.append(delta.T @ acts[i])
            gb.append(delta.sum(axis=0))
            if i:
                delta = (delta @ self.weights[i]) * (acts[i] > 0)
        return [*reversed(gw), *reversed(gb)], loss


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def cross_entropy(p: np.ndarray, t: np.ndarray) -> float:
    return float(-(t * np.log(np.maximum(p, 1e-12))).sum(axis=1).mean())
