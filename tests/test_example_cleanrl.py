"""The single-file CleanRL-style masked PPO example trains on every game (needs only torch)."""

from __future__ import annotations

import re

import pytest

from tests.scripts import load_script


def load_example():
    return load_script("examples/cleanrl_ppo.py")


@pytest.mark.parametrize(("game", "players"), [("uno", 2), ("tock", 3), ("chipit", 4)])
def test_the_example_trains_and_its_agent_plays_a_tournament(game, players, capsys):
    example = load_example()
    example.main(
        ["--game", game, "--players", str(players), "--total-timesteps", "512", "--num-envs", "2",
         "--num-steps", "128", "--eval-games", "2"]
    )  # fmt: skip
    out = capsys.readouterr().out
    updates = re.findall(r"update (\d+): ([\d,]+) steps", out)
    assert [u for u, _ in updates] == ["1", "2"] and updates[-1][1] == "512"
    for mean in re.findall(r"mean rank reward ([+-][\d.]+) over", out):
        assert -1.0 <= float(mean) <= 1.0
    assert "GreedyAgent()" in out and f"2 games of {players}-player {game}" in out


def test_illegal_actions_never_get_probability():
    example = load_example()
    import gymnasium as gym
    import numpy as np
    import torch

    space = gym.spaces.Box(np.zeros(5, np.float32), np.full(5, 10, np.float32))
    agent = example.Agent(space, 4)
    mask = torch.tensor([[True, False, True, False]])
    probs = agent.distribution(torch.ones(1, 5), mask).probs
    assert probs[0, 1] == 0 and probs[0, 3] == 0 and torch.isclose(probs.sum(), torch.tensor(1.0))
