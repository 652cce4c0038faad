"""The Gymnasium environment: one agent against any harness strategies (the ``rl`` extra).

::

    from harness.env.gym import PickominoEnv
    env = PickominoEnv(["greedy", "tactician"], rules="official", reward="margin")
    obs, info = env.reset(seed=7)          # the tournaments' seed: deal 0, seat order 0
    obs, reward, terminated, truncated, info = env.step(action)

The agent is table entrant 0 and the opponents the others, each a built-in name, a
reference (``"bots/mine.py:MyBot"``) or an instance (a trained policy through
:mod:`harness.env.policy`). ``seat="rotate"`` (the default) plays each deal in every seat
order of the ``seating`` design, as a tournament does; ``seat=1`` fixes the agent's
seat. ``reset(seed=S)`` starts the run of deals seeded S (the seed of a tournament
config) at its first episode, a plain ``reset()`` goes on to the next one, and
``reset(options={"episode": e})`` or ``{"deal": d, "order": k}`` picks one. Observations,
the action space, rewards and what an illegal action does: docs/rl.md.

``engine="auto"`` (the default) steps the game in C when every opponent is a built-in
with a native version and the extension is built (:mod:`harness.env.vector` with one
game), else in Python (:mod:`harness.env.single`); both play the same games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.env._extra import gymnasium, spaces
from harness.env.encoding import ACTIONS, OBS_SIZE
from harness.env.game import check_episode
from harness.env.setup import SETUP_KEYS, EnvSetup
from harness.env.single import SingleAgent
from harness.game.engines import ENGINES


def observation_space() -> Any:
    """The observation: the encoded vector and the action mask (docs/rl.md)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
        }
    )


class PickominoEnv(gymnasium.Env):
    """Pickomino for one agent; the other seats are harness strategies."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        opponents: Sequence[Any] | str = ("greedy",),
        rules: Any = "official",
        *,
        setup: EnvSetup | None = None,
        **keywords: Any,
    ) -> None:
        """``setup`` (an :class:`~harness.env.setup.EnvSetup`) or its keywords, not both:
        ``seat``, ``seating``, ``dice``, ``reward``, ``illegal``, ``illegal_reward``,
        ``max_turns``, ``record``, ``render_mode`` and the seat settings (``settings`` or
        ``engine``, ``move_time``, ``game_time``, ``isolation``)."""
        held = EnvSetup.of("PickominoEnv", SETUP_KEYS, setup, **keywords)
        limits = held.settings.limits
        self._core: Any = None
        if held.engine != "python" and not held.record:
            from harness.env.vector import NativeSingle, native_problem

            problem = native_problem(opponents, limits)
            if problem is None:
                self._core = NativeSingle(opponents, rules, held)
            elif held.engine == "native":
                raise ValueError(f"engine native: {problem}")
        elif held.engine == "native":
            raise ValueError("engine native: records are kept by the Python engine only")
        if self._core is None:
            self._core = SingleAgent(opponents, rules, setup=held.without("render_mode"))
        self.engine = "python" if isinstance(self._core, SingleAgent) else "native"
        self.setup = held
        self.render_mode = held.render_mode
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(ACTIONS)
        self._seed: int | None = None
        self._next = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._next = int(seed), 0
        elif self._seed is None:  # never seeded: a seed from Gymnasium's own generator
            self._seed = int(self.np_random.integers(0, 2**63 - 1))
        episode = self._next
        if options and "episode" in options:
            episode = int(options["episode"])
        elif options and "deal" in options:
            orders = len(self._core.schedule.orders)
            episode = int(options["deal"]) * orders + int(options.get("order", 0)) % orders
        check_episode(episode, "reset")
        self._next = self._core.reset(self._seed, episode) + 1
        return self._observation(), self._core.info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._core.ended:  # Gymnasium's error for its order of calls
            raise gymnasium.error.ResetNeeded(
                "step() after the episode ended (terminated or truncated) or before reset(): "
                "call reset() first"
            )
        reward, terminated, truncated, illegal = self._core.step(action)
        info = self._core.info()
        info["illegal_action"] = illegal
        return self._observation(), float(reward), terminated, truncated, info

    def _observation(self) -> dict[str, np.ndarray]:
        obs, legal = self._core.observe()
        return {"observation": obs, "action_mask": legal}

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (what sb3-contrib's MaskablePPO asks for)."""
        return self._core.observe()[1].astype(bool)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return self._core.render()

    def close(self) -> None:
        """End the opponents' seat processes, if any (under the seat settings)."""
        close = getattr(self._core, "close", None)
        if close is not None:
            close()
        super().close()


ENV_ID = "harness/Pickomino-v0"
# gymnasium.make("harness.env.gym:harness/Pickomino-v0", ...) imports this first (docs/rl.md)
if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=PickominoEnv)

__all__ = ["ENGINES", "ENV_ID", "PickominoEnv", "observation_space"]
