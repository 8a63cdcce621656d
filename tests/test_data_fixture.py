"""The `shared_data` fixture (tests/conftest.py): ../shared/data beside the clone; a missing folder fails in CI
(CI=true) and skips elsewhere. Checked end to end: the real conftest in a throwaway repository layout, run by pytest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

PROBE = '''
def test_probe(shared_data):
    assert (shared_data / "probe.txt").read_text() == "ok"
'''


def test_resolves_shared_data_beside_the_repository(shared_data):
    assert shared_data == CONFTEST.parents[1].parent / "shared" / "data"
    assert (shared_data / "gsm8k" / "train.jsonl").is_file()


@pytest.fixture
def fake_repo(tmp_path) -> Path:
    repo = tmp_path / "clone"
    (repo / "tests").mkdir(parents=True)
    shutil.copy(CONFTEST, repo / "tests" / "conftest.py")
    (repo / "tests" / "test_probe.py").write_text(PROBE)
    return repo


def _pytest(repo: Path, ci: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ci", ["true", "1"])
def test_missing_folder_fails_in_ci(fake_repo, ci):
    run = _pytest(fake_repo, ci)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 error" in run.stdout and "the shared data folder is missing" in run.stdout
    assert str(fake_repo.parent / "shared" / "data") in run.stdout and "CI=true" in run.stdout


def test_missing_folder_skips_outside_ci(fake_repo):
    run = _pytest(fake_repo, None)
    assert run.returncode == 0 and "1 skipped" in run.stdout, run.stdout + run.stderr
    assert "the shared data folder is missing" in run.stdout


def test_present_folder_is_used(fake_repo):
    data = fake_repo.parent / "shared" / "data"
    data.mkdir(parents=True)
    (data / "probe.txt").write_text("ok")
    run = _pytest(fake_repo, "true")
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr


INJECTED = '''
from rewards.checks import arithmetic


def test_a_caller_swallows_it(monkeypatch):
    monkeypatch.setattr(arithmetic, "_tokenize", lambda *a: 1 / 0)
    try:
        arithmetic.evaluate("$1 + 1")  # not plain arithmetic: the tokenizer runs; RAFS_STRICT=1 (the conftest): raised ...
    except ZeroDivisionError:
        pass  # ... and caught by a caller, as the scorer does
'''


def test_an_internal_error_a_caller_caught_still_fails_the_run(fake_repo):
    """The same conftest's session check: rewards.checks.arithmetic counted an internal error -> the run fails."""
    (fake_repo / "tests" / "test_probe.py").write_text(INJECTED)
    run = _pytest(fake_repo, None)
    assert run.returncode == 1 and "1 passed" in run.stdout, run.stdout + run.stderr
    assert "swallowed internal errors during the tests: {'evaluate_ex:ZeroDivisionError': 1}" in run.stdout
