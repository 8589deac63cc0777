"""RLlib glue: masked multi-agent PPO on one machine or a Ray cluster (``pip install 'card-envs[rllib]'``).

    from card_envs.integrations.rllib import ppo_config, start_ray
    start_ray()                                   # every listener on 127.0.0.1
    algo = ppo_config("tock", 4).build_algo()     # self-play: one policy shared by every seat
    algo.train()

Pieces:

* :class:`CardGameMultiAgentEnv`: an RLlib ``MultiAgentEnv`` over the AEC env of any game.
  Each seat is an agent; seats named in ``opponents`` are played inside the env by
  card_envs policies (rule-based, random, saved models), the others are exposed to RLlib.
  When a game ends every exposed seat gets its final observation and rank reward at once,
  so each seat is credited with its own result (a loss included).
* :class:`MaskedPPOModule`: RLlib's default PPO module over the ``"observation"`` entry,
  divided by its declared bounds, with illegal logits at the most negative float; the value
  head is RLlib's own.
* :func:`ppo_config`: a ``PPOConfig`` for self-play (one shared policy for every seat) or
  for one learner against scripted opponents.
* :func:`start_ray` / :func:`stop_ray`: Ray kept on the loopback interface.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from gymnasium import spaces

from card_envs.agents.rllib_model import CHECKPOINT_DIR, LEARNER, RLlibPolicy, load_rllib_policy
from card_envs.core.policy import Policy
from card_envs.core.registry import game_spec
from card_envs.core.table import Table
from card_envs.envs.aec import aec_env_class
from card_envs.envs.seating import Seating, redeal

try:
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("RLlib is not installed: pip install 'card-envs[rllib]'") from error

if TYPE_CHECKING:
    from card_envs.integrations.rllib_settings import RllibSettings


class CardGameMultiAgentEnv(MultiAgentEnv):
    """Any card_envs game as an RLlib multi-agent env (config keys below).

    ``config``: ``game`` (default ``"uno"``), ``num_players``, ``opponents`` (None: every
    seat is exposed; else a spec or Policy for every other seat, or one per other seat, and
    one exposed seat drawn each game), ``seed``, ``max_steps`` and the game's rule keywords.
    Scripted seats act with the env's generator, so a seeded env replays exactly.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        game = config.pop("game", "uno")
        opponents = config.pop("opponents", None)
        seed = config.pop("seed", None)
        # unmasked samples (RLlib's env pre-check) play a random legal action instead of raising
        self.aec = aec_env_class(game_spec(game))(illegal_action="random", **config)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        #: None: every seat is exposed; else the learner's seat (drawn each game) and the scripted ones
        self.seating = self._seating(opponents, self.aec.table)
        self.scripted: dict[str, Policy] = {}
        self._seed = seed

    @staticmethod
    def _seating(opponents: Any, table: Table) -> Seating[Policy] | None:
        if opponents is None:
            return None
        from card_envs.agents.specs import make_policies

        return Seating.build(table.num_players, "random", make_policies(opponents, table))

    @property
    def opponents(self) -> list[Policy] | None:
        """The scripted policies, one per other seat in seat order after the learner's (None: self-play)."""
        return None if self.seating is None else self.seating.opponents

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None

        def deal() -> bool:  # a game in which no exposed seat decides is dealt again
            nonlocal seed
            self.aec.reset(seed=seed)
            seed = None  # later deals go on with the env's generator
            self._seat_scripted(self.aec.np_random)
            self._play_scripted()
            return not self._game_over

        redeal(deal, failure="no exposed seat got a decision")
        selected = self.aec.agent_selection
        return {selected: self.aec.observe(selected)}, {selected: self._info(selected)}

    def _seat_scripted(self, rng: np.random.Generator) -> None:
        """Draw the learner's seat; the scripted policies take the others, in seat order after it."""
        self.scripted = {}
        if self.seating is not None:
            learner = self.seating.draw(rng)
            self.seating.new_game(rng)
            self.scripted = {self.possible_agents[s]: p for s, p in self.seating.seats(learner).items()}
        self.agents = [a for a in self.possible_agents if a not in self.scripted]

    def step(self, action_dict: dict[str, Any]):
        selected = self.aec.agent_selection
        if selected not in action_dict:
            raise ValueError(f"no action for {selected}, the agent to act (got {sorted(action_dict)})")
        self.aec.step(action_dict[selected])
        self._play_scripted()
        if self._game_over:  # every exposed seat gets its final observation and rank reward
            finished = {**{a: True for a in self.agents}, "__all__": True}
            running = {"__all__": False}
            terminated = any(self.aec.terminations.values())  # else truncated at max_steps
            return (
                {a: self.aec.observe(a) for a in self.agents},
                {a: float(self.aec.rewards[a]) for a in self.agents},
                finished if terminated else running,
                running if terminated else finished,
                {a: self._info(a) for a in self.agents},
            )
        selected = self.aec.agent_selection
        return (
            {selected: self.aec.observe(selected)},
            {selected: 0.0},
            {"__all__": False},
            {"__all__": False},
            {selected: self._info(selected)},
        )

    @property
    def _game_over(self) -> bool:
        return any(self.aec.terminations.values()) or any(self.aec.truncations.values())

    def _play_scripted(self) -> None:
        """Let the scripted seats act until an exposed seat decides or the game ends."""
        while not self._game_over and self.aec.agent_selection in self.scripted:
            seat = self.aec.agent_selection
            observed = self.aec.observe(seat)
            policy = self.scripted[seat]
            self.aec.step(policy.act(observed["observation"], observed["action_mask"], self.aec.np_random))

    def _info(self, agent: str) -> dict[str, float]:
        return dict(self.aec.infos[agent])


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module over the ``"observation"`` entry (divided by its declared
    bounds; a Chip It value reaches 1,199), with illegal actions' logits at the most
    negative float: never sampled, no gradient. The value head is RLlib's own."""

    def __init__(self, *, observation_space: spaces.Dict | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, spaces.Dict) or "action_mask" not in observation_space.spaces:
            raise ValueError(
                "MaskedPPOModule needs the card_envs observation {'observation', 'action_mask'},"
                f" got {observation_space}"
            )
        self.masked_space = observation_space
        inner = observation_space["observation"]
        super().__init__(observation_space=inner, **kwargs)

    def setup(self) -> None:
        super().setup()
        box = cast(spaces.Box, self.masked_space["observation"])
        self.register_buffer("scale", torch.as_tensor(1.0 / np.maximum(box.high, 1.0), dtype=torch.float32))
        self.observation_space = self.masked_space

    def _split(self, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        observed = batch[Columns.OBS]
        if not isinstance(observed, dict):  # already split (compute_values ran first)
            return batch.pop("action_mask"), batch
        batch = dict(batch)
        batch[Columns.OBS] = observed["observation"] * self.scale
        return observed["action_mask"], batch

    def _masked(self, outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        logits = outs[Columns.ACTION_DIST_INPUTS]
        outs[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(mask == 0, torch.finfo(logits.dtype).min)
        return outs

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, batch = self._split(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


def ppo_config(
    game: str = "uno",
    num_players: int = 4,
    rules: dict[str, Any] | None = None,
    opponents: Any = None,
    *,
    env_runners: int = 0,
    envs_per_runner: int = 1,
    hidden: Sequence[int] = (256, 256),
    lr: float = 3e-4,
    gamma: float = 0.995,
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    epochs: int = 5,
    entropy_coeff: float = 0.01,
    seed: int | None = None,
) -> PPOConfig:
    """A ``PPOConfig`` that trains :data:`LEARNER` with :class:`MaskedPPOModule`.

    ``opponents=None``: self-play, every seat played by the one shared policy. Otherwise the
    learner takes one seat (drawn each game) against ``opponents`` (specs such as ``"rule"``,
    one per other seat or one for all), played inside the env.
    """
    env_config = {"game": game, "num_players": num_players, "opponents": opponents, **(rules or {})}
    model = {"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh", "vf_share_layers": False}
    spec = RLModuleSpec(module_class=MaskedPPOModule, model_config=model)
    config = (
        PPOConfig()
        .environment(CardGameMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        .multi_agent(policies={LEARNER}, policy_mapping_fn=lambda agent_id, episode, **kwargs: LEARNER)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: spec}))
        .training(
            lr=lr,
            gamma=gamma,
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=epochs,
            entropy_coeff=entropy_coeff,
        )
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def train(settings: RllibSettings, out: str | Path, *, force: bool = False) -> dict[str, Any]:
    """Train with RLlib into the run directory ``out`` (settings.json, the checkpoint in
    ``rllib/``); ``evaluate.py --agents greedy:OUT`` seats the result like any other model.

    Opponents all ``"self"`` train one policy shared by every seat; other line-ups seat the
    learner against them. RLlib runs start from random play on the rank reward alone.
    """
    from card_envs.training.run import prepare_run_dir, versions

    settings.check()
    table, run, self_play = settings.table, settings.run, settings.self_play()
    ppo = settings.ppo_settings()
    config = ppo_config(
        table.name,
        table.num_players,
        dict(table.rules),
        None if self_play else settings.seats(),
        env_runners=settings.env_runners,
        envs_per_runner=run.envs,
        hidden=ppo["net_arch"],
        lr=ppo["learning_rate"],
        gamma=ppo["gamma"],
        train_batch_size=ppo["n_steps"] * max(1, settings.env_runners) * run.envs,
        minibatch_size=ppo["batch_size"],
        epochs=ppo["n_epochs"],
        entropy_coeff=ppo["ent_coef"],
        seed=run.seed,
    )
    run_dir = prepare_run_dir(out, force)
    saved = {**settings.as_json(), "versions": versions()}
    (run_dir / "settings.json").write_text(json.dumps(saved, indent=2) + "\n")
    torch.set_num_threads(run.threads)
    start_ray(settings.address)
    algo = config.build_algo()
    start, steps, line = time.perf_counter(), 0, run.timesteps // 20
    try:
        while steps < run.timesteps:
            result = algo.train()
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            if steps >= line or steps >= run.timesteps:
                line += run.timesteps // 20
                mean = result["env_runners"].get("episode_return_mean")
                games = f", episode return {mean:+.3f}" if mean is not None and not self_play else ""
                rate = steps / (time.perf_counter() - start)
                print(f"step {steps:,}/{run.timesteps:,}  {rate:,.0f} steps/s{games}", flush=True)
        algo.save_to_path(str((run_dir / CHECKPOINT_DIR).resolve()))
    finally:
        algo.stop()
    seconds = time.perf_counter() - start
    return {"steps": steps, "seconds": seconds, "steps_per_s": steps / seconds}


def start_ray(address: str | None = None, *, loopback: bool | None = None, **kwargs: Any) -> None:
    """``ray.init`` without the dashboard. ``address`` joins a running cluster.

    With ``loopback`` this node's address is 127.0.0.1 and every listener Ray opens stays
    on it. The default is loopback for a local Ray and for a cluster at a loopback address
    (``python -m card_envs.integrations.ray_cluster``), the machine's own address for a
    cluster elsewhere (docs/scaling.md). ``ray.init(_node_ip_address="127.0.0.1")`` alone
    still bound listeners to the machine's outward address on Linux; Ray keeps them on
    loopback when it believes clusters are off (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``),
    which it reads when ray is first imported, so the flag is set here too.
    """
    if ray.is_initialized():
        return
    if loopback is None:
        loopback = address is None or _is_loopback(address.rpartition(":")[0] or address)
    if loopback:
        from ray._private import ray_constants

        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # for processes Ray starts
        ray_constants.ENABLE_RAY_CLUSTER = False  # ray is imported already: its own copy
        kwargs.setdefault("_node_ip_address", "127.0.0.1")
    ray.init(address=address, include_dashboard=False, **kwargs)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def stop_ray() -> None:
    ray.shutdown()


__all__ = [
    "LEARNER",
    "CardGameMultiAgentEnv",
    "MaskedPPOModule",
    "RLlibPolicy",
    "load_rllib_policy",
    "ppo_config",
    "start_ray",
    "stop_ray",
    "train",
]
