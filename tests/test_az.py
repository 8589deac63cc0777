"""Search in the loop: the Gumbel search's arithmetic, the value head at the leaves, and the
trainer (``train.py --algo az``) in miniature."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from card_envs.agents.pretrained import load_pretrained, read_network
from card_envs.agents.search.gumbel import GumbelHalving, completed_values, improved_policy
from card_envs.agents.search.rollouts import BatchedRollouts
from card_envs.agents.specs import make_policy
from card_envs.core.play import play_game
from card_envs.core.ranking import rank_rewards
from card_envs.core.registry import game_spec
from card_envs.core.table import Table

torch = pytest.importorskip("torch")

from card_envs.training.az.network import PolicyValueNet, write_network  # noqa: E402
from card_envs.training.az.run import train_az  # noqa: E402
from card_envs.training.az.selfplay import Samples, play_games, value_positions  # noqa: E402
from card_envs.training.az.settings import AZSettings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- the arithmetic
def test_improved_policy_without_values_is_the_prior() -> None:
    logits = np.log(np.array([0.6, 0.3, 0.1]))
    policy = improved_policy(logits, np.zeros(3), np.zeros(3, np.int64), root_value=0.2)
    assert policy == pytest.approx([0.6, 0.3, 0.1])


def test_completed_values_mix_the_root_value_with_the_valued_moves() -> None:
    logits = np.log(np.array([0.5, 0.25, 0.25]))
    means = np.array([0.6, -0.2, 0.0])  # the third was never valued
    visits = np.array([2, 2, 0])
    completed = completed_values(logits, means, visits, root_value=0.0)
    weighted = (0.5 * 0.8 + 0.25 * 0.4) / 0.75  # prior-weighted (q + 1) / 2 of the valued moves
    assert completed[:2] == pytest.approx([0.8, 0.4])
    assert completed[2] == pytest.approx((0.5 + 4 * weighted) / 5)


def test_a_better_valued_move_gains_probability_and_a_worse_one_loses() -> None:
    logits = np.zeros(3)
    policy = improved_policy(logits, np.array([0.5, -0.5, 0.0]), np.array([4, 4, 4]), None)
    assert policy[0] > policy[2] > policy[1]
    assert policy.sum() == pytest.approx(1.0)


def halving(values: dict[int, float], logits: np.ndarray, width: int, noise: np.ndarray | None = None):
    """A Gumbel search over moves 0..len(logits)-1 whose value in every world is ``values``."""
    legal = list(range(len(logits)))
    return GumbelHalving(
        legal,
        logits,
        np.zeros(len(legal)) if noise is None else noise,
        width,
        lambda: None,  # type: ignore[arg-type,return-value]
        lambda worlds, moves: [[values[a] for a in its] for its in moves],
    )


def test_the_search_overturns_the_prior_when_the_values_say_so_and_keeps_its_budget() -> None:
    logits = np.array([1.0, 0.0, 0.0, 0.0])  # the prior favours move 0, move 2 is far better
    search = halving({0: -0.5, 1: -0.5, 2: 0.9, 3: -0.5}, logits, width=4)
    search.run(16, None)
    assert search.sims <= 16
    assert search.choice() == 2
    assert int(np.argmax(search.policy())) == 2


def test_only_the_considered_moves_are_valued_and_the_noise_picks_them() -> None:
    logits = np.zeros(6)
    noise = np.array([0.0, 5.0, 0.0, 4.0, 0.0, 0.0])  # moves 1 and 3 drawn
    search = halving({a: 0.0 for a in range(6)}, logits, width=2, noise=noise)
    search.run(8, None)
    assert set(search.visits()) == {1, 3}
    assert search.choice() == 1  # equal values: the noise decides


def test_a_budget_too_small_for_a_round_plays_the_drawn_move() -> None:
    search = halving({0: 1.0, 1: -1.0}, np.array([0.0, 2.0]), width=2)
    search.run(1, None)
    assert search.sims == 0 and search.choice() == 1


# ---------------------------------------------------------------- the value head
@pytest.fixture(scope="module")
def uno_net_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped 4-player UNO actor with a new value head, written as a run's network."""
    folder = tmp_path_factory.mktemp("net")
    net = PolicyValueNet.from_pretrained(load_pretrained("uno", 4), [32])
    write_network(net, folder / "network", game_spec("uno").engine_class()(4), {})
    (folder / "settings.json").write_text(json.dumps({"backend": "az", "game": "uno", "num_players": 4}))
    return folder


