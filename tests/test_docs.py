"""The docs stay in step with the code: every observation field and rule keyword is documented."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from card_envs.games import GAME_ENGINES, game_class

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("game", sorted(GAME_ENGINES))
def test_every_observation_field_is_documented(game):
    cls = game_class(game)
    text = (DOCS / f"{game}.md").read_text()
    for field in cls(cls.default_players).observation_layout.fields:
        assert f"`{field.name}`" in text, f"observation field {field.name!r} missing from docs/{game}.md"


@pytest.mark.parametrize("game", sorted(GAME_ENGINES))
def test_every_variant_keyword_is_in_the_rules_doc(game):
    text = (DOCS / "rules" / f"{game}.md").read_text()
    params = inspect.signature(game_class(game).__init__).parameters.values()
    for keyword in (p.name for p in params if p.kind is p.KEYWORD_ONLY):
        assert f"`{keyword}" in text, f"variant keyword {keyword!r} missing from docs/rules/{game}.md"


def test_readme_quickstart_commands_exist():
    readme = (DOCS.parent / "README.md").read_text()
    assert "python3 tasks.py train" in readme and "python3 tasks.py test" in readme


def test_readme_python_examples_run(capsys):
    """The README's code blocks run as written (training shortened to a few hundred steps)."""
    readme = (DOCS.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) >= 3
    code = "\n".join(blocks).replace("model.learn(50_000)", "model.learn(256)")
    code = code.replace("env, verbose=1)", "env, n_steps=128)")
    code = code.replace("episodes=300", "episodes=5")
    exec(compile(code, "README.md", "exec"), {})
    assert "win rate" in capsys.readouterr().out
