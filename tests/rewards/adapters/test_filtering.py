"""SFT filtering by RAFS: layouts, thresholds, reasons, the conservation law, and num_proc."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

datasets = pytest.importorskip("datasets")
from datasets import Dataset  # noqa: E402

from rewards.adapters.filtering import SCORE_COLUMNS, detect_layout, filter_dataset  # noqa: E402

_ANNOT = re.compile(r"<<([^=<>]+)=(-?\d+(?:\.\d+)?)>>(-?\d+(?:\.\d+)?)")

PROBLEM = "Tom has 3 boxes of 4 pens and buys 5 more pens. How many pens does he have?"
GOOD = "He has 3 * 4 = 12 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17"
SILENT = "He has 3 * 4 = 13 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17"
WRONG = "He has 3 * 4 = 12 pens in boxes.\nThen 12 + 5 = 18 pens.\n#### 18"


@pytest.fixture(scope="module")
def gsm8k_rows(shared_data) -> list[dict]:
    with open(shared_data / "gsm8k" / "train.jsonl", encoding="utf-8") as handle:
        return [json.loads(next(handle)) for _ in range(50)]


def tamper(answer: str) -> str | None:
    """Corrupt the first annotated equation: ``<<48/2=24>>24`` -> ``<<48/2=25>>25``; None if there is none."""
    m = _ANNOT.search(answer)
    if m is None or m.group(2) != m.group(3):
        return None
    wrong = str(Decimal(m.group(2)) + 1)
    return answer[: m.start()] + f"<<{m.group(1)}={wrong}>>{wrong}" + answer[m.end():]


def _conserved(res, n: int) -> None:
    s = res.summary
    assert s["n_in"] == n == s["n_kept"] + s["n_dropped"] == len(res.kept) + len(res.dropped)
    assert sum(s["reasons"].values()) == s["n_dropped"]


def test_gsm8k_layout_conservation_and_columns(gsm8k_rows):
    ds = Dataset.from_list(gsm8k_rows)
    res = filter_dataset(ds)
    _conserved(res, 50)
    assert res.summary["thresholds"]["layout"] == "question_answer"
    assert res.summary["n_kept"] >= 40  # GSM8K's own solutions: nearly all are faithful
    assert set(SCORE_COLUMNS) <= set(res.kept.column_names)
    assert "reason" not in res.kept.column_names
    assert {"reason", "reason_detail"} <= set(res.dropped.column_names)
    assert all(r is not None for r in res.dropped["reason"])
    assert set(res.kept["status"]) == {"accept"}
    # the original columns and row contents survive in both halves
    originals = {r["question"]: r["answer"] for r in gsm8k_rows}
    for row in list(res.kept) + list(res.dropped):
        assert originals[row["question"]] == row["answer"]


def test_tampered_gsm8k_rows_are_dropped_with_a_reason(gsm8k_rows):
    clean = filter_dataset(Dataset.from_list(gsm8k_rows))
    kept_questions = set(clean.kept["question"])
    rows, tampered = [], set()
    for i, row in enumerate(gsm8k_rows):
        bad = tamper(row["answer"]) if i % 3 == 0 and row["question"] in kept_questions else None
        if bad is not None:
            tampered.add(row["question"])
            row = {**row, "answer": bad}
        rows.append(row)
    assert len(tampered) >= 8
    res = filter_dataset(Dataset.from_list(rows))
    _conserved(res, 50)
    dropped = {r["question"]: r for r in res.dropped}
    assert tampered <= set(dropped), tampered - set(dropped)
    for q in tampered:
        row = dropped[q]
        assert row["reason"] in ("failure_type:silent_failure", "status:review"), row["reason"]
        assert row["suspect_step"] is not None and "suspect step" in row["reason_detail"]
    # rows nobody touched keep their verdict
    assert (kept_questions - tampered) <= set(res.kept["question"])
    assert res.summary["n_dropped"] > clean.summary["n_dropped"]


def test_num_proc_two_equals_in_process(gsm8k_rows):
    ds = Dataset.from_list(gsm8k_rows[:24])
    one = filter_dataset(ds, num_proc=None, batch_size=4)
    two = filter_dataset(ds, num_proc=2, batch_size=4)
    assert one.kept.to_list() == two.kept.to_list()
    assert one.dropped.to_list() == two.dropped.to_list()
    assert one.summary["reasons"] == two.summary["reasons"]


def test_prompt_completion_layout_plain_and_conversational():
    rows = [{"prompt": PROBLEM, "completion": c, "answer": "17"} for c in (GOOD, SILENT, WRONG)]
    res = filter_dataset(Dataset.from_list(rows))
    _conserved(res, 3)
    assert res.kept["completion"] == [GOOD]
    reasons = dict(zip(res.dropped["completion"], res.dropped["reason"]))
    assert reasons[SILENT] == "failure_type:silent_failure"
    assert reasons[WRONG].startswith("failure_type:")  # a wrong answer after a false step
    conv = [{"prompt": [{"role": "user", "content": PROBLEM}], "completion": [{"role": "assistant", "content": c}],
             "solution": "17"} for c in (GOOD, SILENT, WRONG)]
    res_conv = filter_dataset(Dataset.from_list(conv))
    assert res_conv.summary["thresholds"]["layout"] == "prompt_completion"
    assert res_conv.summary["thresholds"]["gold_column"] == "solution"
    assert res_conv.dropped["reason"] == res.dropped["reason"]
    assert res_conv.kept["rafs"] == pytest.approx(res.kept["rafs"])


def test_messages_layout_uses_last_assistant_and_user_turns():
    def conv(text: str) -> list[dict]:
        return [{"role": "system", "content": "Be precise."}, {"role": "user", "content": "Say hi."},
                {"role": "assistant", "content": "Hi."}, {"role": "user", "content": PROBLEM},
                {"role": "assistant", "content": text}]

    rows = [{"messages": conv(GOOD)}, {"messages": conv(SILENT)}, {"messages": [{"role": "user", "content": "?"}]}]
    res = filter_dataset(Dataset.from_list(rows))
    _conserved(res, 3)
    assert res.summary["thresholds"]["layout"] == "messages"
    assert res.summary["thresholds"]["gold_column"] is None
    assert len(res.kept) == 1 and res.kept[0]["messages"][-1]["content"] == GOOD
    reasons = sorted(res.dropped["reason"])
    assert reasons == ["failure_type:invalid_reasoning", "missing:completion"]  # no gold: invalid, not silent


def test_thresholds_statuses_min_rafs_and_failure_types():
    rows = [{"prompt": PROBLEM, "completion": c, "answer": "17"} for c in (GOOD, SILENT, WRONG, "")]
    ds = Dataset.from_list(rows)
    everything = filter_dataset(ds, statuses=("accept", "review", "abstain"), drop_failure_types=())
    _conserved(everything, 4)
    assert everything.summary["n_kept"] == 3  # a row without a completion is never kept
    assert everything.summary["reasons"] == {"missing:completion": 1}
    strict = filter_dataset(ds, min_rafs=100.0, statuses="accept,review,abstain", drop_failure_types=None)
    _conserved(strict, 4)
    assert strict.summary["reasons"] == {"rafs_below_min": 3, "missing:completion": 1}
    only_silent = filter_dataset(ds, statuses=("accept", "review", "abstain"), drop_failure_types=["silent_failure"])
    assert only_silent.summary["reasons"] == {"failure_type:silent_failure": 1, "missing:completion": 1}


@pytest.mark.parametrize("kwargs, match", [
    ({"layout": "chat"}, "layout='chat'"),
    ({"layout": "messages"}, "'messages' column"),
    ({"statuses": ("accepted",)}, "accepted"),
    ({"statuses": ()}, "keeps nothing"),
    ({"drop_failure_types": ("silent",)}, "silent"),
    ({"min_rafs": 150}, "min_rafs=150"),
    ({"num_proc": 0}, "num_proc=0"),
    ({"gold_column": "label"}, "gold_column='label'"),
    ({"config": {"tau": 1}}, "tau"),
])
def test_bad_arguments_name_the_field(kwargs, match):
    ds = Dataset.from_list([{"prompt": PROBLEM, "completion": GOOD}])
    with pytest.raises(ValueError, match=re.escape(match)):
        filter_dataset(ds, **kwargs)


def test_layout_detection_and_column_collisions():
    assert detect_layout(["prompt", "completion", "answer"]) == "prompt_completion"
    assert detect_layout(["messages"]) == "messages"
    assert detect_layout(["problem", "solution"]) == "question_answer"
    with pytest.raises(ValueError, match="cannot detect"):
        detect_layout(["text"])
    clash = Dataset.from_list([{"prompt": PROBLEM, "completion": GOOD, "status": "gold-standard"}])
    with pytest.raises(ValueError, match="status"):
        filter_dataset(clash)


def test_refiltering_own_output_replaces_its_columns():
    ds = Dataset.from_list([{"prompt": PROBLEM, "completion": c, "answer": "17"} for c in (GOOD, SILENT)])
    first = filter_dataset(ds, statuses=("accept", "review"), drop_failure_types=())
    again = filter_dataset(first.kept)
    _conserved(again, 2)
    assert again.summary["n_kept"] == 1 and again.kept["rafs"] == pytest.approx(first.kept["rafs"][:1])


def test_empty_dataset():
    ds = Dataset.from_list([{"prompt": PROBLEM, "completion": GOOD}]).select([])
    res = filter_dataset(ds)
    _conserved(res, 0)


def test_wrong_container_types_are_named():
    from datasets import DatasetDict

    ds = Dataset.from_list([{"prompt": PROBLEM, "completion": GOOD}])
    with pytest.raises(TypeError, match="DatasetDict"):
        filter_dataset(DatasetDict({"train": ds}))
    with pytest.raises(TypeError, match="IterableDataset"):
        filter_dataset(ds.to_iterable_dataset())


def test_rows_without_problem_or_completion_are_dropped_with_that_reason_not_a_crash():
    rows = [{"prompt": PROBLEM, "completion": GOOD}, {"prompt": None, "completion": GOOD},
            {"prompt": PROBLEM, "completion": None}, {"prompt": " \n", "completion": GOOD}]
    res = filter_dataset(Dataset.from_list(rows), statuses=("accept", "review", "abstain"), drop_failure_types=())
    _conserved(res, 4)
    assert res.kept["prompt"] == [PROBLEM]
    assert res.dropped["reason"] == ["missing:problem", "missing:completion", "missing:problem"]
    assert all("'prompt'" in d or "'completion'" in d for d in res.dropped["reason_detail"])
    assert set(res.dropped["status"]) == {"abstain"} and set(res.dropped["rafs"]) == {None}
    conv = [{"messages": [{"role": "system", "content": "x"}, {"role": "assistant", "content": GOOD}]},
            {"messages": None}, {"messages": "not a conversation"}]
    res = filter_dataset(Dataset.from_list(conv[:2]))
    assert res.dropped["reason"] == ["missing:problem", "missing:completion"]
    from rewards.adapters.filtering import make_spec, score_row

    assert score_row(conv[2], make_spec(["messages"]))["reason"] == "invalid:completion"
    spec = make_spec(["prompt", "completion"])
    assert score_row({"prompt": 7, "completion": GOOD}, spec)["reason"] == "invalid:problem"
    assert score_row({"prompt": PROBLEM, "completion": []}, spec)["reason"] == "missing:completion"
    assert score_row({"prompt": PROBLEM}, spec)["reason"] == "missing:completion"
