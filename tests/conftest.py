"""Test-session set-up: the toy game of the test tree joins the registry, so every shared test
covers it; a worker of ``pytest -n N`` computes with one thread."""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    # the workers fill the cores already: torch's and numba's thread pools beside them only
    # contend (one test's torch fit took 15 s in the suite, 3 s alone), as train.py's runs found
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(name, "1")

import tests.toy_game  # noqa: F401  (registers the game "climb")
