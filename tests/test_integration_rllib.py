"""RLlib: the multi-agent env, the masked PPO module, training on every game, Ray on loopback.

Skipped unless the ``rllib`` extra is installed, and marked slow (Ray takes seconds to
start): CI installs the extra and runs this file in its integrations step.
"""

from __future__ import annotations

import ipaddress

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

import psutil  # in the rllib extra: without it the loopback check must fail, not skip

from card_envs.core.ranking import rank_rewards
from card_envs.evaluation.tournament import tournament
from card_envs.integrations.rllib import (
    LEARNER,
    CardGameMultiAgentEnv,
    RLlibPolicy,
    ppo_config,
    start_ray,
    stop_ray,
)

pytestmark = pytest.mark.slow
GAMES = ["chipit", "tock", "uno"]


def play(env: CardGameMultiAgentEnv, seed: int) -> tuple[list[dict], list[dict], int]:
    """A whole game with random legal actions: every step's observations and rewards."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    observations, rewards, steps = [obs], [], 0
    while True:
        (agent,) = obs
        obs, reward, terminated, truncated, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))}
        )
        observations.append(obs)
        rewards.append(reward)
        steps += 1
        if terminated["__all__"] or truncated["__all__"]:
            return observations, rewards, steps


@pytest.mark.parametrize("game", GAMES)
def test_self_play_exposes_one_seat_per_decision_and_every_seat_at_the_end(game):
    env = CardGameMultiAgentEnv({"game": game, "num_players": 3})
    observations, rewards, _ = play(env, seed=2)
    assert all(len(o) == 1 for o in observations[:-1])
    final = rewards[-1]
    assert set(final) == set(env.possible_agents) == set(observations[-1])
    ranks = env.aec.game.final_ranks()
    assert [final[a] for a in env.possible_agents] == pytest.approx(rank_rewards(ranks))
    assert sum(final.values()) == pytest.approx(0.0)
    assert all(v == 0.0 for r in rewards[:-1] for v in r.values())


@pytest.mark.parametrize("game", GAMES)
def test_one_learner_against_scripted_seats_sees_only_its_own_decisions(game):
    env = CardGameMultiAgentEnv({"game": game, "num_players": 4, "opponents": "rule"})
    observations, rewards, _ = play(env, seed=3)
    (learner,) = {a for o in observations for a in o}
    assert len(env.scripted) == 3 and learner not in env.scripted
    assert set(rewards[-1]) == {learner}
    seat = env.possible_agents.index(learner)
    assert rewards[-1][learner] == pytest.approx(rank_rewards(env.aec.game.final_ranks())[seat])


def test_the_same_seed_replays_the_same_game_scripted_seats_included():
    first = play(CardGameMultiAgentEnv({"game": "uno", "opponents": "rule"}), seed=5)
    again = play(CardGameMultiAgentEnv({"game": "uno", "opponents": "rule"}), seed=5)
    assert first[2] == again[2] and first[1][-1] == again[1][-1]


def test_an_unmasked_action_is_replaced_and_flagged_not_raised():
    env = CardGameMultiAgentEnv({"game": "tock", "num_players": 2})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    _, _, _, _, infos = env.step({agent: illegal})
    assert env.aec.infos[agent]["illegal_action"] == 1
    assert all(isinstance(v, (int, float)) for info in infos.values() for v in info.values())


def loopback(address: str) -> bool:
    return ipaddress.ip_address(address.removeprefix("::ffff:")).is_loopback


def listeners() -> set[tuple[str, int]]:
    return {
        (c.laddr.ip, c.laddr.port)
        for c in psutil.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    }


def test_a_local_two_node_cluster_stays_on_loopback_and_train_joins_it():
    import ray

    from card_envs.integrations.ray_cluster import start_local_cluster

    before = listeners()
    cluster = start_local_cluster(nodes=2, port=free_port())
    try:
        start_ray(cluster.address)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        opened = listeners() - before
        assert opened and all(loopback(ip) for ip, _ in opened), sorted(opened)
    finally:
        stop_ray()
        cluster.shutdown()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def local_ray():
    before = listeners()
    start_ray(num_cpus=2)
    yield before
    stop_ray()


def test_ray_listens_on_loopback_only(local_ray):
    opened = listeners() - local_ray
    assert opened, "Ray opened no listener: the check would pass vacuously"
    assert all(loopback(ip) for ip, _ in opened), sorted(opened)


@pytest.mark.parametrize(
    ("game", "opponents", "runners"), [("chipit", None, 0), ("tock", "rule", 2), ("uno", None, 0)]
)
def test_masked_ppo_trains_and_plays_a_tournament(local_ray, game, opponents, runners):
    config = ppo_config(game, 4, opponents=opponents, env_runners=runners, train_batch_size=600,
                        minibatch_size=200, epochs=1, seed=0)  # fmt: skip
    algo = config.build_algo()
    try:
        module = algo.get_module(LEARNER)
        before = [p.detach().clone() for p in module.parameters()]
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 600
        assert any(
            not (a == b).all() for a, b in zip(before, algo.get_module(LEARNER).parameters(), strict=True)
        )
        assert all(loopback(ip) for ip, _ in listeners() - local_ray)
        lineup = [RLlibPolicy(algo.get_module(LEARNER)), "rule", "rule", "rule"]
        assert tournament(game, lineup, 2, seed=0, workers=1).agents[0].games == 2
    finally:
        algo.stop()


def test_train_cli_with_rllib_makes_a_run_that_evaluate_seats(tmp_path, capsys):
    import evaluate
    import train

    out = tmp_path / "run"
    argv = [
        "--backend",
        "rllib",
        "--game",
        "tock",
        "--players",
        "3",
        "--opponents",
        "rule",
        "--timesteps",
        "500",
    ]
    argv += [
        "--n-steps",
        "256",
        "--batch-size",
        "128",
        "--epochs",
        "1",
        "--final-games",
        "2",
        "--out",
        str(out),
    ]
    train.main(argv)
    printed = capsys.readouterr().out
    assert "Training RLlib PPO on 3-player tock" in printed and "trained agent" in printed
    assert (out / "settings.json").is_file() and (out / "rllib").is_dir()
    evaluate.main(["--model", str(out), "--games", "2"])
    assert "greedy:run" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:  # the run is there: no overwriting without --force
        train.main(argv)
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        evaluate.main(["--game", "uno", "--agents", f"greedy:{out},rule,rule", "--games", "2"])
    assert "trained for observations of" in capsys.readouterr().err


def test_ray_stays_on_loopback_by_default_only_for_loopback_addresses():
    from card_envs.integrations.rllib import _is_loopback

    assert [_is_loopback(h) for h in ("127.0.0.1", "localhost", "[::1]")] == [True, True, True]
    assert [_is_loopback(h) for h in ("10.0.0.1", "head.example", "")] == [False, False, False]


def test_the_example_trains_and_plays(capsys):
    from tests.scripts import load_script

    example = load_script("examples/rllib_ppo.py")
    example.main(
        ["--game", "uno", "--players", "2", "--iterations", "2", "--batch", "400", "--eval-games", "2"]
    )
    out = capsys.readouterr().out
    assert "iteration 2: 800 env steps" in out and "2 games of 2-player uno" in out
