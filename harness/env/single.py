"""One agent against harness strategies, episode by episode: what the Gymnasium
environment (:mod:`harness.env.gym`) and the vector environment's Python fallback
(:mod:`harness.env.vector`) both step.

The agent is table entrant 0; the other entrants are the given strategies, built afresh
every episode (an instance given is reused), held under the seat settings' limits as a
tournament holds its seats (:mod:`harness.env.opponents`). Which game episode e is,
rewards and the illegal-action rule: :mod:`harness.env.game`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from harness.env import encoding
from harness.env.game import (
    DONE,
    IllegalAction,
    Schedule,
    SteppedGame,
    board_of,
    draw,
    final_reward,
    margin,
)
from harness.env.opponents import Opponents
from harness.env.setup import SETUP_KEYS, EnvSetup
from harness.errors import HarnessError
from harness.game.record import RecordBuilder
from harness.game.rules import Rules

MAX_SKIPPED = 100  # episodes in a row that may end before the agent's first question
USES = SETUP_KEYS - {"render_mode"}  # what an agent's games play by (it draws on request)


class SingleAgent:
    """Entrant 0 asked through :meth:`step`; the others played by their strategies."""

    def __init__(
        self,
        opponents: Sequence[Any],
        rules: Rules | str | dict | None = "official",
        *,
        setup: EnvSetup | None = None,
        **keywords: Any,
    ) -> None:
        """``setup`` (an :class:`~harness.env.setup.EnvSetup`) or its keywords, not both:
        every key but ``render_mode``; of the seat settings, the limits the opponents play
        under (this agent's games are stepped in Python whatever the engine says)."""
        held = EnvSetup.of("SingleAgent", USES, setup, **keywords)
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        self.rules = Rules.coerce(rules, players=len(opponents) + 1)
        seat = None if held.seat == "rotate" else held.seat
        self.schedule = Schedule(self.rules.players, seat, held.seating, held.dice)
        self.schedule.orders  # noqa: B018 - a bad seating is one line now, not at reset
        self.setup = held
        self.reward, self.illegal = held.reward, held.illegal
        self.illegal_reward = held.illegal_reward
        self.max_turns, self.record = held.max_turns, held.record
        self.game: SteppedGame | None = None
        self.names: list[str] = []
        self.episode = self.seed = 0
        self.seat = 0
        self._margin = 0.0
        self._builder: RecordBuilder | None = None
        # Last: the one step that may start processes (the opponents' seats under limits).
        self.opponents = Opponents(opponents, held.settings.limits)

    def close(self) -> None:
        """End the opponents' seat processes, if any (under limits)."""
        self.opponents.close()

    def reset(self, seed: int, episode: int, stride: int = 1) -> int:
        """Start episode ``episode`` of the run seeded ``seed`` and play to the agent's
        first question. An episode that ends before the agent is asked anything (the turn
        cap, an opponent's forfeit) is skipped for episode + ``stride``; returns the
        episode begun."""
        for e in range(episode, episode + MAX_SKIPPED * stride, stride):
            self._begin(seed, e)
            assert self.game is not None
            if self.game.phase != DONE:
                return e
        raise HarnessError(
            f"{MAX_SKIPPED} episodes from {episode} on all ended before the agent was asked "
            f"anything (last: {self.game.outcome().status})"
        )

    def _begin(self, seed: int, episode: int) -> None:
        ep = self.schedule.episode(seed, episode)
        self.seed, self.episode, self.seat = seed, episode, ep.agent_seat
        made = [None, *self.opponents.for_episode()]
        names = ["agent", *self.opponents.names]
        strategies = [made[e] for e in ep.seats]
        self.names = [names[e] for e in ep.seats]
        self._builder = None
        if self.record:
            self._builder = RecordBuilder(self.rules, self.names)
            self._builder.record["env"] = {
                "seed": seed,
                "episode": episode,
                "deal": ep.deal,
                "order": ep.order,
                "dice": ep.dice,
            }
        self.game = SteppedGame(
            strategies,
            self.rules,
            ep.dice_source(),
            names=self.names,
            observer=self._builder,
            max_turns=self.max_turns,
            seed=ep.game_seed,
        )
        self._margin = 0.0
        self.game.advance()
        self.deal, self.order = ep.deal, ep.order

    @property
    def ended(self) -> bool:
        """No question is pending: not reset yet, or the episode ended."""
        return self.game is None or self.game.phase == DONE

    def observe(
        self, obs: np.ndarray | None = None, legal: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The agent's observation and mask (after the end: the final board, no action)."""
        game = self.game
        assert game is not None
        phase = game.phase
        view = game.views[self.seat]
        if phase == DONE:
            view = board_view(game, self.seat)
        return encoding.encode(view, phase, obs), encoding.mask(view, phase, legal)

    def step(self, action: Any) -> tuple[float, bool, bool, bool]:
        """Answer the pending question: (reward, terminated, truncated, illegal).

        An action the mask does not allow changes nothing: with ``illegal="penalty"`` it
        pays ``illegal_reward`` and the same question is asked again; with ``"raise"`` it
        raises :class:`IllegalAction`.
        """
        game = self.game
        if game is None or game.phase == DONE:
            raise ValueError("step() after the episode ended (or before reset()): reset first")
        plain = as_action(action)
        if plain is None or not game.legal(plain):
            if self.illegal == "raise":
                raise IllegalAction(
                    f"action {action!r} is not legal now (phase {encoding.PHASES[game.phase]}); "
                    "see the observation's action_mask"
                )
            return self.illegal_reward, False, False, True
        game.act(plain)
        reward = 0.0
        if self.reward == "swing":
            now = margin(game.scores, self.seat)
            reward, self._margin = now - self._margin, now
        terminated = game.phase == DONE and game.finished
        if terminated:
            reward += final_reward(self.reward, game.outcome(), self.seat)
        return reward, terminated, game.phase == DONE and not terminated, False

    def info(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        info: dict[str, Any] = {
            "seed": self.seed,
            "episode": self.episode,
            "deal": self.deal,
            "order": self.order,
            "seat": self.seat,
        }
        if game.phase == DONE:
            result = game.outcome()
            info.update(
                scores=result.scores, ranks=result.ranks, turns=result.turns, status=result.status
            )
            if result.error is not None:
                info["error"] = str(result.error)
            if self._builder is not None:
                info["record"] = self._builder.finish(result)
        return info

    def render(self) -> str:
        assert self.game is not None
        return draw(board_of(self.game), self.names)


def as_action(action: Any) -> int | None:
    """The plain int an action stands for (a numpy int, a 0-d array), or None."""
    if type(action) is int:
        return action
    try:
        plain = np.asarray(action)
    except Exception:  # noqa: BLE001 - whatever it is, it is no action
        return None
    return int(plain) if plain.ndim == 0 and plain.dtype.kind in "iu" else None


def board_view(game: SteppedGame, seat: int) -> Any:
    """A view of ``seat`` showing the board now and no turn in progress."""
    from harness.game.view import View

    view = View(seat, game.views[seat].rules)
    res = game.result(game.error)
    view.update(
        {"turn": game.turn, "grill": res.grill, "flipped": res.flipped, "stacks": res.stacks}
    )
    return view


__all__ = ["SingleAgent", "as_action", "board_view"]