def test_the_written_network_plays_as_the_shipped_actor_and_values_as_torch(uno_net_dir: Path) -> None:
    shipped, written = load_pretrained("uno", 4), read_network(uno_net_dir / "network")
    game = game_spec("uno").engine_class()(4)
    game.reset(seed=3)
    observation, mask = game.observe(game.current_player)[None], game.action_mask()[None]
    assert written.logits(observation, mask) == pytest.approx(shipped.logits(observation, mask), abs=1e-5)
    net = PolicyValueNet.from_pretrained(written, [32])
    with torch.no_grad():
        _, value = net(torch.as_tensor(observation), torch.as_tensor(mask > 0))
    assert written.values(observation) == pytest.approx(value.numpy(), abs=1e-5)
    assert -1.0 < float(written.values(observation)[0]) < 1.0


def test_a_new_network_scales_as_the_ppo_agents_and_survives_its_round_trip(tmp_path: Path) -> None:
    from card_envs.agents.networks import ScaledObservation
    from card_envs.envs.single import observation_box

    table = game_spec("chipit").engine_class()(4)
    torch.manual_seed(0)
    net = PolicyValueNet.fresh(table, [16, 8])
    expected = ScaledObservation(observation_box(table, False)).scale.numpy()
    assert net.scale.numpy() == pytest.approx(expected)
    write_network(net, tmp_path / "network", table, {})
    read = read_network(tmp_path / "network")
    table.reset(seed=1)
    observation, mask = table.observe(table.current_player)[None], table.action_mask()[None]
    with torch.no_grad():
        logits, value = net(torch.as_tensor(observation), torch.as_tensor(mask > 0))
    legal = mask[0] > 0
    assert read.logits(observation, mask)[0][legal] == pytest.approx(logits.numpy()[0][legal], abs=1e-5)
    assert read.values(observation) == pytest.approx(value.numpy(), abs=1e-5)
    assert read.card["network"]["sizes"] == [table.observation_size, 16, 8, table.num_actions]


def test_value_net_is_refused_for_a_network_without_a_value_head() -> None:
    with pytest.raises(ValueError, match="value head"):
        make_policy("search:value=net:net=pretrained", "uno", 4)


def test_a_leaf_cut_short_is_worth_what_the_value_says() -> None:
    spec = game_spec("uno")
    table = spec.engine_class()(4)
    rule = make_policy("rule", spec, 4)
    rollouts = BatchedRollouts(
        spec, table, rule, rule, 8, horizon=1, leaf=lambda obs: np.full(len(obs), 0.25)
    )
    table.reset(seed=5)
    seat = table.current_player
    moves = table.legal_actions()[:3]
    values = rollouts.values_after([table], [moves], seat, np.random.default_rng(0))[0]
    assert values.shape == (len(moves), 4)
    assert np.all(values == 0.25)  # one action, then the value of every seat's observation


def test_a_gumbel_search_with_the_value_head_plays_a_whole_game(uno_net_dir: Path) -> None:
    spec = game_spec("uno")
    searcher = make_policy(
        f"search:algo=gumbel:net={uno_net_dir}:value=net:horizon=1:sims=4:mix=0.25", spec, 4
    )
    game = spec.engine_class()(4)
    players = [searcher] + [make_policy("rule", spec, 4)] * 3
    outcome = play_game(game, players, np.random.default_rng(1), deal=2)
    assert game.is_over and not outcome.truncated
    assert searcher.last is not None and searcher.last.policy is not None
    assert searcher.last.policy.sum() == pytest.approx(1.0)
    assert set(searcher.last.visits) <= set(np.flatnonzero(searcher.last.policy))


# ---------------------------------------------------------------- the trainer
SMALL = AZSettings(iterations=2, games=2, sims=4, width=2, eval_games=4, workers=1, hidden=[32])


def test_samples_do_not_depend_on_how_the_games_are_split(uno_net_dir: Path) -> None:
    knobs = SMALL.search_knobs()
    whole = play_games(Table.of("uno", 4), str(uno_net_dir), knobs, None, "decider", [7, 8])
    parts = Samples.concatenate(
        [play_games(Table.of("uno", 4), str(uno_net_dir), knobs, None, "decider", [s]) for s in (7, 8)]
    )
    assert len(whole) > 0
    for name in ("observations", "masks", "policies", "values", "games"):
        assert np.array_equal(getattr(whole, name), getattr(parts, name))
    assert np.all(np.abs(whole.values) <= 1.0) and whole.values.max() == pytest.approx(
        1.0
    )  # a winner decided
    assert np.all(whole.policies[whole.masks == 0] == 0)
    assert np.allclose(whole.policies.sum(axis=1), 1.0, atol=1e-5)


