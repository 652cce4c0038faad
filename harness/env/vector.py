"""The vector environment: N games stepped per call, numpy arrays in and out.

::

    from harness.env.vector import VectorEnv
    envs = VectorEnv(1024, ["greedy"], rules="official", reward="win")
    obs, info = envs.reset(seed=7)
    while training:
        actions = policy(obs["observation"], obs["action_mask"])   # int array, one per game
        obs, rewards, terminated, truncated, info = envs.step(actions)

Slot j plays episodes ``j, j + N, j + 2N, ...`` of the run seeded ``seed`` (which game
an episode is, rewards and observations: :mod:`harness.env.game`,
:mod:`harness.env.encoding`, docs/rl.md); ``reset(seed, starts=..., stride=...)`` sets
another schedule (the same deals for every member of a population, say). A slot whose
episode ends starts its next one in the same call (auto-reset, Gymnasium's "same step"
mode): the step's reward, ``terminated`` and ``truncated`` belong to the episode that
ended, the observation to the one that begins (``info["episode"]`` says which).

The arrays returned are the environment's own buffers, overwritten by the next call:
copy what you keep. With the extension built and every opponent a native built-in
(:data:`harness.native.NATIVE_STRATEGIES`) the games are stepped in C
(harness/native/c/vecenv.inc.c); otherwise, or with ``engine="python"``, by N Python
games (:class:`~harness.env.single.SingleAgent`): slower, the same games, observations
and rewards bit for bit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from harness import native
from harness.env.encoding import ACTIONS, OBS_SIZE
from harness.env.game import (
    DONE,
    MAX_EPISODE,
    REWARDS,
    Board,
    IllegalAction,
    Schedule,
    draw,
)
from harness.env.opponents import MAX_SEAT_PROCESSES
from harness.env.setup import SETUP_KEYS, EnvSetup
from harness.env.single import SingleAgent, as_action
from harness.game.engine import rank_seats
from harness.game.engines import ENGINES
from harness.game.rules import Rules
from harness.native.evaluators import prepare as prepare_evaluators
from harness.seats import SeatLimits


def native_problem(opponents: Sequence[Any] | str, limits: SeatLimits | None = None) -> str | None:
    """Why these opponents cannot be stepped in C under ``limits`` (None: they can)."""
    refused = native.refusal(limits if limits is not None and limits.active else None)
    if refused is not None:
        return refused
    for item in [opponents] if isinstance(opponents, str) else opponents:
        try:
            native.native_seat(item)
        except native.NotNative as exc:
            return str(exc)
    return None


USES = SETUP_KEYS - {"record", "render_mode"}  # records and drawing: PickominoEnv's
MAX_ENVS = 1 << 16
"""The most games a vector env steps (65,536): in C one step of N games costs the same
per game from N = 1,024 on (about 2 million agent steps per CPU-second at 1,024, 16,384
and 65,536 alike), so more slots only take memory (docs/rl.md: 43 kB a slot at 2
players). The memory the slots need must also fit: :func:`check_fits`."""

ROW_BYTES = 4 * OBS_SIZE + ACTIONS + 4 + 1 + 1 + 1 + 8 + 1 + 8
"""The bytes of one slot's rows in the arrays (observation, mask, reward, the three
flags, episode, seat, and the action buffer)."""


def slot_bytes(players: int, duplicate: bool) -> int:
    """The memory one C slot holds once its games are under way, its arrays' rows
    included (the C side's own count: its structs, dice streams and first dice blocks)."""
    return int(native._core.vec_slot_bytes(players, duplicate)) + ROW_BYTES


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now (Linux: MemAvailable), or None
    where the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def check_fits(n: int, players: int, duplicate: bool) -> None:
    """One line (MemoryError) unless N C slots take at most half the memory available
    now: the other half is left to the learner (its model, its buffers) and the system."""
    free = available_memory()
    need = n * slot_bytes(players, duplicate)
    if free is not None and need > free // 2:
        raise MemoryError(
            f"num_envs: {n:,} games x {slot_bytes(players, duplicate):,} bytes = "
            f"{need / 2**30:.2f} GiB; the slots may take at most half the memory available "
            f"now ({free / 2**30:.2f} GiB available): fewer games"
        )


class _Native:
    """The C slots (harness/native/c/vecenv.inc.c) behind one capsule."""

    def __init__(
        self, n: int, opponents: list[Any], rules: Rules, schedule: Schedule, setup: EnvSetup
    ) -> None:
        core = native._core
        seats = ((0,), *(native.native_seat(o).as_c() for o in opponents))
        prepare_evaluators(rules, seats)  # a win-optimal opponent's, in C
        keys = bytes(schedule.order_index(k) for k in range(len(schedule.orders)))
        self.handle = core.vec_new(
            native.rules_c(rules),
            seats,
            native.orders_c(schedule.orders, rules.players),
            keys,
            int(schedule.dice == "duplicate"),
            REWARDS.index(setup.reward),
            int(setup.illegal == "raise"),
            setup.illegal_reward,
            setup.max_turns,
            n,
        )

    def reset(self, seed: int, starts: np.ndarray, stride: int, out: tuple) -> None:
        native._core.vec_reset(self.handle, native._prefix(seed), starts, stride, out)

    def step(self, actions: np.ndarray, autoreset: bool, out: tuple) -> None:
        native._core.vec_step(self.handle, actions, autoreset, out)

    def board(self, slot: int) -> tuple:
        return native._core.vec_board(self.handle, slot)


class VectorEnv:
    """N single-agent games (the agent against ``opponents``), stepped together."""

    def __init__(
        self,
        num_envs: int,
        opponents: Sequence[Any] | str = ("greedy",),
        rules: Any = "official",
        *,
        setup: EnvSetup | None = None,
        autoreset: bool = True,
        **keywords: Any,
    ) -> None:
        """``setup`` (an :class:`~harness.env.setup.EnvSetup`) or its keywords, not both:
        every key but ``record`` and ``render_mode``."""
        held = EnvSetup.of("VectorEnv", USES, setup, **keywords)
        limits = held.settings.limits
        if type(num_envs) is not int or not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(
                f"num_envs: expected 1 to {MAX_ENVS:,} games, got {num_envs!r} (more buy no "
                "speed: docs/rl.md)"
            )
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        engine = held.engine
        problem = native_problem(opponents, limits) if engine != "python" else "engine python"
        if engine == "native" and problem is not None:
            raise ValueError(f"engine native: {problem}")
        self.engine = "python" if problem is not None else "native"
        if self.engine == "native":
            check_fits(num_envs, len(opponents) + 1, held.dice == "duplicate")
        # One Python agent holds the schedule and the opponents' names and is the
        # fallback's first; under limits in C there are none (native_problem).
        first = SingleAgent(opponents, rules, setup=held)
        self.rules, self.schedule = first.rules, first.schedule
        self.setup = held
        self.num_envs, self.autoreset, self.illegal = num_envs, autoreset, held.illegal
        self.names = ["agent", *first.opponents.names]
        self._native: _Native | None = None
        self._agents: list[SingleAgent] = []
        if self.engine == "native":
            self._native = _Native(num_envs, opponents, self.rules, self.schedule, held)
        else:
            self._agents = [first]
            self._hold(num_envs, first.opponents.processes)
            try:
                for _ in range(num_envs - 1):
                    self._agents.append(SingleAgent(opponents, rules, setup=held))
            except BaseException:
                self.close()
                raise
        n = num_envs
        self.observations = np.zeros((n, OBS_SIZE), np.float32)
        self.action_masks = np.zeros((n, ACTIONS), np.int8)
        self.rewards = np.zeros(n, np.float32)
        self.terminations = np.zeros(n, np.bool_)
        self.truncations = np.zeros(n, np.bool_)
        self.illegal_actions = np.zeros(n, np.bool_)
        self.episodes = np.zeros(n, np.int64)
        self.seats = np.zeros(n, np.int8)
        self._out = (
            self.observations,
            self.action_masks,
            self.rewards,
            self.terminations,
            self.truncations,
            self.illegal_actions,
            self.episodes,
            self.seats,
        )
        self._actions = np.zeros(n, np.int64)
        self.seed: int | None = None
        self.stride = n
        self._ready = False

    def _hold(self, n: int, per_slot: int) -> None:
        """One line, before any more are started, when N slots would hold more opponent
        seat processes than :data:`MAX_SEAT_PROCESSES` (each slot plays its own games)."""
        if per_slot and n * per_slot > MAX_SEAT_PROCESSES:
            self.close()
            raise ValueError(
                f"num_envs: {n:,} games x {per_slot} opponent seat process(es) = "
                f"{n * per_slot:,} processes; at most {MAX_SEAT_PROCESSES} (fewer games, or "
                "opponents without isolation or time limits)"
            )

    # -- the Gymnasium-like surface ---------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        *,
        starts: Sequence[int] | np.ndarray | None = None,
        stride: int | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Every slot to its first question. Slot j begins at episode ``starts[j]``
        (default j) and goes on by ``stride`` (default N). ``seed`` None: a random one."""
        if seed is None:
            seed = int(np.random.default_rng().integers(0, 2**63 - 1))
        if type(seed) is not int or not -(2**63) <= seed < 2**63:
            raise ValueError(f"seed: expected a signed 64-bit int, got {seed!r}")
        first = np.arange(self.num_envs, dtype=np.int64) if starts is None else starts
        begin = np.ascontiguousarray(first, dtype=np.int64)
        if begin.shape != (self.num_envs,) or (begin < 0).any():
            raise ValueError(f"starts: {self.num_envs} episode numbers >= 0")
        stride = self.num_envs if stride is None else stride
        if type(stride) is not int or not 1 <= stride <= MAX_EPISODE:
            raise ValueError(f"stride: expected an int from 1 to 2**63 - 1, got {stride!r}")
        self.seed, self.stride = seed, stride
        if self._native is not None:
            self._native.reset(seed, begin, stride, self._out)
        else:
            for j, agent in enumerate(self._agents):
                agent.reset(seed, int(begin[j]), stride)
                self._row(j)
            self.rewards[:] = 0.0
            self.terminations[:] = self.truncations[:] = self.illegal_actions[:] = False
        self._ready = True
        return self._obs(), self._info()

    def step(
        self, actions: Sequence[int] | np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One action per slot (ints; see the mask): (observations, rewards, terminated,
        truncated, info). An action the mask does not allow pays ``illegal_reward`` and
        changes nothing (``illegal="raise"``: IllegalAction, and no slot moves)."""
        if not self._ready:
            raise ValueError("step() before reset() (or after an episode ended without autoreset)")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions: {self.num_envs} ints, got {acts.dtype} {acts.shape}")
        self._actions[:] = acts
        if self._native is not None:
            try:
                self._native.step(self._actions, self.autoreset, self._out)
            except ValueError as exc:
                if "not legal" in str(exc):
                    raise IllegalAction(str(exc)) from None
                raise
        else:
            self._step_python()
        if not self.autoreset and (self.terminations | self.truncations).any():
            self._ready = False  # an ended slot takes no action until reset()
        return self._obs(), self.rewards, self.terminations, self.truncations, self._info()

    def _step_python(self) -> None:
        agents = self._agents
        for j, agent in enumerate(agents):
            assert agent.game is not None
            if agent.game.phase == DONE:
                raise ValueError(f"slot {j}: its episode is over; reset first")
            if self.illegal == "raise" and not agent.game.legal(as_action(self._actions[j])):
                raise IllegalAction(
                    f"slot {j}: action {self._actions[j]} is not legal now; see the action mask"
                )
        for j, agent in enumerate(agents):
            reward, terminated, truncated, illegal = agent.step(int(self._actions[j]))
            self.rewards[j] = reward
            self.terminations[j], self.truncations[j] = terminated, truncated
            self.illegal_actions[j] = illegal
            if (terminated or truncated) and self.autoreset:
                if agent.episode > MAX_EPISODE - self.stride:  # as the C slots say it
                    raise ValueError(
                        f"slot {j}: its next episode is past the last episode number, "
                        "2**63 - 1 (an int64): reset with a smaller start or stride"
                    )
                agent.reset(agent.seed, agent.episode + self.stride, self.stride)
            self._row(j)

    def _row(self, j: int) -> None:
        agent = self._agents[j]
        agent.observe(self.observations[j], self.action_masks[j])
        self.episodes[j], self.seats[j] = agent.episode, agent.seat

    def _obs(self) -> dict[str, np.ndarray]:
        return {"observation": self.observations, "action_mask": self.action_masks}

    def _info(self) -> dict[str, np.ndarray]:
        return {
            "episode": self.episodes,
            "seat": self.seats,
            "illegal_action": self.illegal_actions,
        }

    # -- one slot, for people and tests --------------------------------------------------------
    def board(self, slot: int) -> Board:
        """Slot ``slot``'s game as plain values (:func:`harness.env.game.draw` shows it)."""
        if self._native is None:
            from harness.env.game import board_of

            game = self._agents[slot].game
            assert game is not None
            return board_of(game)
        (turn, grill, flipped, stacks, phase, agent, shown, kept, total, left, over, capped, _) = (
            self._native.board(slot)
        )
        tiles = lambda mask: tuple(t for t in range(21, 37) if mask >> t & 1)  # noqa: E731
        if phase == DONE:
            ended = "over" if over else "turn-cap" if capped else ""
            return Board(turn, tiles(grill), tiles(flipped), stacks, ended=ended)
        rolled = tuple(f for f in range(1, 7) for _ in range(shown[f - 1]))
        kept_faces = tuple(f for f in range(1, 7) for _ in range(kept[f - 1]))
        return Board(
            turn,
            tiles(grill),
            tiles(flipped),
            stacks,
            agent,
            phase,
            rolled,
            kept_faces,
            total,
            left,
        )

    def names_of(self, slot: int) -> list[str]:
        """The display names of slot ``slot``'s seats in its current episode."""
        order = self.schedule.orders[int(self.episodes[slot]) % len(self.schedule.orders)]
        return [self.names[e] for e in order]

    def render(self, slot: int = 0) -> str:
        return draw(self.board(slot), self.names_of(slot))

    def close(self) -> None:
        """Release the games, and end the opponents' seat processes if any."""
        for agent in self._agents:
            agent.close()
        self._native = None
        self._agents = []
        self._ready = False


class NativeSingle:
    """One game stepped in C, with :class:`~harness.env.single.SingleAgent`'s surface:
    what :class:`harness.env.gym.PickominoEnv` steps when its opponents are native."""

    def __init__(self, opponents: Sequence[Any] | str, rules: Any, setup: EnvSetup) -> None:
        native_setup = replace(
            setup.without("record", "render_mode"),
            settings=setup.settings.with_overrides(engine="native"),
        )
        self.vec = VectorEnv(1, opponents, rules, setup=native_setup, autoreset=False)
        self.schedule, self.reward = self.vec.schedule, setup.reward
        self.seed = self.episode = 0

    @property
    def ended(self) -> bool:
        """No question is pending: not reset yet, or the episode ended."""
        return not self.vec._ready

    def reset(self, seed: int, episode: int) -> int:
        self.seed = seed
        self.vec.reset(seed, starts=[episode], stride=1)
        self.episode = int(self.vec.episodes[0])
        return self.episode

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vec.observations[0].copy(), self.vec.action_masks[0].copy()

    def step(self, action: Any) -> tuple[float, bool, bool, bool]:
        plain = as_action(action)
        legal = plain is not None and 0 <= plain < ACTIONS and bool(self.vec.action_masks[0, plain])
        if not legal and self.vec.illegal == "raise":
            raise IllegalAction(f"action {action!r} is not legal now; see the action_mask")
        if not legal:  # the C code would read a bad int too, but not a float or a None
            plain = -1
        _, rewards, term, trunc, info = self.vec.step(np.array([plain], np.int64))
        return float(rewards[0]), bool(term[0]), bool(trunc[0]), bool(info["illegal_action"][0])

    def info(self) -> dict[str, Any]:
        orders = len(self.schedule.orders)
        info: dict[str, Any] = {
            "seed": self.seed,
            "episode": self.episode,
            "deal": self.episode // orders,
            "order": self.episode % orders,
            "seat": int(self.vec.seats[0]),
        }
        board = self.vec.board(0)
        if board.phase == DONE:
            scores = [sum((t - 17) // 4 for t in s) for s in board.stacks]
            info.update(
                scores=scores,
                ranks=rank_seats(scores, board.stacks),
                turns=board.turn,
                status=board.ended,
            )
        return info

    def render(self) -> str:
        return self.vec.render(0)


__all__ = [
    "ENGINES",
    "MAX_ENVS",
    "NativeSingle",
    "VectorEnv",
    "available_memory",
    "check_fits",
    "native_problem",
    "slot_bytes",
]
