"""Every option of every tool refuses a bad value before any work: one line, exit code 2.

The rows come from docs/cli.md's table, which is the tools' own parsers
(card_envs.cli.options): an option added to a tool gets a row, and a row gets this test.
"""

from __future__ import annotations

import os

import pytest

from card_envs.cli import evaluate, play, replay, train, train_az, watch
from card_envs.cli.docs_tables import OPTIONS_PAGE, updated_options_page
from card_envs.cli.options import OptionRow, option_rows

MAINS = {"train.py": train.main, "evaluate.py": evaluate.main, "play": play.main, "watch": watch.main}
MAINS["replay"] = replay.main
MAINS["train.py --algo az"] = train_az.main
#: what each tool needs besides the option under test to get past its own required arguments
BASE = {"evaluate.py": ["--policy", "rule"], "replay": ["{record}"]}
REFUSED_ROWS = [row for row in option_rows() if row.refused]


def test_the_docs_table_is_the_parsers_own():
    text = OPTIONS_PAGE.read_text()
    assert updated_options_page(text) == text, "run: python3 tasks.py docs"


def test_every_option_but_the_flags_has_a_refused_value():
    flags = {row.option for row in option_rows() if row.check == "a flag"}
    assert all(row.refused or row.option in flags for row in option_rows())


def argv_for(row: OptionRow, tmp_path) -> list[str]:
    record = tmp_path / "game.jsonl"
    record.write_text("{}\n")
    afile = tmp_path / "afile"
    afile.write_text("")
    value = row.refused.replace("{file}", str(afile))
    base = [arg.replace("{record}", str(record)) for arg in BASE.get(row.tool, [])]
    if row.tool == "evaluate.py" and row.option in ("--agents", "--model", "--policy", "--gauntlet"):
        base = []
    if row.option == "file":
        return [value]
    return [*base, row.option, value]


@pytest.mark.parametrize("row", REFUSED_ROWS, ids=[f"{r.tool} {r.option}" for r in REFUSED_ROWS])
def test_a_refused_value_stops_the_tool_with_one_line_and_exit_code_2(row, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default run directory would be runs/ here
    argv = argv_for(row, tmp_path)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(SystemExit) as exit_info:
        MAINS[row.tool](argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0], err
    name = row.option.lstrip("-")
    named = {row.option, name, name.replace("-", "_"), name.replace("-", " "), *row.refused.split(",")}
    assert any(word in lines[0] for word in named if word), lines[0]
    assert sorted(os.listdir(tmp_path)) == before  # nothing written
    assert "Training" not in out and "games" not in out  # no work started


def test_help_names_a_default_only_where_there_is_one():
    text = train.build_parser().format_help()
    assert "(default: )" not in text and "(default: 0)" in text  # --init-from has none, --seed 0


def test_train_options_are_the_settings_fields_and_land_in_them():
    """build_parser is generated: every settings field that describes an option is one, with
    the field's help, and a value given to it reaches that field of the run's settings."""
    import dataclasses

    from card_envs.cli.args import game_rules
    from card_envs.core.fields import flat_names
    from card_envs.training.settings import SETTING_GROUPS, PPOSettings

    parser = train.build_parser()
    actions = {action.dest: action for action in parser._actions}
    groups = [*SETTING_GROUPS.values(), ("", PPOSettings)]
    for prefix, settings in groups:
        fields = {f.name: f for f in dataclasses.fields(settings)}
        for flat, name in flat_names(settings, prefix, options_only=True).items():
            assert flat in actions, f"{settings.__name__}.{name} has no option"
            assert actions[flat].help.startswith(fields[name].metadata["help"])
    argv = ["--league-window", "50", "--imitation-lr", "0.01", "--improve-beta", "3", "--shaping", "0.5"]
    argv += ["--lr", "0.001", "--no-vectorized", "--eval-games", "7", "--opponents", "league"]
    args = parser.parse_args(argv)
    settings = train.settings_from(args, game_rules(parser, args))
    assert settings.league.window == 50 and settings.imitation.learning_rate == 0.01
    assert settings.improvement.beta == 3 and settings.learner.reward_shaping == 0.5
    assert settings.ppo.learning_rate == 0.001 and settings.run.vectorized is False
    assert settings.run.eval_games == 7
