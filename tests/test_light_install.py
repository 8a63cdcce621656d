"""The light install: ``pip install rafs`` (no extras) is the scorer and the TRL-style reward functions.

``import rewards`` and scoring a trace load no module of an optional extra, and a command that needs an extra fails
with one line naming it (``pip install 'rafs[serve]'``), not a traceback. The light install is simulated in a
subprocess by ``sys.modules[name] = None`` for every module the extras install (an import of it then raises
:class:`ModuleNotFoundError`, as in a venv without it).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from trainers.common.extras import COMMAND_EXTRAS, EXTRAS

ROOT = Path(__file__).resolve().parents[1]
EXTRA_MODULES = sorted(set().union(*EXTRAS.values()))

_LIGHT = f"""
import sys
for name in {EXTRA_MODULES!r}:
    sys.modules[name] = None
from trainers.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run(code: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})


def test_import_rewards_and_scoring_load_no_extra():
    code = (
        "import sys, json\n"
        "from rewards import rafs_reward, score_trace\n"
        "r = score_trace('Tom has 3 boxes of 4 pens. How many pens?', '3 * 4 = 12 pens.\\n#### 12', gold='12')\n"
        "paid = rafs_reward(prompts=['Tom has 3 boxes of 4 pens. How many pens?'],\n"
        "                   completions=['3 * 4 = 12 pens.\\n#### 12'], answer=['12'])\n"
        f"extras = set({EXTRA_MODULES!r})\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & extras)\n"
        "print(json.dumps({'status': r.status, 'paid': paid, 'loaded': loaded}))\n")
    done = _run(code)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["loaded"] == []
    assert out["status"] == "accept" and out["paid"][0] > 0.5


def test_base_dependencies_hold_no_extra():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {d.split(">")[0].split("=")[0].split("[")[0].strip().lower() for d in meta["dependencies"]}
    heavy = {"starlette", "uvicorn", "pandas", "matplotlib", "scikit-learn", "httpx", "torch", "scipy", "ray",
             "transformers", "trl", "datasets", "pyarrow"}
    assert base & heavy == set()
    extras = meta["optional-dependencies"]
    assert set(EXTRAS) <= set(extras), "every extra trainers.common.extras names exists in pyproject.toml"
    assert set(COMMAND_EXTRAS.values()) <= set(extras)


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    (tmp_path / "r.csv").write_text("is_correct,confidence\n1,0.5\n0,0.2\n")
    (tmp_path / "pb.jsonl").write_text(json.dumps(
        {"problem": "What is 2 + 3?", "steps": ["2 + 3 = 5", "#### 5"], "label": -1,
         "final_answer_correct": True}) + "\n")
    return tmp_path


@pytest.mark.parametrize("args,extra", [
    (["serve", "--port", "0"], "serve"),
    (["screen", "{tmp}/r.csv", "--correct-col", "is_correct", "--confidence-col", "confidence"], "screen"),
    (["eval", "{tmp}/pb.jsonl"], "eval"),
    (["train", "recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml", "--dry-run"], "train"),
    (["demo", "--output-dir", "{tmp}/demo"], "train"),
    (["experiment", "faithfulness", "--quick", "--out", "{tmp}/exp"], "train"),
    (["score", "{tmp}/r.csv"], "tables"),
])
def test_a_command_without_its_extra_is_one_line_naming_it(inputs, args, extra):
    done = _run(_LIGHT, *[a.format(tmp=inputs) for a in args])
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"rafs {args[0]}: error: needs the '{extra}' extra")
    assert lines[0].endswith(f"pip install 'rafs[{extra}]'")
    assert not (inputs / "demo").exists() and not (inputs / "exp").exists()


def test_the_light_commands_run_without_any_extra(tmp_path):
    done = _run(_LIGHT, "score", "examples/traces.jsonl", "--out", str(tmp_path / "s.jsonl"))
    assert done.returncode == 0, done.stderr
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == 8
    done = _run(_LIGHT, "filter", "examples/traces.jsonl", "--out", str(tmp_path / "f"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "f" / "summary.json").exists()
