"""Shared test fixtures: offline environment, strict errors, the real data sets, and a session-scoped tiny random
causal LM (built locally).

* ``RAFS_STRICT=1`` for the whole suite (subprocesses inherit it): the reward internals that swallow their own
  exceptions so that training never crashes (:mod:`rewards.checks.arithmetic`) re-raise them here, so a parser bug
  fails a test instead of reading as "no equation". ``RAFS_STRICT=0 pytest ...`` turns it off; the "never raises"
  property tests turn it off themselves. An internal error that a caller caught anyway still fails the run
  (``pytest_sessionfinish`` reads ``rewards.checks.arithmetic.error_counts()``).
* ``shared_data``: the one way tests find ``../shared/data`` (the public data sets beside the clone).

Heavy imports happen inside the fixtures, so test modules that do not use them pay nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("WANDB_SILENT", "true")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAFS_STRICT", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


def in_ci() -> bool:
    """``CI`` is set to ``true``/``1``/``yes`` (GitHub Actions, GitLab CI and most runners set ``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def pytest_sessionfinish(session, exitstatus):
    """An internal error that a caller caught (the scorer turns any exception into an "internal error" trace) does
    not fail a test by itself: fail the run when :mod:`rewards.checks.arithmetic` counted one. Tests that inject
    errors on purpose reset the counts (``reset_error_counts``)."""
    arithmetic = sys.modules.get("rewards.checks.arithmetic")
    counts = arithmetic.error_counts() if arithmetic is not None and hasattr(arithmetic, "error_counts") else {}
    if counts:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write("\n")
            reporter.write_line(f"rewards.checks.arithmetic swallowed internal errors during the tests: {counts} "
                                f"(each is a parser bug: see the ERROR log lines)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` relative to the repository root: the public data sets (GSM8K, MATH-500, ProcessBench, the
    validity-screen tables; see its README). When the folder is missing the test is skipped on a laptop, and FAILS
    in CI (``CI=true``): there a missing folder means the real-data floors silently stopped running."""
    if not SHARED_DATA.is_dir():
        where = f"{SHARED_DATA} (../shared/data beside the clone at {REPO_ROOT})"
        if in_ci():
            pytest.fail(f"the shared data folder is missing: {where}. CI=true, so the real-data tests must run: "
                        f"check the data out or mount it there before running the tests.", pytrace=False)
        pytest.skip(f"the shared data folder is missing: {where}; CI=true would make this a failure")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory) -> str:
    """A tiny random LlamaForCausalLM (hidden 32, 2 layers) with a BPE tokenizer, chat template, pad and eos."""
    pytest.importorskip("transformers")
    from trainers.training.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny_llama"), arch="llama")


@pytest.fixture(scope="session")
def tiny_qwen2_path(tmp_path_factory) -> str:
    """The same, as a Qwen2ForCausalLM."""
    pytest.importorskip("transformers")
    from trainers.training.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny_qwen2"), arch="qwen2")
