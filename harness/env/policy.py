"""A trained policy as a harness strategy: the same observation both ways.

A policy is any callable ``policy(observation, action_mask) -> action``: numpy, torch,
a lookup table. :class:`PolicyStrategy` asks it every question the engine asks
(``pick``, ``stop``, ``claim``) with the observation and mask the environments show in
that phase (:mod:`harness.env.encoding`, computed from the strategy's own view), so a
policy trained in :mod:`harness.env.gym` or :mod:`harness.env.vector` plays a
tournament exactly as it played there. A file like this enters ``harness tourney`` by
reference (``bots/agent.py:Agent``)::

    from harness.env.policy import PolicyStrategy

    class Agent(PolicyStrategy):
        name = "agent"

        def __init__(self, weights: str = "agent.npz"):
            net = load(weights)                      # your model
            super().__init__(lambda obs, mask: net.best(obs, mask))

or, from Python, ``as_strategy(policy, name="agent")`` gives an instance for
``play_game``, ``run_tournament`` or an environment's opponents.

A tournament reuses stored games by the strategy's code and parameters: weights read
from another file are not part of them. Keep the weights in the strategy's own file
(``examples/rl/agent.py`` does), or name them by a digest parameter, so that new
weights are never mistaken for old games.

An action the mask does not allow is the seat's forfeit, in one line naming the action
and the legal ones, as any strategy's illegal answer is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from harness.env import encoding
from harness.env.encoding import CLAIM, FIRST_CLAIM, PICK, STOP, STOP_OR_ROLL, action_name
from harness.env.single import as_action
from harness.game.rules import TILES
from harness.game.strategy import Claim, Strategy, View

Policy = Callable[[np.ndarray, np.ndarray], Any]


class PolicyStrategy(Strategy):
    """A strategy that asks ``policy(observation, action_mask)`` every question.

    Subclass it (set ``name``, build the policy in ``__init__``) to enter a tournament
    by file reference, or override :meth:`act` instead of passing a callable. The
    observation and mask arrays are reused from question to question: copy them to keep
    them.
    """

    name = "policy"

    def __init__(self, policy: Policy | None = None) -> None:
        self._policy = policy
        self._obs = np.zeros(encoding.OBS_SIZE, np.float32)
        self._mask = np.zeros(encoding.ACTIONS, np.int8)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> Any:
        """The action for this observation (the policy given, unless overridden)."""
        if self._policy is None:
            raise NotImplementedError("give PolicyStrategy a policy, or override act()")
        return self._policy(observation, action_mask)

    def _ask(self, view: View, phase: int) -> int:
        encoding.encode(view, phase, self._obs)
        legal = encoding.mask(view, phase, self._mask)
        answer = self.act(self._obs, legal)
        action = as_action(answer)
        if action is None or not 0 <= action < encoding.ACTIONS or not legal[action]:
            allowed = ", ".join(action_name(int(a)) for a in np.flatnonzero(legal))
            shown = action_name(action) if action is not None else repr(answer)[:60]
            raise ValueError(
                f"the policy answered {shown} to {encoding.PHASES[phase]}; legal: {allowed}"
            )
        return action

    def pick(self, view: View) -> int:
        return self._ask(view, PICK) + 1

    def stop(self, view: View) -> bool:
        return self._ask(view, STOP_OR_ROLL) == STOP

    def claim(self, view: View, choices: Sequence[Claim]) -> Claim:
        tile = self._ask(view, CLAIM) - FIRST_CLAIM + TILES[0]
        return next(c for c in choices if c.tile == tile)


def as_strategy(policy: Policy, name: str = "policy") -> PolicyStrategy:
    """An instance playing ``policy``, shown as ``name`` (one instance per seat)."""
    strategy = PolicyStrategy(policy)
    strategy.name = name  # type: ignore[misc] - an instance's own display name
    return strategy


__all__ = ["Policy", "PolicyStrategy", "as_strategy"]
