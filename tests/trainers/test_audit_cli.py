"""`rafs audit` end to end: module:function resolution, the table, --json, --force, --fail-under, bad input."""

import json
import textwrap

import pytest

from trainers.cli import main

TOY = textwrap.dedent('''
    """Toy rewards for the audit CLI tests."""
    import re


    def pays_the_answer(prompts, completions, answer, **kwargs):
        out = []
        for c, a in zip(completions, answer):
            found = re.findall(r"####\\s*(\\S+)|\\\\boxed\\{([^{}]*)\\}", c)
            last = found[-1] if found else ("", "")
            out.append(1.0 if a in last else 0.0)
        return out


    def pays_shown_equations(prompts, completions, answer, **kwargs):
        """The right answer with at least ``k`` '=' shown; the module attribute K sets k."""
        base = pays_the_answer(prompts, completions, answer)
        return [b if c.count("=") >= K else 0.0 for b, c in zip(base, completions)]


    K = 1


    def get_strict(threshold=0.5):
        def strict(prompts, completions, **kwargs):
            return [0.0 for _ in completions]
        return strict


    NOT_CALLABLE = 3
''')

ARGS = ["--n", "6", "--families", "bare_answer,restate_answer,pad_true_equations", "--no-progress"]


@pytest.fixture()
def sample(shared_data, monkeypatch):
    """The audit's default GSM8K/MATH-500 sample read from the `shared_data` fixture (fails in CI when missing)."""
    monkeypatch.setenv("RAFS_DATA_DIR", str(shared_data))


