"""The optional extras of the distribution, and the one-line error naming the one a tool lacks.

The engines, batched engines, records and envs need only the core dependencies (numpy,
gymnasium, pettingzoo, numba, pillow, wrapt). The layers above them need more: the
evaluation layer scipy and openskill (``eval``), training and trained-model opponents
torch and SB3 (``train``, which includes ``eval``), the report's plots matplotlib
(``report``), the web page starlette and uvicorn (``web``). ``pyproject.toml`` lists the
same extras (tests/test_dependencies.py).
"""

from __future__ import annotations

import importlib.util

#: the modules each extra installs, as imported (pyproject.toml names their distributions)
EXTRAS: dict[str, tuple[str, ...]] = {
    "eval": ("scipy", "openskill"),
    "train": ("torch", "stable_baselines3", "sb3_contrib", "scipy", "openskill"),
    "report": ("matplotlib",),
    "web": ("starlette", "uvicorn"),
}


class MissingExtraError(ModuleNotFoundError):
    """A module of an optional extra is not installed; the message says which extra installs it."""


def missing_extra_message(purpose: str, extra: str, module: str) -> str:
    """The one sentence a user reads: what needs the extra, what is missing, how to install it."""
    install = f"pip install 'card-envs[{extra}]'"
    return f"{purpose} needs the {extra!r} extra ({module} is not installed): {install}"


def extra_providing(module: str) -> str | None:
    """The smallest extra that installs ``module`` (or its top-level package), None for any other module."""
    top = module.partition(".")[0]
    providing = [extra for extra, modules in EXTRAS.items() if top in modules]
    return min(providing, key=lambda extra: len(EXTRAS[extra]), default=None)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a finder that refuses it; a module without a spec
        return False


def require(extra: str, purpose: str) -> None:
    """Raise :class:`MissingExtraError` naming ``extra`` unless all its modules are installed.

    Finds them without importing them, so a layer can check at its entry and still import
    torch only when it uses it. ``purpose`` names what needs the extra, e.g. ``"train.py"``.
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; the extras are {', '.join(sorted(EXTRAS))}")
    for module in EXTRAS[extra]:
        if not _installed(module):
            raise MissingExtraError(missing_extra_message(purpose, extra, module), name=module)
