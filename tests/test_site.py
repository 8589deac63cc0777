"""The documentation site builds with --strict (a broken link, anchor or API reference fails
it), every page of docs/ is in its navigation, and the README stays short with working links."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def nav_pages() -> set[str]:
    return set(re.findall(r":\s*([\w/.-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), re.M))


def test_every_page_is_in_the_sites_navigation():
    pages = {str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md") if "results" not in page.parts}
    assert pages == nav_pages()


def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    api = (tmp_path / "site" / "reference" / "api.html").read_text()
    assert "CardGameAECEnv" in api and "def reset" not in api  # rendered from docstrings, no source
    for page in (tmp_path / "site").rglob("*.html"):  # nothing fetched from elsewhere at run time
        assert not re.search(r"""<(script|link)[^>]+(src|href)=["']https?://""", page.read_text()), page


def test_the_readme_is_short_and_its_links_lead_somewhere():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 160
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", readme):
        assert (ROOT / target).exists(), target
