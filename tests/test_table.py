"""A Table (game spec, players, rules) is made and checked once, then passed down."""

from __future__ import annotations

import pickle

import pytest

from card_envs.agents.search import SearchPlayer
from card_envs.agents.specs import make_policy
from card_envs.batched.game import BatchedGame
from card_envs.core.registry import game_spec
from card_envs.core.table import Table
from card_envs.envs.aec import aec_env_class
from card_envs.envs.single import CardGameEnv
from card_envs.envs.vector import BatchedCardGameEnv


def test_a_table_names_its_spec_players_and_rules_and_fills_the_default_count():
    table = Table.of("uno", stacking=False)
    assert table.spec is game_spec("uno") and table.name == "uno"
    assert table.num_players == game_spec("uno").engine_class().default_players
    assert table.rules == {"stacking": False} and table.engine().rules["stacking"] is False
    assert repr(table) == "Table('uno', 4, stacking=False)"


def test_equal_tables_hash_alike_and_travel_to_a_worker():
    table = Table.of("tock", 3)
    assert table == Table.of(game_spec("tock"), 3) and hash(table) == hash(Table.of("tock", 3))
    assert table != Table.of("tock", 4) and table != Table.of("uno", 3)
    assert pickle.loads(pickle.dumps(table)) == table
    assert len({Table.of("uno", stacking=False), Table.of("uno", stacking=False)}) == 1


@pytest.mark.parametrize(
    ("game", "players", "rules", "message"),
    [
        ("nope", 4, {}, "unknown game 'nope'"),
        ("uno", 11, {}, "2..10"),
        ("uno", 4, {"stacking_typo": True}, "unknown uno rule keyword"),
    ],
)
def test_a_bad_table_is_refused_when_it_is_made(game, players, rules, message):
    with pytest.raises(ValueError, match=message):
        Table.of(game, players, **rules)


def test_a_table_is_taken_as_it_is_and_a_disagreeing_count_or_rules_are_refused():
    table = Table.of("uno", 3)
    assert Table.of(table) is table and Table.of(table, 3) is table
    with pytest.raises(ValueError, match="3-player uno table, not 4"):
        Table.of(table, 4)
    with pytest.raises(ValueError, match="rules are"):
        Table.of(table, stacking=False)


def test_every_layer_takes_a_table_and_keeps_it():
    table = Table.of("chipit", 3)
    assert CardGameEnv(table).table == table and CardGameEnv(table).game.num_players == 3
    assert BatchedCardGameEnv(table, 2).table == table and BatchedGame(table, 2).table == table
    assert aec_env_class(table.spec)(num_players=3).table == table
    assert CardGameEnv("chipit", 3).table == table  # a name and count make the same table
    assert SearchPlayer(table, sims=2).table == table
    rule = make_policy("rule", table)
    assert rule.num_players == 3  # type: ignore[attr-defined]


def test_an_engine_class_without_a_spec_gets_a_table_of_its_own():
    engine = game_spec("uno").engine_class()
    table = Table.of(engine, 2)
    assert table.name == engine.name and table.spec.engine_class() is engine
    assert CardGameEnv(engine, 2).table == table
