"""The UNO-style game through the PettingZoo and Gymnasium envs, and random-play invariants."""

from __future__ import annotations

import numpy as np
import pytest

from card_envs import uno_v0
from card_envs.core.ranking import rank_rewards
from card_envs.games.uno import cards as C
from card_envs.games.uno.engine import UnoGame
from tests.env_checks import random_playouts, run_check_env

VARIANT_MIX = {
    "draw_four": "official",
    "voluntary_draw": False,
    "stacking": False,
    "two_player_reverse_skips": False,
    "missed_call_penalty": 2,
}


# PettingZoo's api/seed/render tests and check_env at 2, 4 and 10 players and with the
# variant mix of the game's spec run for every game in tests/test_generic_envs.py.
def test_gymnasium_check_env_with_random_opponents():
    run_check_env("card_envs/Uno-v0", num_players=7, opponents="random")


DECK = np.array(C.deck_counts())


def check_cards(game: UnoGame) -> None:
    """All 108 cards present exactly once: hands + draw pile + discard pile = the deck."""
    in_hands = list(map(sum, zip(*game.hands, strict=True)))
    on_piles = np.bincount(game.draw_pile + game.discard, minlength=C.NUM_TYPES)
    assert (on_piles + in_hands == DECK).all(), "a card was lost or duplicated"
    assert game.hand_sizes == list(map(sum, game.hands))


def check_state(game: UnoGame) -> None:
    """The full deck in play, and every invariant the state loader checks holds after each step."""
    check_cards(game)
    game.check_consistency()


#: (players, random games in the long run, rules): 2,000 games across player counts and variants
PLAYOUTS = [
    (2, 500, {}),
    (3, 300, VARIANT_MIX),
    (4, 500, {}),
    (6, 300, {"draw_four": "official"}),
    (10, 400, {}),
]
SHORT_RUN = 8  # games per table in the default (fast) run


@pytest.mark.parametrize(
    ("num_players", "rules"),
    [pytest.param(n, rules, marks=pytest.mark.slow) if n == 10 else (n, rules) for n, _, rules in PLAYOUTS],
)
def test_random_games_keep_all_cards_and_end_with_ranks(num_players, rules):
    """A few random games per table; the full 2,000 run below is marked slow."""
    stats = random_playouts(UnoGame(num_players, **rules), SHORT_RUN, seed=num_players, check=check_state)
    assert stats["truncated"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(("num_players", "games", "rules"), PLAYOUTS)
def test_random_games_keep_all_cards_and_end_with_ranks_long_run(num_players, games, rules):
    """2,000 random games across player counts and variants (the invariants of the issue)."""
    stats = random_playouts(UnoGame(num_players, **rules), games, seed=num_players, check=check_state)
    assert stats["truncated"] == 0


def test_random_play_through_aec_loop_pays_rank_rewards_and_reports_score():
    env = uno_v0.env(num_players=4)
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        final = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                final[agent] = (reward, info)
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        ranks = [final[a][1]["rank"] for a in env.possible_agents]
        assert [final[a][0] for a in env.possible_agents] == pytest.approx(rank_rewards(ranks))
        winner = ranks.index(1)
        others = sum(final[a][1]["hand_points"] for a in env.possible_agents)
        assert final[f"player_{winner}"][1]["score"] == others > 0
