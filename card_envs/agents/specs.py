"""Policies from short specs, or line-ups of them (one per seat).

* ``"random"``: uniform over the legal actions;
* ``"rule"``, ``"rule:vigilance=0.5:target=random"``: the game's rule-based agent, with knobs;
* ``"heuristic"``: the game's heuristic player, written independently of the rule agent
  (``card_envs/agents/<game>/heuristic.py``; no knobs);
* ``"model:PATH"``: a trained model (a run directory or a ``.zip``; MaskablePPO or, for a
  ``train.py --backend rllib`` run, RLlib), refused with one clear sentence on a table it
  was not trained for; it samples from its distribution;
* ``"greedy:PATH"``: the same model always playing its most probable legal action
  (how the learning results are measured: docs/learning.md);
* ``"self"``: a self-play pool of the learner's snapshots (filled by the trainer);
* ``"search"``, ``"search:sims=400:rollout=rule"``: a search player
  (:mod:`card_envs.agents.search`; knobs: :class:`~card_envs.agents.search.SearchSettings`);
* ``"pretrained"``, ``"pretrained:GAME"``: the agent shipped with the package for this table
  (:mod:`card_envs.agents.pretrained`; numpy alone, no extra needed);
* ``"strong"``: the game's strongest player at at most 50 ms a decision on one core
  (``GameSpec.strong``, a spec of the kinds above; docs/strong.md).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from card_envs.agents.policy_spec import PolicySpec, parse_knobs
from card_envs.agents.registry import heuristic_class, rule_agent_spec
from card_envs.agents.runs import check_trained_run
from card_envs.core.extras import require
from card_envs.core.policy import Policy, RandomAgent
from card_envs.core.registry import GameRef
from card_envs.core.table import Table

#: what names a policy: a spec's text or a Policy itself
PolicyLike = str | Policy
#: builds one kind's policy: (the parsed spec, the table, the rule agent's extra knobs)
Builder = Callable[[PolicySpec, Table, dict[str, Any]], Policy]


def rule_agent_class(game: GameRef) -> type[Policy]:
    """The rule-based agent class registered for a game (:mod:`card_envs.agents.registry`)."""
    return rule_agent_spec(game).agent


def spec_label(spec: PolicyLike) -> str:
    """How a spec is named in tables and reports (a model by its run directory or file name)."""
    if not isinstance(spec, str):
        return repr(spec)
    parsed = PolicySpec.parse(spec)
    return spec if parsed.path is None else f"{parsed.kind}:{Path(parsed.path).name}"


def no_argument(spec: PolicySpec) -> None:
    if spec.argument:
        raise ValueError(f"{spec.kind!r} takes no knobs (only 'rule' and 'search' do), got {str(spec)!r}")


def build_random(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    no_argument(spec)
    return RandomAgent()


def build_heuristic(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    no_argument(spec)
    return heuristic_class(table.spec)(num_players=table.num_players)  # type: ignore[call-arg]


def build_rule(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    cls = rule_agent_class(table.spec)
    knobs = {**spec.knobs(), **knobs}
    known = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "num_players")]
    unknown = sorted(set(knobs) - set(known))
    if unknown:
        raise ValueError(f"unknown knob(s) {unknown} for {cls.__name__}; known: {known}")
    return cls(num_players=table.num_players, **knobs)  # type: ignore[call-arg]


def build_model(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    require("train", f"the policy {str(spec)!r}")
    from card_envs.agents.model import load_model

    model = load_model(spec.argument, deterministic=spec.kind == "greedy")
    model.check_table(table.engine())
    return model


def build_self(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    require("train", "the policy 'self'")
    from card_envs.agents.model import SelfPlayPool

    return SelfPlayPool()


def build_strong(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    return make_policy(table.spec.strong, table)


def build_search(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    return make_search_player(spec.argument, table)


def build_pretrained(spec: PolicySpec, table: Table, knobs: dict[str, Any]) -> Policy:
    from card_envs.agents.pretrained import make_pretrained

    pretrained = make_pretrained(spec.argument, table)
    pretrained.check_table(table.engine())
    return pretrained


#: every kind of spec and what builds it: make_policy looks the kind up here
KINDS: dict[str, Builder] = {
    "random": build_random,
    "rule": build_rule,
    "heuristic": build_heuristic,
    "model": build_model,
    "greedy": build_model,
    "self": build_self,
    "search": build_search,
    "pretrained": build_pretrained,
    "strong": build_strong,
}


def make_policy(
    spec: PolicyLike, table: Table | GameRef, num_players: int | None = None, **knobs: Any
) -> Policy:
    """Build a policy for a table (a :class:`~card_envs.core.table.Table`, or a game and its
    player count: ``make_policy("rule", "uno", 4)``) from a spec: ``"random"``, ``"rule"``,
    ``"rule:KNOB=V:..."``, ``"heuristic"``, ``"model:PATH"``, ``"greedy:PATH"``, ``"self"`` (a
    training run's past selves), ``"search[:KNOB=V:...]"``, ``"pretrained[:GAME]"``,
    ``"strong"`` or a Policy (returned as it is).

    ``knobs`` go to the rule-based agent (e.g. ``vigilance=0.5``), after those in the spec;
    the random and heuristic players take none. The kind is looked up in :data:`KINDS`.
    """
    if isinstance(spec, Policy):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"a policy spec must be a string or a Policy, got {spec!r}")
    parsed = PolicySpec.parse(spec) if spec else PolicySpec("")
    build = KINDS.get(parsed.kind)
    if build is None:
        raise ValueError(
            f"unknown policy spec {spec!r};"
            " use 'random', 'rule[:KNOB=VALUE...]', 'heuristic', 'model:PATH', 'greedy:PATH', 'self',"
            " 'search[:KNOB=VALUE...]', 'pretrained[:GAME]', 'strong' or a Policy"
        )
    if parsed.kind in ("self", "strong") and parsed.argument:
        raise ValueError(f"unknown policy spec {spec!r}: {parsed.kind!r} takes nothing after it")
    return build(parsed, Table.of(table, num_players), knobs)


def make_search_player(knobs: str, table: Table) -> Policy:
    """``search[:KNOB=V...]``: the knobs are checked now, a network's run only located (it
    loads on the first decision that needs it)."""
    from card_envs.agents.search import SearchPlayer, SearchSettings

    defaults = table.spec.search_defaults(table.num_players)
    settings = SearchSettings.from_knobs(parse_knobs(knobs) if knobs else {}, defaults)
    if settings.net == "pretrained":
        make_policy("pretrained", table)  # refused here at a table without one
    elif settings.net is not None:
        require("train", "a search player with net=")
        check_trained_run(settings.net, table.engine(), what=f"search net {settings.net!r}")
    return SearchPlayer(table, settings=settings, make_policy=make_policy)


def check_spec(
    spec: str, table: Table | GameRef, num_players: int | None = None, what: str = "policy"
) -> None:
    """Raise ValueError naming ``what`` if ``spec`` could not be built at this table, without
    loading a model (a path is checked for a saved model and, where settings.json says, its table)."""
    parsed = PolicySpec.parse(spec) if spec else PolicySpec("")
    try:
        table = Table.of(table, num_players)
        if parsed.path is not None:
            check_trained_run(parsed.path, table.engine(), what=f"{what} {spec!r}")
        else:
            make_policy(spec, table)  # rule agents and random players are cheap to build
    except ValueError as error:
        message = str(error)
        raise ValueError(message if message.startswith(what) else f"{what} {spec!r}: {message}") from None


def make_policies(specs: PolicyLike | Sequence[PolicyLike], table: Table, **knobs: Any) -> list[Policy]:
    """One policy per other seat: one spec for all of them, or one per seat in seat order."""
    n_other = table.num_players - 1
    if isinstance(specs, (list, tuple)):
        if len(specs) != n_other:
            raise ValueError(f"opponents needs {n_other} entries (one per other seat), got {len(specs)}")
        return [make_policy(s, table, **knobs) for s in specs]
    assert isinstance(specs, (str, Policy))
    return [make_policy(specs, table, **knobs) for _ in range(n_other)]
