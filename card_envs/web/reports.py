"""Evaluation folders (``evaluate.py --out``) for the report mode: their Markdown, tables and plots.

:func:`card_envs.evaluation.report.write_report` writes ``report.md`` (tables, notes, plot
links), ``results.json`` and PNG plots into one folder; the page shows the Markdown with
its plots inline. Only those kinds of file are served.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from card_envs.web.folders import Folders

#: the files of a report folder the server sends, by suffix, with their media types
REPORT_FILES = {".md": "text/markdown", ".png": "image/png", ".json": "application/json", ".csv": "text/csv"}


def report_list(reports: Folders) -> list[dict[str, Any]]:
    """Every folder under the report folders that holds a ``report.md``."""
    return [
        {
            "name": reports.name_of(path.parent),
            "label": reports.label_of(path.parent),
            "files": report_files(path.parent),
        }
        for path in reports.files("report.md", limit=200)
    ]


def report_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix in REPORT_FILES)
