"""``rafs screen`` end to end: parser, outputs, exit codes, bad input."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trainers.cli.commands import screen as cmd


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="rafs")
    sub = parser.add_subparsers(dest="command")
    cmd.add_parser(sub)
    return parser.parse_args(["screen", *argv])


def _csv(tmp_path: Path, name: str = "data.csv", n: int = 300, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    ok = rng.random(n) < 0.7
    conf = np.clip(np.round(np.where(ok, rng.normal(85, 8, n), rng.normal(55, 12, n))), 0, 100)
    model = np.where(np.arange(n) < n // 2, "good", "blanket")
    conf = np.where(model == "blanket", 100, conf)
    df = pd.DataFrame({"is_correct": np.where(ok, "True", "False"), "confidence": conf.astype(int), "model": model})
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


def _run(argv, capsys):
    code = cmd.run(_parse([str(a) for a in argv]))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_end_to_end_with_groups_and_all_outputs(tmp_path, capsys):
    data = _csv(tmp_path)
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    out_json, out_md, out_png = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.png"
    code, out, err = _run([data, "--correct-col", "is_correct", "--confidence-col", "confidence",
                           "--group-col", "model", "--json", out_json, "--markdown", out_md, "--plot", out_png],
                          capsys)
    assert code == 0, err
    assert "Validity screen" in out and "Invalid" in out  # the rich table
    res = json.loads(out_json.read_text())
    assert [g["group"] for g in res] == ["good", "blanket"]
    good, blanket = res
    assert good["tier"] == "Valid" and good["phase_b"]["auroc"] > 0.8
    assert blanket["tier"] == "Invalid" and blanket["response_style"] == "blanket confidence"
    assert blanket["phase_b"] is None
    for g in res:
        assert set(g["cells"]) == {"a", "b", "c", "d"} and g["n_dropped"] == 0
        for k in ("L", "Fp", "RBS", "TRIN", "r"):
            assert {"value", "ci_low", "ci_high"} <= set(g[k])
    assert "| good |" in out_md.read_text()
    assert out_png.read_bytes()[:4] == b"\x89PNG"
    assert hashlib.sha256(data.read_bytes()).hexdigest() == digest  # input untouched


def test_json_to_stdout_and_fixed_threshold(tmp_path, capsys):
    data = _csv(tmp_path)
    code, out, _ = _run([data, "--correct-col", "is_correct", "--confidence-col", "confidence",
                         "--threshold", "70", "--json", "-"], capsys)
    assert code == 0
    res = json.loads(out)
    assert len(res) == 1 and res[0]["group"] is None
    assert res[0]["threshold_rule"] == "fixed" and res[0]["threshold"] == pytest.approx(0.7)


def test_fail_on_invalid_exit_code(tmp_path, capsys):
    data = _csv(tmp_path)
    argv = [data, "--correct-col", "is_correct", "--confidence-col", "confidence", "--group-col", "model"]
    assert _run(argv + ["--fail-on", "invalid"], capsys)[0] == 3
    assert _run(argv, capsys)[0] == 0


def test_missing_column_is_a_one_line_error(tmp_path, capsys):
    data = _csv(tmp_path)
    code, _, err = _run([data, "--correct-col", "is_correct", "--confidence-col", "conf"], capsys)
    assert code == 2
    assert err.strip() == ("rafs screen: error: column 'conf' not in data.csv "
                           "(columns: is_correct, confidence, model)")


def test_missing_file(tmp_path, capsys):
    code, _, err = _run([tmp_path / "nope.csv", "--correct-col", "a", "--confidence-col", "b"], capsys)
    assert code == 2 and "no such file" in err and len(err.strip().splitlines()) == 1


def test_unknown_confidence_string_errors_or_is_dropped(tmp_path, capsys):
    path = tmp_path / "words.csv"
    pd.DataFrame({"ok": ["true", "false"] * 30 + ["true"],
                  "conf": ["KEEP", "WITHDRAW"] * 30 + ["MAYBE"]}).to_csv(path, index=False)
    code, _, err = _run([path, "--correct-col", "ok", "--confidence-col", "conf"], capsys)
    assert code == 2 and "'MAYBE'" in err and len(err.strip().splitlines()) == 1
    code, out, _ = _run([path, "--correct-col", "ok", "--confidence-col", "conf", "--drop-unparseable",
                         "--json", "-"], capsys)
    assert code == 0 and json.loads(out)[0]["n_dropped"] == 1


def test_nan_rows_are_dropped_and_counted(tmp_path, capsys):
    path = tmp_path / "nan.csv"
    conf = [90, 40] * 40
    conf[3] = None
    ok = ["True", "False"] * 40
    ok[5] = ""
    pd.DataFrame({"ok": ok, "conf": conf}).to_csv(path, index=False)
    code, out, _ = _run([path, "--correct-col", "ok", "--confidence-col", "conf", "--json", "-"], capsys)
    res = json.loads(out)[0]
    assert code == 0 and res["n_dropped"] == 2 and res["n"] == 78
    assert any("2 rows dropped" in r for r in res["reasons"])


def test_one_row_and_all_correct_give_a_result_whose_reasons_say_why(tmp_path, capsys):
    one = tmp_path / "one.csv"
    pd.DataFrame({"ok": ["True"], "conf": [80]}).to_csv(one, index=False)
    code, out, _ = _run([one, "--correct-col", "ok", "--confidence-col", "conf", "--json", "-"], capsys)
    res = json.loads(out)[0]
    assert code == 0 and res["n"] == 1 and res["tier"] == "Indeterminate"
    assert any("no wrong answers" in r for r in res["reasons"])

    allc = tmp_path / "allc.csv"
    pd.DataFrame({"ok": [1] * 50, "conf": np.linspace(0.5, 1, 50)}).to_csv(allc, index=False)
    code, out, _ = _run([allc, "--correct-col", "ok", "--confidence-col", "conf", "--json", "-"], capsys)
    res = json.loads(out)[0]
    assert code == 0 and res["tier"] == "Indeterminate" and res["L"]["value"] is None


def test_empty_after_dropping_is_an_error(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    pd.DataFrame({"ok": ["", ""], "conf": ["", ""]}).to_csv(path, index=False)
    code, _, err = _run([path, "--correct-col", "ok", "--confidence-col", "conf"], capsys)
    assert code == 2 and "no usable rows" in err


def test_add_parser_registers_screen_with_the_contract_names():
    p = _parse(["d.csv", "--correct-col", "c", "--confidence-col", "k", "--group-col", "m", "--threshold", "0.5",
                "--json", "o.json", "--markdown", "o.md", "--plot", "o.png"])
    assert (p.data, p.correct_col, p.confidence_col, p.group_col, p.threshold, p.json, p.markdown, p.plot) == (
        "d.csv", "c", "k", ["m"], "0.5", "o.json", "o.md", "o.png")


def test_rafs_entry_point_dispatches_to_screen(tmp_path, capsys):
    cli = pytest.importorskip("trainers.cli")
    data = _csv(tmp_path)
    code = cli.main(["screen", str(data), "--correct-col", "is_correct", "--confidence-col", "confidence",
                     "--json", "-"])
    assert code == 0 and json.loads(capsys.readouterr().out)[0]["n"] == 300


def test_output_path_equal_to_input_is_refused(tmp_path, capsys):
    data = _csv(tmp_path)
    before = data.read_bytes()
    code, _, err = _run([data, "--correct-col", "is_correct", "--confidence-col", "confidence", "--json", data],
                        capsys)
    assert code == 2 and "is the input file" in err
    assert data.read_bytes() == before


# ---------------------------------------------------------------------- 100 columns, fragility, --force

LONG = ("SmolLM2-135M-Instruct/checkpoint-300", "Qwen2.5-Math-1.5B-Instruct/step-0", "tiny")


def _three_groups(tmp_path: Path) -> Path:
    """A Valid, an Invalid (blanket confidence) and an Indeterminate (12 items, 1 error, fragile) group."""
    rng = np.random.default_rng(0)
    frames = []
    for name, n, blanket in ((LONG[0], 300, False), (LONG[1], 300, True), (LONG[2], 12, False)):
        ok = rng.random(n) < 0.7
        conf = np.clip(np.round(np.where(ok, rng.normal(85, 8, n), rng.normal(55, 12, n))), 0, 100)
        if blanket:
            conf[:] = 100
        frames.append(pd.DataFrame({"ok": ok, "conf": conf, "model": name}))
    path = tmp_path / "three.csv"
    pd.concat(frames).to_csv(path, index=False)
    return path


def _render(results, width: int) -> str:
    import io

    from rich.console import Console

    buf = io.StringIO()
    cmd._print_table(results, console=Console(width=width, file=buf, color_system=None))
    return buf.getvalue()


@pytest.mark.parametrize("width", [100, 80])
def test_table_fits_the_terminal_without_cutting_names_or_tiers(tmp_path, width):
    from trainers.screen import screen_groups

    results = screen_groups(_three_groups(tmp_path), "ok", "conf", "model", seed=0)
    assert [r.tier for r in results] == ["Valid", "Invalid", "Indeterminate"]
    text = _render(results, width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text
    table_lines = [line for line in text.splitlines() if line.startswith("│")]
    for r in results:  # the full group name and the full tier on the group's row
        assert any(r.group in line and r.tier in line for line in table_lines), (r.group, r.tier)
    for header in ("L", "Fp", "RBS", "r", "TRIN", "a/b/c/d", "AUROC", "style", "fragile"):
        assert f" {header} " in text  # nothing dropped: split over tables
    assert "blanket confidence" in text
    assert "tiny: fragile: " in text  # the fragility notes, under the table


def test_wide_terminal_gets_one_table(tmp_path):
    from trainers.screen import screen_groups

    results = screen_groups(_three_groups(tmp_path), "ok", "conf", "model", seed=0)
    text = _render(results, 220)
    assert "Validity screen" in text and "(1/" not in text
    assert "Validity screen (1/" in _render(results, 100)


def test_fragile_column_follows_the_result(tmp_path):
    from trainers.screen import screen_groups

    results = screen_groups(_three_groups(tmp_path), "ok", "conf", "model", seed=0)
    fragile = {r.group: r.fragile for r in results}
    assert fragile[LONG[2]] is True
    text = _render(results, 220)
    rows = {g: next(line for line in text.splitlines() if g in line and line.startswith("│")) for g in LONG}
    for g, is_fragile in fragile.items():
        assert (" yes " in rows[g]) == is_fragile and (" no " in rows[g]) != is_fragile


def test_columns_env_sets_the_width_when_piped(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = _run([_three_groups(tmp_path), "--correct-col", "ok", "--confidence-col", "conf",
                           "--group-col", "model"], capsys)
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 100
    assert all(g in out for g in LONG) and "Indeterminate" in out and "…" not in out


@pytest.mark.parametrize("flag,name", [("--json", "r.json"), ("--markdown", "r.md"), ("--plot", "r.png")])
def test_existing_output_is_never_replaced_without_force(tmp_path, capsys, flag, name):
    data = _csv(tmp_path)
    out = tmp_path / name
    out.write_text("keep me")
    argv = [data, "--correct-col", "is_correct", "--confidence-col", "confidence", flag, out]
    code, stdout, err = _run(argv, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{flag} {out}: the file already exists" in err and "--force" in err
    assert "Validity screen" not in stdout  # refused before any work
    assert out.read_text() == "keep me"
    code, _, err = _run(argv + ["--force"], capsys)
    assert code == 0, err
    assert out.read_bytes() != b"keep me"
    if name.endswith(".png"):
        assert out.read_bytes()[:4] == b"\x89PNG"
    elif name.endswith(".json"):
        assert json.loads(out.read_text())[0]["n"] == 300
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["data.csv", name])  # no temporaries left


def test_bad_output_paths_are_one_line_errors(tmp_path, capsys):
    data = _csv(tmp_path)
    base = [data, "--correct-col", "is_correct", "--confidence-col", "confidence"]
    code, _, err = _run(base + ["--plot", tmp_path / "r.txt"], capsys)
    assert code == 2 and "cannot write '.txt'" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(base + ["--json", tmp_path], capsys)
    assert code == 2 and "is a folder" in err
    code, _, err = _run(base + ["--json", tmp_path / "x.out", "--markdown", tmp_path / "x.out"], capsys)
    assert code == 2 and "its own file" in err
