"""A digest of seeded play in every layer, to show that a refactoring changed no behaviour.

Plays seeded games of every registered game at its smallest, default and largest table and
under each covered rule mix, through the PettingZoo AEC env (rule-based players with lapses
and random players, their choices drawn from seeded generators, games recorded as JSON
Lines), the single-agent Gymnasium env (rule-based opponents) and the batched engine, and
hashes every observation, mask, reward, info, rendered text, ``state_dict()`` and record
line. Run it before and after a change and compare::

    python bench/fingerprint.py --games 200 --out /tmp/before.json
    ... change ...
    python bench/fingerprint.py --games 200 --out /tmp/after.json --compare /tmp/before.json

Exit code 1 if any digest differs (each differing entry is named). With an editable install,
``card_envs`` is the installed checkout's wherever this script lies, so to fingerprint a git
worktree of the commit before, run it there with ``PYTHONPATH=.`` (the first line printed
names the checkout measured).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

import card_envs
from card_envs.core.spec import GameSpec

try:  # the layout after the layers step, then the one before it
    from card_envs.agents import make_policy
    from card_envs.batched import BatchedGame
except ImportError:  # pragma: no cover - the layout before
    from card_envs.agents import make_policy  # type: ignore[no-redef]
    from card_envs.batched.game import BatchedGame  # type: ignore[no-redef]


def random_knobs(spec: GameSpec) -> dict[str, Any]:
    """The rule agent's knobs that make it draw numbers (the agents layer's, or the old spec's)."""
    try:
        from card_envs.agents.registry import rule_agent_spec
    except ImportError:  # pragma: no cover - the layout before
        return dict(spec.random_knobs)  # type: ignore[attr-defined]
    return dict(rule_agent_spec(spec).random_knobs)


def _update(digest: Any, value: Any) -> None:
    if isinstance(value, np.ndarray):
        digest.update(str(value.dtype).encode() + str(value.shape).encode() + value.tobytes())
    else:
        digest.update(json.dumps(value, sort_keys=True, default=str).encode())


def _without_version(line: str) -> str:
    """A record line with the package version left out (a version bump is no behaviour)."""
    entry = json.loads(line)
    entry.pop("version", None)
    return json.dumps(entry, sort_keys=True)


def aec_digest(spec: GameSpec, players: int, rules: dict[str, Any], games: int) -> str:
    digest = hashlib.sha256()
    module = importlib.import_module(f"card_envs.{spec.aec_name}")
    with tempfile.TemporaryDirectory() as records:
        env = module.env(num_players=players, render_mode="ansi", record_dir=records, **rules)
        policies = [
            make_policy("rule", spec.name, players, **random_knobs(spec)) if seat % 2 == 0 else None
            for seat in range(players)
        ]
        rng = np.random.default_rng(7)
        for game in range(games):
            env.reset(seed=1000 + game)
            for agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                _update(digest, [agent, reward, termination, truncation, info])
                _update(digest, observation["observation"])
                _update(digest, observation["action_mask"])
                if termination or truncation:
                    action = None
                else:
                    seat = int(agent.rpartition("_")[2])
                    policy = policies[seat]
                    mask = observation["action_mask"]
                    if policy is None:
                        action = int(rng.choice(np.flatnonzero(mask)))
                    else:
                        action = policy.act(observation["observation"], mask, rng)
                env.step(action)
                if action is not None and game % 10 == 0:
                    _update(digest, env.render())
                    _update(digest, env.unwrapped.state_dict())
        env.close()
        for path in sorted(Path(records).glob("*.jsonl")):
            for line in path.read_text().splitlines():
                _update(digest, _without_version(line))
    return digest.hexdigest()


def single_digest(spec: GameSpec, players: int, games: int) -> str:
    digest = hashlib.sha256()
    env = gymnasium.make(spec.gym_id, num_players=players, opponents="rule")
    rng = np.random.default_rng(11)
    for game in range(games):
        observation, info = env.reset(seed=2000 + game)
        _update(digest, [observation, info])
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            _update(digest, mask)
            action = int(rng.choice(np.flatnonzero(mask)))
            observation, reward, terminated, truncated, info = env.step(action)
            _update(digest, [observation, float(reward), terminated, truncated, info])
            done = terminated or truncated
    env.close()
    return digest.hexdigest()


def batched_digest(spec: GameSpec, players: int, steps: int) -> str:
    digest = hashlib.sha256()
    batch = BatchedGame(spec.name, batch_size=64, num_players=players)
    batch.reset(seed=3)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        choice = rng.random(batch.masks.shape) * batch.masks
        result = batch.step(choice.argmax(axis=1))
        for array in (batch.observations, batch.masks, batch.current_players, *result):
            _update(digest, np.asarray(array))
    _update(digest, batch.engine(0).state_dict())
    return digest.hexdigest()


def fingerprints(games: int) -> dict[str, str]:
    result = {}
    for name, spec in card_envs.game_specs().items():
        if name not in ("uno", "tock", "chipit"):
            continue
        for players in spec.player_counts():
            for index, rules in enumerate([{}, *spec.rule_mixes]):
                key = f"{name}/{players}p/rules{index}"
                result[f"aec/{key}"] = aec_digest(spec, players, dict(rules), games)
                print(f"aec/{key}", result[f"aec/{key}"][:16], flush=True)
            result[f"single/{name}/{players}p"] = single_digest(spec, players, max(1, games // 4))
            result[f"batched/{name}/{players}p"] = batched_digest(spec, players, 400)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--games", type=int, default=200, help="AEC games per table and rule mix (default 200)"
    )
    parser.add_argument("--out", type=Path, required=True, help="where to write the digests (JSON)")
    parser.add_argument("--compare", type=Path, help="digests of an earlier run to compare with")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    import card_envs

    # an editable install imports its own checkout, whichever tree this script lies in: to
    # fingerprint another checkout (a git worktree of the commit before), set PYTHONPATH to it
    print(f"fingerprinting the card_envs of {Path(card_envs.__file__).parent.parent}")
    result = fingerprints(args.games)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    differ = sorted(k for k in before.keys() | result.keys() if before.get(k) != result.get(k))
    for key in differ:
        print(f"DIFFERS: {key}")
    print(f"{len(before) - len(differ)} of {len(before)} digests equal")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
