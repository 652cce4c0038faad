"""The PettingZoo AEC environment: every seat an agent (the ``rl`` extra).

::

    from harness.env.aec import env
    game = env(players=3, rules="french", reward="win", render_mode="ansi")
    game.reset(seed=7)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        action = None if terminated or truncated else policy(obs["observation"], obs["action_mask"])
        game.step(action)

Agents are ``seat_0`` .. ``seat_{n-1}`` (seat 0 starts, R3). ``agent_selection`` is the
seat the engine asks next; a seat keeps it for every question of its turn (pick, stop or
roll on, which claim). Observations are the encoding of :mod:`harness.env.encoding` with
the mask; a seat that is not asked sees the board and an empty mask. Episode e after
``reset(seed=S)`` is deal e of a tournament seeded S (its deal seed, duplicate dice by
default). The game ends for every agent at once: ``terminations`` when the grill is empty
(R10), ``truncations`` at the turn cap. Rewards and illegal actions: docs/rl.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.env import encoding
from harness.env._extra import pettingzoo_env, spaces
from harness.env.game import (
    DONE,
    IllegalAction,
    Schedule,
    SteppedGame,
    board_of,
    check_episode,
    draw,
    final_reward,
    margin,
)
from harness.env.gym import observation_space
from harness.env.setup import SETUP_KEYS, EnvSetup
from harness.env.single import as_action, board_view
from harness.game.record import RecordBuilder
from harness.game.rules import Rules

# What every-seat-an-agent plays by: no agent seat to choose, no opponents, Python only.
USES = SETUP_KEYS - {"seat", "seating", "settings"}


class PickominoAEC(pettingzoo_env()):  # type: ignore[misc]
    """Pickomino for 2-7 agents, one per seat, in PettingZoo's AEC API."""

    metadata = {"render_modes": ["ansi"], "name": "pickomino_v0", "is_parallelizable": False}

    def __init__(
        self,
        players: int = 2,
        rules: Any = "official",
        *,
        setup: EnvSetup | None = None,
        **keywords: Any,
    ) -> None:
        """``setup`` (an :class:`~harness.env.setup.EnvSetup`) or its keywords, not both:
        ``dice``, ``reward``, ``illegal``, ``illegal_reward``, ``max_turns``, ``record`` and
        ``render_mode`` (every seat is an agent: no seat to choose, no opponents' settings,
        stepped in Python)."""
        super().__init__()
        held = EnvSetup.of("PickominoAEC", USES, setup, **keywords)
        self.rules = Rules.coerce(rules, players=players)
        n = self.rules.players
        self.schedule = Schedule(n, seat=0, dice=held.dice)  # every seat an agent: one order
        self.setup = held
        self.reward, self.illegal = held.reward, held.illegal
        self.illegal_reward = held.illegal_reward
        self.max_turns, self.record, self.render_mode = (
            held.max_turns,
            held.record,
            held.render_mode,
        )
        self.possible_agents = [f"seat_{i}" for i in range(n)]
        self._spaces = {a: observation_space() for a in self.possible_agents}
        self._actions = {a: spaces.Discrete(encoding.ACTIONS) for a in self.possible_agents}
        self._seed: int | None = None
        self._next = 0
        self.game: SteppedGame | None = None

    def observation_space(self, agent: str) -> Any:
        return self._spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self._actions[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed, self._next = int(seed), 0
        elif self._seed is None:
            self._seed = int(np.random.default_rng().integers(0, 2**63 - 1))
        episode = self._next
        if options and "episode" in options:
            episode = int(options["episode"])
        elif options and "deal" in options:
            episode = int(options["deal"])
        self._next = episode + 1
        ep = self.schedule.episode(self._seed, check_episode(episode, "reset"))
        self.episode, self.deal = episode, ep.deal
        names = list(self.possible_agents)
        self._builder = RecordBuilder(self.rules, names) if self.record else None
        if self._builder is not None:
            self._builder.record["env"] = {"seed": self._seed, "deal": ep.deal, "dice": ep.dice}
        self.game = SteppedGame(
            [None] * len(names),
            self.rules,
            ep.dice_source(),
            names=names,
            observer=self._builder,
            max_turns=self.max_turns,
            seed=ep.game_seed,
        )
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._margins = [0.0] * len(names)
        self.game.advance()
        self.infos = {a: self._info() for a in self.agents}
        self._after_play()

    def _info(self) -> dict[str, Any]:
        return {"seed": self._seed, "episode": self.episode, "deal": self.deal}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None
        seat = self.possible_agents.index(agent)
        if seat == game.deciding and game.phase != DONE:
            view, phase = game.views[seat], game.phase
        else:
            view, phase = board_view(game, seat), DONE
        return {
            "observation": encoding.encode(view, phase),
            "action_mask": encoding.mask(view, phase),
        }

    def step(self, action: Any) -> None:
        if self.game is None:  # PettingZoo's own wording (its OrderEnforcingWrapper)
            raise AssertionError("reset() needs to be called before step.")
        if not self.agents:  # every agent stepped out: PettingZoo warns and does nothing
            from pettingzoo.utils.env_logger import EnvLogger

            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        plain = as_action(action)
        if plain is None or not game.legal(plain):
            if self.illegal == "raise":
                raise IllegalAction(
                    f"{agent}: action {action!r} is not legal now "
                    f"(phase {encoding.PHASES[game.phase]}); see the action_mask"
                )
            self.rewards[agent] = self.illegal_reward
            self.infos[agent] = {**self._info(), "illegal_action": True}
            self._accumulate_rewards()
            return
        game.act(plain)
        if self.reward == "swing":
            for seat, a in enumerate(self.possible_agents):
                now = margin(game.scores, seat)
                self.rewards[a] = now - self._margins[seat]
                self._margins[seat] = now
        if game.phase == DONE and game.finished:
            result = game.outcome()
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] += final_reward(self.reward, result, seat)
        self.infos = {a: self._info() for a in self.agents}
        self._after_play()
        self._accumulate_rewards()

    def _after_play(self) -> None:
        """Whose question is next, or the end for everyone."""
        game = self.game
        assert game is not None
        if game.phase != DONE:
            self.agent_selection = self.possible_agents[game.deciding]
            return
        ended = self.terminations if game.finished else self.truncations
        result = game.outcome()
        for a in self.agents:
            ended[a] = True
            self.infos[a].update(
                scores=result.scores, ranks=result.ranks, turns=result.turns, status=result.status
            )
        if self._builder is not None:
            record = self._builder.finish(result)
            for a in self.agents:
                self.infos[a]["record"] = record
        if getattr(self, "agent_selection", None) not in self.agents:
            self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return draw(board_of(self.game), self.possible_agents)

    def close(self) -> None:
        self.game = None


def env(**kwargs: Any) -> PickominoAEC:
    """A new AEC environment (PettingZoo's ``env()`` convention); keywords as
    :class:`PickominoAEC`."""
    return PickominoAEC(**kwargs)


__all__ = ["PickominoAEC", "env"]
