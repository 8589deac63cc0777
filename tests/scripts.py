"""Scripts of the repository (examples, benches) loaded as modules, so tests call their functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(relative_path: str) -> ModuleType:
    """The script at ``relative_path`` (from the repository root), executed as a fresh module:
    examples and benches are files, not a package. It is registered in ``sys.modules`` under its
    file's stem, as an import would register it, so its dataclasses can resolve their annotations;
    its folder goes on ``sys.path``, as for a script run, so it imports its neighbours."""
    path = ROOT / relative_path
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
