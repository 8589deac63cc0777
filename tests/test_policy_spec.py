"""A policy spec is read once, into a :class:`PolicySpec`, and built through the registry of
kinds: these check the parse, and that every kind the docs name is one the registry builds."""

from __future__ import annotations

import pytest

from card_envs.agents.policy_spec import PATH_KINDS, PolicySpec, spec_kind
from card_envs.agents.specs import KINDS, make_policy


@pytest.mark.parametrize(
    "text, kind, argument",
    [
        ("rule", "rule", ""),
        ("rule:vigilance=0.5:target=random", "rule", "vigilance=0.5:target=random"),
        ("model:runs/a:b", "model", "runs/a:b"),  # a path keeps its own colons
        ("search:sims=40", "search", "sims=40"),
    ],
)
def test_a_spec_is_its_kind_and_what_follows(text, kind, argument):
    spec = PolicySpec.parse(text)
    assert (spec.kind, spec.argument) == (kind, argument)
    assert str(spec) == text
    assert spec_kind(text) == kind


def test_only_the_path_kinds_name_a_path():
    assert PolicySpec.parse("greedy:runs/x").path == "runs/x"
    assert PolicySpec.parse("model:runs/x").path == "runs/x"
    assert PolicySpec.parse("rule:vigilance=0.5").path is None
    assert set(PATH_KINDS) <= set(KINDS)


def test_knobs_are_typed():
    assert PolicySpec.parse("rule:vigilance=0.5:target=random:slow=false").knobs() == {
        "vigilance": 0.5,
        "target": "random",
        "slow": False,
    }
    assert PolicySpec.parse("heuristic").knobs() == {}


def test_a_spec_without_a_kind_is_refused():
    with pytest.raises(ValueError, match="starts with its kind"):
        PolicySpec.parse(":vigilance=0.5")


def test_every_kind_the_builder_names_is_registered():
    """make_policy's docstring is what users read: each kind it lists has a builder."""
    doc = make_policy.__doc__ or ""
    for kind in KINDS:
        assert f'"{kind}' in doc, kind


@pytest.mark.parametrize("text", ["self:x", "strong:x", "heuristic:x", "nonsense"])
def test_what_a_kind_does_not_take_is_refused_by_name(text):
    with pytest.raises(ValueError, match=text.split(":")[0]):
        make_policy(text, "uno", 4)
