"""Shared by the notebook builders: wrap cells in a notebook, execute it with the venv's kernel, write it."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient


def md(text: str) -> nbformat.NotebookNode:
    """A markdown cell (surrounding blank lines stripped)."""
    return nbformat.v4.new_markdown_cell(text.strip())


def code(text: str) -> nbformat.NotebookNode:
    """A code cell (surrounding blank lines stripped)."""
    return nbformat.v4.new_code_cell(text.strip())


def execute_and_write(cells: list, out: Path, timeout: int = 600) -> None:
    """Build a notebook from ``cells``, execute it in ``out``'s folder (python3 kernel) and write it to ``out``."""
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(out.parent)}}).execute()
    nbformat.write(nb, out)
    print(f"wrote {out}")
