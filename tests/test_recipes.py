"""Each game's measured recipe (GameSpec.recipe) as train.py's defaults, at two scales."""

from __future__ import annotations

import dataclasses

import pytest

from card_envs.cli import train as train_cli
from card_envs.core.registry import game_spec, game_specs
from card_envs.training.settings import RECIPES, TrainSettings, recipe_options

WITH_RECIPES = [name for name, spec in game_specs().items() if spec.recipe]


def cli_settings(*argv: str) -> TrainSettings:
    parser = train_cli.build_parser()
    args = parser.parse_args(list(argv))
    return train_cli.settings_from(args, {})


def test_every_built_in_game_names_a_recipe_on_its_batched_engine():
    assert set(WITH_RECIPES) >= {"uno", "tock", "chipit"}
    for name in WITH_RECIPES:
        assert game_spec(name).recipe["vectorized"] is True


@pytest.mark.parametrize("game", WITH_RECIPES)
@pytest.mark.parametrize("recipe", RECIPES)
def test_each_recipe_is_valid_and_recorded_in_the_settings(game, recipe):
    settings = TrainSettings.from_options(game=game, recipe=recipe)
    settings.check()  # valid, without building an env
    options = recipe_options(game_spec(game), recipe)
    saved = settings.as_json()
    assert saved["recipe"] == {"name": recipe, "options": options}
    assert saved["run"]["timesteps"] == options["timesteps"] == game_spec(game).recipe["timesteps"][recipe]
    assert saved["run"]["vectorized"] is True and saved["run"]["envs"] == options["envs"]
    for name, value in options.get("ppo", {}).items():
        assert saved["ppo"][name] == value
    teacher = options.get("teacher")
    if teacher is not None:
        assert settings.teacher() == teacher
    if "reward_shaping" in options:
        assert saved["learner"]["reward_shaping"] == options["reward_shaping"]


@pytest.mark.parametrize("game", WITH_RECIPES)
def test_train_py_with_only_the_game_trains_the_full_recipe_and_quick_scales_it(game):
    plain = cli_settings("--game", game)
    assert plain.recipe == "full"
    assert plain.as_json() == TrainSettings.from_options(game=game, recipe="full").as_json()
    quick = cli_settings("--game", game, "--recipe", "quick")
    assert quick.run.timesteps < plain.run.timesteps
    assert dataclasses.replace(quick.run, timesteps=plain.run.timesteps) == plain.run  # only the scale


def test_options_given_beside_the_recipe_override_it():
    settings = cli_settings(
        "--game", "tock", "--envs", "4", "--lr", "0.001", "--teacher", "rule", "--no-vectorized"
    )
    ppo = settings.ppo_settings()
    assert settings.run.envs == 4 and not settings.run.vectorized
    assert ppo["learning_rate"] == 0.001 and ppo["n_steps"] == game_spec("tock").recipe["ppo"]["n_steps"]
    assert settings.teacher() == "rule"


def test_the_rllib_backend_takes_no_recipe():
    settings = cli_settings("--backend", "rllib", "--game", "tock")
    assert settings.recipe == "" and not settings.run.vectorized
    assert settings.run.timesteps == train_cli.TIMESTEPS_WITHOUT_RECIPE


def test_train_py_offers_the_training_layers_recipes():
    assert train_cli.RECIPE_NAMES == RECIPES


@pytest.mark.parametrize(
    ("recipe", "message"),
    [
        ({"envz": 3}, "recipe names unknown option"),
        ({"timesteps": 1000}, "recipe timesteps must name"),
        ({"timesteps": {"quick": 10}}, "recipe timesteps must name"),
    ],
)
def test_a_bad_recipe_is_refused_naming_the_game(recipe, message):
    spec = dataclasses.replace(game_spec("tock"), recipe=recipe)
    with pytest.raises(ValueError, match=f"tock's {message}"):
        recipe_options(spec, "quick")
    with pytest.raises(ValueError, match="recipe must be one of"):
        recipe_options(game_spec("tock"), "medium")


def test_a_game_without_a_recipe_keeps_the_general_defaults():
    settings = TrainSettings.from_options(game="climb", recipe="quick")
    assert settings.run == TrainSettings.from_options(game="climb").run
