"""What the page offers: the games, their table sizes and rules, and the opponents.

Rules are the engine's own keywords with their defaults (a string rule offers the values the
game's shared rule mixes use besides its default; the engine checks any other). Opponents are
policy specs (:mod:`card_envs.agents.specs`): presets (random, the rule-based agent, its knob
mixes, the heuristic), trained runs found in the server's ``--runs`` folders, and any other
spec :func:`~card_envs.agents.specs.check_spec` accepts (search and pretrained agents once
they exist). A spec naming a path (``model:DIR``) must name one inside those folders.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from card_envs.agents.policy_spec import PolicySpec, rule_spec
from card_envs.agents.registry import heuristic_class, rule_agent_spec
from card_envs.agents.runs import MODEL_FILE
from card_envs.agents.specs import check_spec, rule_agent_class
from card_envs.core.registry import game_class, game_spec, game_specs
from card_envs.core.table import Table
from card_envs.web.folders import Folders, OutsideFoldersError

#: spec kinds whose argument is a path on this machine


class BadRequestError(ValueError):
    """A request the server refuses with 400; the message names the input and what is allowed."""


def _keywords(cls: type) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()  # type: ignore[misc]
        if name not in ("self", "num_players") and p.default is not inspect.Parameter.empty
    }


def rule_options(name: str) -> list[dict[str, Any]]:
    """The variant rules of a game: name, kind, default, and the values offered for a string."""
    cls = game_class(name)
    defaults = _keywords(cls)
    mixes = game_spec(name).rule_mixes
    rules = []
    for rule in cls.rule_names():
        default = defaults.get(rule)
        entry: dict[str, Any] = {"name": rule, "default": default, "kind": type(default).__name__}
        if isinstance(default, str):
            seen = [default, *(m[rule] for m in mixes if rule in m and isinstance(m[rule], str))]
            entry["options"] = list(dict.fromkeys(seen))
        rules.append(entry)
    return rules


#: specs offered as presets wherever :func:`check_spec` builds them (agents still to come)
LATER_PRESETS = {
    "pretrained": "pretrained (shipped agent)",
    "search:sims=100": "search (100 rollouts a move)",
}


@functools.cache
def later_presets(name: str, players: int) -> tuple[tuple[str, str], ...]:
    """The :data:`LATER_PRESETS` this installation can build for the game (checked once)."""
    found = []
    for spec, label in LATER_PRESETS.items():
        try:
            check_spec(spec, name, players)
        except (ValueError, ImportError):
            continue
        found.append((spec, label))
    return tuple(found)


def opponent_presets(name: str) -> list[dict[str, str]]:
    """Ready-made opponents: the rule-based agent (default knobs, then its knob mixes), the
    heuristic player (each where the game has one), the search and pretrained agents where
    they exist, and the random one."""
    presets = []
    if rule_knobs(name) is not None:
        presets.append({"spec": "rule", "label": "rule-based (default knobs)"})
        for knobs in rule_agent_spec(name).knob_mix:
            spec = rule_spec(dict(knobs))
            label = "rule-based, " + PolicySpec.parse(spec).argument.replace(":", ", ")
            presets.append({"spec": spec, "label": label})
    try:
        heuristic_class(name)
        presets.append({"spec": "heuristic", "label": "heuristic"})
    except ValueError:
        pass
    presets += [
        {"spec": spec, "label": label}
        for spec, label in later_presets(name, game_class(name).default_players)
    ]
    return [*presets, {"spec": "random", "label": "random"}]


def rule_knobs(name: str) -> dict[str, Any] | None:
    """The knobs of the game's rule-based agent and their defaults (None: it has none)."""
    try:
        return _keywords(rule_agent_class(name))
    except ValueError:
        return None


def trained_runs(runs: Folders, name: str) -> list[dict[str, Any]]:
    """Run directories in the ``--runs`` folders trained for this game, each with the table
    sizes it fits (as its settings.json says; every size when it says none)."""
    cls = game_class(name)
    found = []
    for model in runs.files(MODEL_FILE, limit=200):
        fits = []
        for players in range(cls.min_players, cls.max_players + 1):
            try:
                check_spec(f"model:{model.parent}", name, players, what="run")
            except ValueError:
                continue
            fits.append(players)
        if fits:
            name, label = runs.name_of(model.parent), runs.label_of(model.parent)
            for kind, how in (("greedy", "greedy"), ("model", "samples")):
                found.append({"spec": f"{kind}:{name}", "label": f"trained {label} ({how})", "players": fits})
    return found


def catalog(runs: Folders) -> dict[str, Any]:
    """Every registered game with its table sizes, rules, rule-agent knobs and opponents."""
    games = []
    for name in game_specs():
        cls = game_class(name)
        games.append(
            {
                "name": name,
                "title": game_spec(name).title,
                "min_players": cls.min_players,
                "max_players": cls.max_players,
                "default_players": cls.default_players,
                "rules": rule_options(name),
                "knobs": [
                    {"name": k, "default": v, "kind": type(v).__name__}
                    for k, v in (rule_knobs(name) or {}).items()
                ],
                "presets": opponent_presets(name),
                "runs": trained_runs(runs, name),
            }
        )
    return {"games": games}


def new_table(name: Any, players: Any, rules: Any) -> Table:
    """The table a request asks for, or :class:`BadRequestError` naming the bad field."""
    known = list(game_specs())
    if not isinstance(name, str) or name not in known:
        raise BadRequestError(f"unknown game {name!r}; the games are {', '.join(known)}")
    cls = game_class(name)
    if players is None:
        players = cls.default_players
    if isinstance(players, bool) or not isinstance(players, int):
        raise BadRequestError(f"players must be an int {cls.min_players}..{cls.max_players}, got {players!r}")
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise BadRequestError(f"rules must be an object of rule keywords, got {rules!r}")
    try:
        return Table.of(name, players, **rules)
    except (ValueError, TypeError) as error:
        raise BadRequestError(str(error)) from None


def check_opponent(spec: Any, table: Table, runs: Folders) -> str:
    """``spec`` if it names a policy this server may build at this table, else
    :class:`BadRequestError` (:class:`OutsideFoldersError` for a path outside the run folders)."""
    if not isinstance(spec, str) or not spec:
        raise BadRequestError(f"an opponent must be a policy spec string, got {spec!r}")
    if spec == "self":
        raise BadRequestError("the opponent 'self' is a training pool; pick a trained run instead")
    parsed = PolicySpec.parse(spec)
    if parsed.path is not None:
        spec = f"{parsed.kind}:{runs.resolve(parsed.path)}"
    try:
        check_spec(spec, table, what="opponent")
    except ValueError as error:
        if isinstance(error, OutsideFoldersError):
            raise
        raise BadRequestError(str(error)) from None
    return spec


def check_people(seat: Any, players: int) -> tuple[int, ...]:
    """The people's seats from a new game's ``seat``: one seat, a list of distinct seats (the
    creator's first, then the friends invited), or null (nobody: agents are watched)."""
    seats = [] if seat is None else seat if isinstance(seat, list) else [seat]
    wrong = [s for s in seats if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < players]
    if wrong or len(set(seats)) != len(seats) or (isinstance(seat, list) and not seats):
        raise BadRequestError(
            f"seat must be a seat 0..{players - 1}, a list of distinct seats (yours first, then"
            f" the friends you invite), or null to watch agents; got {seat!r}"
        )
    return tuple(seats)
