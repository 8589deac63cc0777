"""Test-session set-up: the toy game of the test tree joins the registry, so every shared test covers it."""

import tests.toy_game  # noqa: F401  (registers the game "climb")
