"""The figures the docs quote from runs match ``docs/figures.json``, and the fast ones match a fresh run.

Docs mark a quoted figure as ``<!-- fig:NAME -->TEXT<!-- /fig -->`` (invisible on GitHub) or, inside a code block,
after an anchor listed in ``scripts/docs_figures.py``'s ``CODE_FIGURES``. ``python scripts/docs_figures.py
--write-docs`` regenerates figures.json and rewrites the marked text; this test fails when the two drift apart.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "docs_figures.py"
RERUN = "rerun `python scripts/docs_figures.py --write-docs` (or fix the figure's computation)"


def _load_script():
    spec = importlib.util.spec_from_file_location("docs_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docs_figures", module)
    spec.loader.exec_module(module)
    return module


df = _load_script()


@pytest.fixture(scope="module")
def figures() -> dict[str, dict]:
    payload = json.loads((ROOT / "docs" / "figures.json").read_text())
    return payload["figures"]


def test_figures_json_entries_are_complete(figures):
    kinds = {"fast", "report", "full"}
    for name, entry in figures.items():
        assert {"value", "display", "kind", "command"} <= set(entry), f"{name}: missing keys in {sorted(entry)}"
        assert entry["kind"] in kinds, f"{name}: kind {entry['kind']!r} not in {sorted(kinds)}"
        assert isinstance(entry["display"], str) and entry["display"], f"{name}: empty display"
        assert entry["command"].strip(), f"{name}: no command recorded"


def test_docs_mark_figures():
    found = df.marked()
    names = {name for _, _, name, _ in found}
    # the figures issue 18 is about must stay marked
    for name in ("filter_gsm8k_kept", "filter_gsm8k_n", "pb_math_f1", "pb_gsm8k_f1", "diff_rafs_start",
                 "diff_rafs_end", "janet_verdict", "audit_family_count"):
        assert name in names, f"{name} is no longer marked in README.md or docs/*.md"


def test_every_marked_figure_matches_figures_json(figures):
    bad = df.mismatches(figures)
    assert not bad, f"{len(bad)} quoted figure(s) differ from docs/figures.json; {RERUN}:\n" + "\n".join(bad)


def test_markers_are_well_formed():
    """An unclosed or nested marker would make --write-docs eat text: every opening has its closing."""
    for rel in df.DOC_FILES:
        text = (ROOT / rel).read_text()
        text = df.FENCE.sub("", text)  # examples in code blocks are not figures
        opens = len(re.findall(r"<!-- fig:[A-Za-z0-9_.]+ -->", text))
        closes = text.count("<!-- /fig -->")
        assert opens == closes, f"{rel}: {opens} '<!-- fig:… -->' but {closes} '<!-- /fig -->'"
        for m in df.MARK.finditer(text):
            assert "<!--" not in m.group(2), f"{rel}: marker {m.group(1)} holds another comment"
            if "\n" in m.group(2):  # a block figure (a whole table): only names ending in _table
                assert m.group(1).endswith("_table"), f"{rel}: figure {m.group(1)} spans lines"


def test_check_detects_a_drifted_figure(figures, tmp_path, monkeypatch):
    """The check is real: a doc quoting another number fails it, and --write-docs repairs it."""
    name = "filter_gsm8k_kept"
    doc = tmp_path / "doc.md"
    doc.write_text(f"kept <!-- fig:{name} -->1<!-- /fig --> rows\n")
    monkeypatch.setattr(df, "ROOT", tmp_path)
    monkeypatch.setattr(df, "DOC_FILES", ["doc.md"])
    assert df.mismatches(figures) and name in df.mismatches(figures)[0]
    df.write_docs(figures)
    assert doc.read_text() == f"kept <!-- fig:{name} -->{figures[name]['display']}<!-- /fig --> rows\n"
    assert df.mismatches(figures) == []


def test_block_figure_is_rewritten_as_a_renderable_block(figures, tmp_path, monkeypatch):
    """A table figure keeps blank lines around it (else Markdown glues it to the comment) and round-trips."""
    doc = tmp_path / "doc.md"
    doc.write_text("before\n<!-- fig:x_table -->\n\n| a |\n|---|\n| 1 |\n\n<!-- /fig -->\nafter\n")
    monkeypatch.setattr(df, "ROOT", tmp_path)
    monkeypatch.setattr(df, "DOC_FILES", ["doc.md"])
    new = {"x_table": {"display": "| a |\n|---|\n| 2 |", "command": "c"}}
    assert df.mismatches(new)
    df.write_docs(new)
    assert doc.read_text() == "before\n<!-- fig:x_table -->\n\n| a |\n|---|\n| 2 |\n\n<!-- /fig -->\nafter\n"
    assert df.mismatches(new) == []


@pytest.fixture
def data_dir(shared_data, monkeypatch):
    """The script reads ``$RAFS_DATA_DIR`` (``data_dir()``): point it at the `shared_data` fixture."""
    monkeypatch.setenv("RAFS_DATA_DIR", str(shared_data))
    return shared_data


def _recompute(run, figures):
    fresh = run(False)
    stale = {n: (figures.get(n, {}).get("display"), d) for n, (_, d) in fresh.items()
             if figures.get(n, {}).get("display") != d}
    assert not stale, f"figures.json differs from a fresh run (name: (recorded, fresh)); {RERUN}: {stale}"


def test_fast_janet_example(figures):
    _recompute(df.run_janet, figures)


def test_fast_audit_family_count(figures):
    _recompute(df.run_audit_families, figures)


def test_report_figures_match_committed_reports(figures):
    _recompute(df.run_faithfulness, figures)
    _recompute(df.run_collapse, figures)


@pytest.mark.slow
def test_processbench_figures(figures, data_dir):
    _recompute(df.run_processbench, figures)


@pytest.mark.slow
def test_screen_mmlu_figures(figures, data_dir):
    _recompute(df.run_screen_mmlu, figures)


def test_self_correction_example(figures):
    _recompute(df.run_self_correction, figures)


@pytest.mark.slow
def test_filter_figures(figures, data_dir):
    _recompute(df.run_filter, figures)


@pytest.mark.slow
def test_differentiable_example_figures(figures):
    pytest.importorskip("torch")
    _recompute(df.run_differentiable, figures)