@pytest.fixture()
def toy(tmp_path, monkeypatch):
    (tmp_path / "audit_cli_toy_rewards.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "audit_cli_toy_rewards"


def test_audit_prints_a_table_per_reward_and_writes_json(toy, sample, tmp_path, capsys):
    out = tmp_path / "audit.json"
    assert main(["audit", f"{toy}:pays_the_answer", f"{toy}:get_strict", *ARGS, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "bare_answer" in printed and "FAIL" in printed and "PASS" in printed
    assert max(len(line) for line in printed.splitlines()) <= 100
    data = json.loads(out.read_text())
    assert data["meta"]["n"] == 6 and data["meta"]["modes"] == ["single", "group"]
    reports = {(r["reward"], r["mode"]): r for r in data["reports"]}
    assert len(reports) == 4
    gameable = {f["family"]: f for f in reports[(f"{toy}:pays_the_answer", "single")]["families"]}
    assert gameable["bare_answer"]["share"] == 1.0 and gameable["bare_answer"]["passed"] is False
    # pays_the_answer never scores the faithful work above '#### 18': no problem separates, no separated share
    assert "where sep." in printed and reports[(f"{toy}:pays_the_answer", "single")]["separated"] == 0
    assert gameable["restate_answer"]["separated_share"] is None
    assert gameable["bare_answer"]["examples"][0]["completion"].startswith("####") or \
        "boxed" in gameable["bare_answer"]["examples"][0]["completion"]
    assert gameable["pad_true_equations"]["passed"] is True
    md = tmp_path / "audit.md"
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--mode", "single", "--markdown", str(md)]) == 0
    table = md.read_text()
    assert "| `bare_answer` | < faithful | 6 | **100.0** |" in table and "6 problems, seed 0" in table
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--markdown", str(md)]) == 2  # no overwrite


def test_audit_creates_the_output_folder_and_refuses_a_folder_as_output(toy, sample, tmp_path, capsys):
    out = tmp_path / "runs" / "nested" / "audit.json"
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--mode", "single", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["reports"]
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--json", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_audit_never_overwrites_json_without_force(toy, sample, tmp_path, capsys):
    out = tmp_path / "audit.json"
    out.write_text("keep me")
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--json", str(out)]) == 2
    assert "--json" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--mode", "single", "--json", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["meta"]["modes"] == ["single"]


def test_fail_under_turns_failures_into_exit_1(toy, sample, capsys):
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--mode", "single"]) == 0  # a measurement
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--mode", "single", "--fail-under", "0.98"]) == 1
    assert "below --fail-under 0.98" in capsys.readouterr().err


def test_the_separated_bars_tell_a_rule_that_pays_gaming_from_a_reward_that_cannot_verify(toy, sample, capsys,
                                                                                        monkeypatch):
    single = [*ARGS, "--mode", "single"]
    # pays_the_answer cannot tell work from '#### 18' anywhere: no separated problem, so the separated bar has nothing
    # to fail on and the recall bar is what catches it
    assert main(["audit", f"{toy}:pays_the_answer", *single, "--fail-under-separated", "0.98"]) == 0
    assert main(["audit", f"{toy}:pays_the_answer", *single, "--min-separated", "0.5"]) == 1
    assert "scores the faithful completion above the bare answer on 0 of 6 problems" in capsys.readouterr().err
    # one '=' earns the answer: it separates work from a bare answer, and pays '18 = 18' as much as the work
    assert main(["audit", f"{toy}:pays_shown_equations", *single, "--min-separated", "0.5"]) == 0
    assert main(["audit", f"{toy}:pays_shown_equations", *single, "--fail-under-separated", "0.98"]) == 1
    err = capsys.readouterr().err
    assert "restate_answer" in err and "below --fail-under-separated 0.98" in err and len(err.splitlines()) == 1
    # two '=' needed: the restatement no longer pays, padding gains nothing, the separated bar holds
    import audit_cli_toy_rewards
    monkeypatch.setattr(audit_cli_toy_rewards, "K", 2)
    assert main(["audit", f"{toy}:pays_shown_equations", *single, "--fail-under-separated", "0.98"]) == 0


def test_the_separated_bars_need_the_bare_answer_family(toy, sample, capsys):
    assert main(["audit", f"{toy}:pays_the_answer", "--n", "6", "--families", "restate_answer", "--no-progress",
                 "--min-separated", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "add bare_answer to --families" in err and len(err.strip().splitlines()) == 1
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--fail-under-separated", "1.5"]) == 2
    assert "--fail-under-separated 1.5: a share in [0, 1]" in capsys.readouterr().err


@pytest.mark.parametrize("spec,message", [
    ("no_such_module_xyz:f", "cannot import 'no_such_module_xyz'"),
    ("{toy}:missing", "has no reward function 'missing'"),
    ("{toy}:NOT_CALLABLE", "is a int, not a callable"),
    ("{toy}:", "expected a registry name, pkg.module.func or pkg.module:func"),
    ("accuracy", "unknown reward 'accuracy'"),
])
def test_bad_reward_specs_are_one_line_errors(toy, capsys, spec, message):
    assert main(["audit", spec.format(toy=toy), *ARGS]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and err.startswith("rafs audit: error:")


def test_bad_options_are_one_line_errors(toy, capsys):
    assert main(["audit", f"{toy}:pays_the_answer", "--families", "nope"]) == 2
    assert "unknown family 'nope'" in capsys.readouterr().err
    assert main(["audit"]) == 2
    assert "name at least one reward" in capsys.readouterr().err
    assert main(["audit", f"{toy}:pays_the_answer", "--n", "0"]) == 2


def test_list_families_names_every_family(capsys):
    from rewards.audit.families import FAMILIES

    assert main(["audit", "--list-families"]) == 0
    printed = capsys.readouterr().out
    assert all(name in printed for name in FAMILIES)


def test_registry_names_resolve_to_our_rewards(sample, capsys):
    assert main(["audit", "faithful_accuracy", "--n", "3", "--families", "bare_answer", "--mode", "single",
                 "--no-progress"]) == 0
    assert "faithful_accuracy" in capsys.readouterr().out


def test_mix_audits_the_weighted_sum_trl_would_optimise(toy, sample, tmp_path):
    out = tmp_path / "mix.json"
    assert main(["audit", f"{toy}:pays_the_answer", f"{toy}:get_strict", *ARGS, "--mode", "single", "--mix",
                 "--weights", "2,1", "--json", str(out)]) == 0
    (report,) = json.loads(out.read_text())["reports"]
    assert report["reward"] == f"mix(2*{toy}:pays_the_answer + {toy}:get_strict)"
    assert report["faithful_mean"] == 2.0  # 2 * 1.0 + 1 * 0.0
    assert main(["audit", f"{toy}:pays_the_answer", *ARGS, "--weights", "2"]) == 2
    assert main(["audit", f"{toy}:pays_the_answer", f"{toy}:get_strict", *ARGS, "--mix", "--weights", "1"]) == 2


def test_own_problems_file(toy, tmp_path):
    rows = [{"question": "Tom has 3 boxes of 4 pens. How many pens?",
             "answer": "Tom has 3 * 4 = <<3*4=12>>12 pens.\n#### 12"},
            {"problem": "What is $2 + 3$?", "solution": "We have $2 + 3 = \\boxed{5}$."}]
    src = tmp_path / "mine.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "mine.json"
    assert main(["audit", f"{toy}:pays_the_answer", "--problems", str(src), "--families", "bare_answer",
                 "--mode", "single", "--json", str(out), "--no-progress"]) == 0
    data = json.loads(out.read_text())
    assert data["meta"]["n"] == 2 and data["reports"][0]["families"][0]["n"] == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem": "x"}\n')
    assert main(["audit", f"{toy}:pays_the_answer", "--problems", str(bad)]) == 2


def test_the_summary_line_leads_with_how_often_each_reward_separates_work(toy, sample, capsys):
    """A reward that pays the answer alone fails fewer families than one that reads the work only because it pays
    everything alike; the line that counts FAILs says how often each reward tells faithful work from a bare answer
    (rafs: most problems; the answer-only reward: none)."""
    import re

    assert main(["audit", "rafs", f"{toy}:pays_the_answer", *ARGS, "--mode", "single"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    lines = re.findall(r"single: tells faithful work from a bare answer on (\d+) of 6 problems, (\d+)/(\d+) "
                       r"families FAIL", out)
    assert len(lines) == 2, out
    (ours, _, _), (answer_only, _, _) = lines
    assert int(ours) >= 3 and int(answer_only) == 0
