"""The documented examples run: module docstrings (doctest) and the Python block of docs/screen.md."""

from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys

import pytest
from screen_helpers import REPO

MODULES = ["config", "table", "indices", "tiers", "phase_b", "report", "screening", "stability", "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples(name):
    mod = importlib.import_module("trainers.screen" if name == "__init__" else f"trainers.screen.{name}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_docs_python_example_runs(tmp_path):
    text = (REPO / "docs" / "screen.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/screen.md has no python example"
    script = tmp_path / "example.py"
    script.write_text("\n".join(blocks), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "Valid none"
    assert any(line.startswith("Invalid blanket confidence") for line in lines)
    assert (tmp_path / "screen.png").exists() and (tmp_path / "screen.md").exists()
