"""The pictures in docs/images: each game's table mid-game, as ``render_mode="rgb_array"`` draws it.

    python bench/pictures.py                  # docs/images/uno.png, tock.png, chipit.png
    python bench/pictures.py --out /tmp/pics  # somewhere else

A seeded game of random legal moves with four players, the full view (every hand face up),
after a fixed number of actions per game, so the pictures only change when the drawing does.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import numpy as np

#: actions played before the picture: far enough in for piles, chips and a play being built
MOVES = {"uno": 40, "tock": 160, "chipit": 155}
SEED = 1
ROOT = Path(__file__).resolve().parent.parent


def frame(game: str, moves: int, seed: int = SEED, num_players: int = 4) -> np.ndarray:
    """The full table after ``moves`` random legal actions (fewer if the game ends first)."""
    env = importlib.import_module(f"card_envs.{game}_v0").env(
        num_players=num_players, render_mode="rgb_array"
    )
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    picture = env.render()
    env.close()
    return picture


def main() -> None:
    from PIL import Image

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "images"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for game, moves in MOVES.items():
        path = args.out / f"{game}.png"
        Image.fromarray(frame(game, moves)).save(path)
        print(path)


if __name__ == "__main__":
    main()
