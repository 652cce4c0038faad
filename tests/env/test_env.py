"""The Gymnasium and PettingZoo environments (issue 22, items 1 and 2).

* The standard kits pass: PettingZoo's ``api_test`` at 2-7 seats, every preset, every
  reward; Gymnasium's ``check_env`` on both engines.
* What no kit checks (they ignore masks): over 100,000 random masked steps at 2-7 seats
  and every rule variant, the mask equals the engine's legal set at every step (the
  actions ``SteppedGame.legal`` accepts, and the set written from the rules in
  tests/env_policies.py); an unmasked action pays the documented penalty and changes
  nothing (or raises with ``illegal="raise"``); and every episode's record replays
  through the engine (``harness replay``) to the same result.
* Rewards: ``margin`` and ``win`` read off the final scores and ranks (R11), ``swing``
  adds up to the margin; the Gymnasium env plays the engine's games on the tournaments'
  deal seeds, in C and in Python alike; ``render_mode="ansi"`` draws the board.

Needs the ``rl`` extra (gymnasium, pettingzoo); CI installs it with the test extra.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.engine

pytest.importorskip("gymnasium", reason="the rl extra is not installed: pip install '.[rl]'")
pytest.importorskip("pettingzoo", reason="the rl extra is not installed: pip install '.[rl]'")

from click.testing import CliRunner  # noqa: E402
from env_policies import greedy_policy, legal_oracle, random_masked  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from harness import native  # noqa: E402
from harness.cli import main  # noqa: E402
from harness.env import encoding  # noqa: E402
from harness.env.aec import PickominoAEC, env  # noqa: E402
from harness.env.game import DONE, IllegalAction  # noqa: E402
from harness.env.gym import ENV_ID, PickominoEnv  # noqa: E402
from harness.game.dice import DuplicateDice  # noqa: E402
from harness.game.engine import Game, rank_seats  # noqa: E402
from harness.game.record import replay  # noqa: E402
from harness.plugins import resolve  # noqa: E402
from harness.rules import PRESETS, Rules  # noqa: E402
from harness.tourney.plan import deal_seed  # noqa: E402

RULE_MIXES = [
    *PRESETS,
    {"bust_flip": "none", "lower_tile": "any"},
    {"bust_flip": "lowest", "returned_tile": "flip", "flip_without_tile": True},
]


@pytest.mark.parametrize("players", range(2, 8))
def test_pettingzoo_api_test_passes(players):
    rules = RULE_MIXES[players % len(RULE_MIXES)]
    reward = ("margin", "win", "swing")[players % 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the kit's advice on Dict observations
        api_test(
            env(players=players, rules=rules, reward=reward, render_mode="ansi"), num_cycles=200
        )


@pytest.mark.parametrize("engine", ["python", "native"])
def test_gymnasium_check_env_passes(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    import gymnasium

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(PickominoEnv(["greedy", "tactician"], engine=engine, render_mode="ansi"))
        made = gymnasium.make(
            ENV_ID, opponents=["random"], engine=engine, reward="swing", render_mode="ansi"
        )
        check_env(made.unwrapped)
    assert PickominoEnv(["greedy"], engine=engine).engine == engine


def _check_question(game, seat, obs):
    """The mask is the engine's legal set: what SteppedGame.legal accepts, and what the
    rules allow (tests/env_policies.legal_oracle)."""
    mask = obs["action_mask"]
    masked = set(np.flatnonzero(mask).tolist())
    accepted = {a for a in range(encoding.ACTIONS) if game.legal(a)}
    assert masked == accepted == legal_oracle(game.views[seat], game.phase), (
        masked,
        accepted,
        game.phase,
    )
    assert obs["observation"][game.phase] == 1.0 and obs["observation"][:3].sum() == 1.0


@pytest.mark.once
def test_100000_random_masked_steps_keep_mask_and_engine_in_step():
    """At 2-7 seats over the rule mixes: the mask at every step, illegal actions, and a
    record of every episode that replays to the same result."""
    rng = np.random.default_rng(2024)
    steps = episodes = illegal = 0
    players = 2
    while steps < 100_000:
        rules = RULE_MIXES[episodes % len(RULE_MIXES)]
        game_env = PickominoAEC(
            players,
            rules,
            record=True,
            illegal_reward=-0.25,
            reward=("margin", "win", "swing")[episodes % 3],
        )
        game_env.reset(seed=episodes)
        for agent in game_env.agent_iter():
            obs, _, terminated, truncated, _ = game_env.last()
            if terminated or truncated:
                game_env.step(None)
                continue
            game = game_env.game
            seat = game_env.possible_agents.index(agent)
            assert game.deciding == seat
            _check_question(game, seat, obs)
            if steps % 50 == 0:  # now and then an unmasked action: a penalty, nothing moves
                bad = int(rng.choice(np.flatnonzero(obs["action_mask"] == 0)))
                game_env.step(bad)
                illegal += 1
                assert game_env.rewards[agent] == -0.25 and game_env.agent_selection == agent
                again = game_env.observe(agent)
                assert np.array_equal(again["observation"], obs["observation"])
                assert game_env.infos[agent]["illegal_action"] is True
            game_env.step(int(random_masked(rng, obs["action_mask"])))
            steps += 1
        info = game_env.infos
        assert not game_env.agents  # every agent stepped out after the end
        record = game_env._builder.record
        result = replay(json.loads(json.dumps(record)))
        assert result.state() == game.outcome().state(), episodes
        episodes += 1
        players = 2 + episodes % 6
    assert episodes > 90 and illegal > 1000  # random play makes long games
    del info


def test_records_replay_through_harness_replay(tmp_path):
    game_env = PickominoAEC(4, "french", record=True)
    game_env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _agent in game_env.agent_iter():
        obs, _, terminated, truncated, info = game_env.last()
        if terminated or truncated:
            final = info
            game_env.step(None)
            continue
        game_env.step(int(random_masked(rng, obs["action_mask"])))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(final["record"]))
    done = CliRunner().invoke(main, ["replay", str(path), "--json"])
    assert done.exit_code == 0, done.output
    state = json.loads(done.output)
    assert state["scores"] == final["scores"] and state["over"] is True


@pytest.mark.parametrize("engine", ["python", "native"])
def test_illegal_action_penalty_or_error_in_the_gymnasium_env(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    env_ = PickominoEnv(["greedy"], engine=engine, illegal_reward=-7.0)
    obs, _ = env_.reset(seed=1)
    for bad in [int(np.flatnonzero(obs["action_mask"] == 0)[0]), -1, 99, 2.0, None, "stop"]:
        again, reward, term, trunc, info = env_.step(bad)
        assert (reward, term, trunc, info["illegal_action"]) == (-7.0, False, False, True)
        assert np.array_equal(again["observation"], obs["observation"])
    strict = PickominoEnv(["greedy"], engine=engine, illegal="raise")
    obs, _ = strict.reset(seed=1)
    with pytest.raises(IllegalAction, match="not legal"):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    strict.step(np.int64(random_masked(np.random.default_rng(0), obs["action_mask"])))


def test_aec_illegal_raise():
    game_env = env(players=3, illegal="raise")
    game_env.reset(seed=3)
    obs, *_ = game_env.last()
    with pytest.raises(IllegalAction, match="seat_0: action"):
        game_env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


def _play(env_, policy, seed, **reset):
    obs, info = env_.reset(seed=seed, **reset)
    rewards = []
    while True:
        obs, reward, term, trunc, info = env_.step(policy(obs["observation"], obs["action_mask"]))
        rewards.append(reward)
        if term or trunc:
            return rewards, info, obs


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_gym_env_plays_the_engines_games_on_deal_seeds(engine, players):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    opponents = ["tactician", "optimal", "random", "worm-first"][: players - 1]
    env_ = PickominoEnv(opponents, "french", seat=players - 1, engine=engine)
    for deal in range(3):
        _, info, final = _play(env_, greedy_policy, 8, options={"deal": deal})
        assert info["deal"] == deal and info["seat"] == players - 1
        seats = [resolve(o).create() for o in opponents] + [resolve("greedy").create()]
        dseed = deal_seed(8, deal)
        result = Game(
            seats, Rules.coerce("french", players), DuplicateDice(dseed), seed=dseed
        ).play()
        assert (info["scores"], info["turns"]) == (result.scores, result.turns)
        assert final["action_mask"].sum() == 0  # the end: nothing to answer


@pytest.mark.parametrize("engine", ["python", "native"])
def test_rewards_margin_win_and_swing(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    rng = np.random.default_rng(3)

    def policy(obs, mask):
        return int(random_masked(rng, mask))

    for seed in range(6):
        totals = {}
        for kind in ("margin", "win", "swing"):
            rng = np.random.default_rng(seed)
            env_ = PickominoEnv(["greedy", "random"], reward=kind, engine=engine)
            rewards, info, _ = _play(env_, policy, seed)
            totals[kind] = (rewards, info)
        scores, me = totals["margin"][1]["scores"], totals["margin"][1]["seat"]
        margin = (3 * scores[me] - sum(scores)) / 2
        assert totals["margin"][0][:-1] == [0.0] * (len(totals["margin"][0]) - 1)
        assert totals["margin"][0][-1] == margin
        ranks = rank_seats(scores, [[]] * 3) if not any(scores) else totals["win"][1]["ranks"]
        share = 1 / ranks.count(1) if ranks[me] == 1 else 0.0
        assert totals["win"][0][-1] == share and sum(totals["win"][0]) == share
        assert sum(totals["swing"][0]) == pytest.approx(margin)
        assert any(r != 0 for r in totals["swing"][0][:-1]) or len(totals["swing"][0]) < 3


def test_aec_rewards_are_zero_sum_margins_and_reach_every_agent():
    game_env = env(players=4, reward="margin")
    game_env.reset(seed=12)
    rng = np.random.default_rng(1)
    final = {}
    for agent in game_env.agent_iter():
        obs, reward, terminated, truncated, info = game_env.last()
        if terminated or truncated:
            final[agent] = (reward, info["scores"])
            game_env.step(None)
            continue
        game_env.step(int(random_masked(rng, obs["action_mask"])))
    assert len(final) == 4
    scores = next(iter(final.values()))[1]
    for seat, agent in enumerate(sorted(final)):
        assert final[agent][0] == (4 * scores[seat] - sum(scores)) / 3
    assert sum(r for r, _ in final.values()) == pytest.approx(0.0)


def test_turn_cap_truncates_every_agent():
    game_env = env(players=2, rules={"bust_flip": "none"}, max_turns=6)
    game_env.reset(seed=1)
    ended = []
    for _agent in game_env.agent_iter():
        obs, _, terminated, truncated, info = game_env.last()
        if terminated or truncated:
            ended.append((terminated, truncated, info["status"]))
            game_env.step(None)
            continue
        game_env.step(greedy_policy(obs["observation"], obs["action_mask"]))
    assert ended == [(False, True, "turn-cap")] * 2


def test_reset_seeds_and_episodes():
    env_ = PickominoEnv(["greedy", "random"], engine="python")
    first, info0 = env_.reset(seed=21)
    second, info1 = env_.reset()
    assert (info0["episode"], info1["episode"]) == (0, 1)
    again, _ = env_.reset(seed=21)
    assert np.array_equal(again["observation"], first["observation"])
    picked, info = env_.reset(options={"deal": 4, "order": 2})
    assert (info["deal"], info["order"], info["episode"]) == (4, 2, 26)  # 6 orders a deal


@pytest.mark.parametrize("engine", ["python", "native"])
def test_render_ansi_draws_the_board(engine):
    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    env_ = PickominoEnv(["greedy", "tactician"], engine=engine, render_mode="ansi")
    env_.reset(seed=3)
    text = env_.render()
    assert "grill:     21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36" in text
    assert "> seat 0 agent: - (0 worms)" in text and "tactician" in text
    assert "asks seat 0: pick" in text and "8 dice left" in text
    assert PickominoEnv(["greedy"], engine=engine).render() is None
    aec = env(players=3, render_mode="ansi")
    aec.reset(seed=3)
    assert "seat_2" in aec.render()


def test_observations_of_agents_not_asked_show_the_board_only():
    game_env = env(players=3)
    game_env.reset(seed=4)
    other = game_env.observe("seat_1")
    assert other["action_mask"].sum() == 0 and other["observation"][:3].sum() == 0
    asked = game_env.observe(game_env.agent_selection)
    assert asked["action_mask"].sum() >= 1


def test_a_strategy_that_breaks_ends_the_episode_as_its_forfeit():
    env_ = PickominoEnv(["tests/fixtures/hostile/engine_raisers.py:Throws"], engine="python")
    obs, info = env_.reset(seed=1)
    while True:
        obs, reward, term, trunc, info = env_.step(
            greedy_policy(obs["observation"], obs["action_mask"])
        )
        if term or trunc:
            break
    assert term and info["status"] == "forfeit" and "error" in info
    assert info["ranks"][1 - info["seat"]] == 2


def test_bad_settings_are_one_line():
    for kwargs, message in [
        (dict(render_mode="human"), "render_mode"),
        (dict(engine="gpu"), "engine"),
        (dict(reward="points"), "reward"),
        (dict(opponents=["gredy"]), "gredy"),
    ]:
        with pytest.raises(Exception, match=message) as caught:
            PickominoEnv(**({"opponents": ["greedy"]} | kwargs))
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="engine native"):
        PickominoEnv(["greedy"], engine="native", record=True)
    assert DONE == -1
