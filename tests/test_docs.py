"""The docs stay in step with the code: every observation field and rule keyword is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from card_envs.cli.docs_tables import documented_games, observation_table
from card_envs.core.registry import game_class, game_spec

DOCS = Path(__file__).resolve().parent.parent / "docs"
BUILT_IN = sorted(documented_games())


def test_every_built_in_game_has_its_pages():
    assert BUILT_IN == ["chipit", "tock", "uno"]
    assert all((DOCS / "rules" / f"{game}.md").exists() for game in BUILT_IN)


@pytest.mark.parametrize("game", BUILT_IN)
def test_observation_table_is_the_layout_itself(game):
    """docs/<game>.md shows ObservationLayout.markdown_table(); `python3 tasks.py docs` rewrites it."""
    assert observation_table(game_spec(game)) in (DOCS / f"{game}.md").read_text()


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_observation_field_is_documented(game):
    cls = game_class(game)
    text = (DOCS / f"{game}.md").read_text()
    for field in cls(cls.default_players).observation_layout.fields:
        assert f"`{field.name}`" in text, f"observation field {field.name!r} missing from docs/{game}.md"


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_variant_keyword_is_in_the_rules_doc(game):
    text = (DOCS / "rules" / f"{game}.md").read_text()
    for keyword in game_class(game).rule_names():
        assert f"`{keyword}" in text, f"variant keyword {keyword!r} missing from docs/rules/{game}.md"


def test_readme_quickstart_commands_exist():
    readme = (DOCS.parent / "README.md").read_text()
    assert "python3 tasks.py train" in readme and "python3 tasks.py test" in readme


def run_python_blocks(page: Path, replacements: dict[str, str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert blocks, f"no python block in {page}"
    code = "\n".join(blocks)
    for old, new in replacements.items():
        assert old in code, (page, old)
        code = code.replace(old, new)
    exec(compile(code, str(page), "exec"), {})


def test_readme_python_example_runs():
    run_python_blocks(DOCS.parent / "README.md", {})


def test_the_first_env_tutorials_examples_run(capsys):
    """Its code blocks run as written (training shortened to a few hundred steps)."""
    shorter = {"model.learn(50_000)": "model.learn(256)", "env, verbose=1)": "env, n_steps=128)"}
    run_python_blocks(DOCS / "tutorials" / "first-env.md", {**shorter, "episodes=300": "episodes=5"})
    assert "win rate" in capsys.readouterr().out


@pytest.mark.parametrize("game", BUILT_IN)
def test_each_environment_pages_snippet_runs_and_its_picture_exists(game):
    page = DOCS / f"{game}.md"
    run_python_blocks(page, {})
    pictures = re.findall(r"!\[[^\]]*\]\((images/[^)]+)\)", page.read_text())
    assert pictures and all((DOCS / picture).is_file() for picture in pictures)