def test_a_run_in_miniature_writes_its_files_and_a_resumed_run_ends_where_a_straight_one_does(
    tmp_path: Path,
) -> None:
    table = Table.of("uno", 4)
    straight = tmp_path / "straight"
    train_az(table, SMALL, straight, progress=lambda line: None)
    rows = (straight / "progress.csv").read_text().splitlines()
    assert len(rows) == 1 + 3  # the header, the start and two iterations
    assert "heuristic" in rows[0] and "rule_sound" in rows[0]
    assert json.loads((straight / "settings.json").read_text())["backend"] == "az"

    halves = tmp_path / "halves"
    train_az(table, AZSettings(**{**SMALL.to_json(), "iterations": 1}), halves, progress=lambda line: None)
    train_az(table, SMALL, halves, resume=True, progress=lambda line: None)
    with np.load(straight / "network.npz") as a, np.load(halves / "network.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            assert np.array_equal(a[key], b[key]), key

    greedy = make_policy(f"greedy:{straight}", "uno", 4)  # the run's network plays as a spec
    game = game_spec("uno").engine_class()(4)
    play_game(game, [greedy] * 4, np.random.default_rng(0), deal=1)
    assert game.is_over


def test_every_view_adds_each_seats_view_with_its_result_and_no_policy_target(uno_net_dir: Path) -> None:
    table, knobs = Table.of("uno", 4), SMALL.search_knobs()
    searched = play_games(table, str(uno_net_dir), knobs, None, "decider", [7])
    every = play_games(table, str(uno_net_dir), knobs, None, "every", [7])
    views = every.policies.sum(axis=1) == 0
    assert np.array_equal(every.observations[~views], searched.observations)  # the same game
    assert np.array_equal(every.policies[~views], searched.policies)
    assert views.sum() % 4 == 0 and views.sum() >= 4 * len(searched)  # 4 views a decision
    assert np.allclose(np.unique(every.values[views]), sorted(rank_rewards([1, 2, 3, 4])))


def test_the_value_positions_are_every_seats_view_with_that_seats_result(uno_net_dir: Path) -> None:
    samples = value_positions(Table.of("uno", 4), str(uno_net_dir), [5])
    assert len(samples) > 0 and len(samples) % 4 == 0  # every seat's view at each decision
    assert not samples.policies.any()  # a fit to them moves the value head alone
    assert np.allclose(np.unique(samples.values), sorted(rank_rewards([1, 2, 3, 4])))
    assert set(samples.games.tolist()) == {5}


def test_the_value_warm_up_fits_the_value_head_alone_before_the_first_search(tmp_path: Path) -> None:
    table = Table.of("uno", 4)
    warm = {**SMALL.to_json(), "value_warmup": 2, "eval_games": 0}
    train_az(table, AZSettings(**{**warm, "iterations": 0}), tmp_path / "warm", progress=lambda line: None)
    start = PolicyValueNet.from_pretrained(load_pretrained("uno", 4), [32])
    with np.load(tmp_path / "warm" / "network.npz") as warmed:
        for key, array in start.arrays().items():
            if key.startswith("value"):
                assert not np.array_equal(warmed[key], array), key  # it learnt
            else:
                assert np.array_equal(warmed[key], array), key  # the policy did not move
    assert (tmp_path / "warm" / "samples" / "warmup.npz").is_file()
    train_az(table, AZSettings(**{**warm, "iterations": 1}), tmp_path / "on", progress=lambda line: None)
    rows = (tmp_path / "on" / "progress.csv").read_text().splitlines()
    assert "warmup_value_loss" in rows[0] and "policy_loss" in rows[0] and len(rows) == 3


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--games", "0"], "games must be"),
        (["--mix", "2"], "mix"),
        (["--value", "guess"], "invalid choice: 'guess'"),
        (["--sims", "-1"], "--sims"),
        (["--opponents", "genius"], "opponent 'genius'"),
        (["--resume"], "no checkpoint"),
    ],
)
def test_train_py_refuses_bad_az_options_in_one_line(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--algo", "az", "--out", str(out), *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()
