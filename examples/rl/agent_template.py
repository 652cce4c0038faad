"""A Pickomino agent trained by examples/rl/train.py:
NOTE.

A linear policy on harness.env.encoding's observation (one score per action, the best
legal one played), written out by the trainer with its weights in this file's own source,
so that a tournament's code identity covers them. Enter it by reference:
``examples/rl/agent.py:TrainedAgent``.
"""

from __future__ import annotations

import base64

import numpy as np

from harness.env.encoding import ACTIONS, OBS_SIZE
from harness.env.policy import PolicyStrategy

WEIGHTS = "WEIGHTS"


class TrainedAgent(PolicyStrategy):
    """A linear policy trained by evolution strategies (examples/rl/train.py)."""

    name = "trained-agent"

    def __init__(self) -> None:
        theta = np.frombuffer(base64.b64decode(WEIGHTS), "<f4").astype(np.float64)
        self.w = theta.reshape(OBS_SIZE + 1, ACTIONS)
        super().__init__()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        values = observation @ self.w[:-1] + self.w[-1]
        return int(np.argmax(np.where(action_mask == 1, values, -np.inf)))
