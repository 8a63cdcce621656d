"""NLIVerifier on a tiny random BERT cross-encoder: labels from id2label, step checks, p_imp, D_R similarity."""

from __future__ import annotations

import json
import shutil

import pytest

torch = pytest.importorskip("torch")

from rewards.scoring.components import stability  # noqa: E402
from rewards.parsing.trace import Trace  # noqa: E402
from rewards.verifiers.nli import NLIVerifier  # noqa: E402
from rewards.verifiers.prm import VerifierLoadError  # noqa: E402

TRACE = Trace("Tom has 3 boxes of 4 pens. He gives away 5.", ("3 * 4 = 12 pens.", "12 - 5 = 7 pens are left."), "7")


def _manual(path, premise, hypothesis):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    with torch.no_grad():
        return torch.softmax(model(**tok(premise, hypothesis, return_tensors="pt")).logits[0], -1)


def test_labels_steps_and_implication_match_manual_pairs(bert_nli_dir):
    nli = NLIVerifier(model=bert_nli_dir, device="cpu", batch_size=3)
    assert (nli.entail_idx, nli.contra_idx) == (2, 0)  # found by name in config.id2label
    checks = nli.verify(TRACE)
    p0 = _manual(bert_nli_dir, TRACE.problem, TRACE.steps[0])
    p1 = _manual(bert_nli_dir, " ".join([TRACE.problem, TRACE.steps[0]]), TRACE.steps[1])
    assert [c.q for c in checks] == pytest.approx([1 - p0[0].item(), 1 - p1[0].item()], abs=1e-5)
    ent = NLIVerifier(model=bert_nli_dir, device="cpu", step_score="entailment")
    assert ent.verify(TRACE)[0].q == pytest.approx(p0[2].item(), abs=1e-5)
    p_imp = nli.implication(TRACE)
    assert p_imp == pytest.approx(_manual(bert_nli_dir, TRACE.steps[-1], "The answer is 7.")[2].item(), abs=1e-5)
    assert nli.implication(Trace("x", (), None)) is None


def test_bidirectional_similarity_feeds_stability(bert_nli_dir):
    nli = NLIVerifier(model=bert_nli_dir, device="cpu")
    texts = ["3 * 4 = 12 and 12 - 5 = 7", "12 - 5 = 7 after 3 * 4 = 12", "Tom gives away 5 pens"]
    sim = nli.similarity_fn(texts)
    e01 = nli.entailment([texts[0]], [texts[1]])[0]
    e10 = nli.entailment([texts[1]], [texts[0]])[0]
    assert sim(0, 1) == pytest.approx((e01 + e10) / 2, abs=1e-6) and sim(0, 1) == sim(1, 0) and sim(2, 2) == 1.0
    d_r = stability([frozenset()] * 3, ["7", "7", "7"], similarity=sim)
    assert d_r == pytest.approx((sim(0, 1) + sim(0, 2) + sim(1, 2)) / 3)


def test_entailment_label_lookup_errors(bert_nli_dir, tmp_path):
    generic = tmp_path / "generic_labels"
    shutil.copytree(bert_nli_dir, generic)
    cfg = json.loads((generic / "config.json").read_text())
    cfg["id2label"] = {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    cfg["label2id"] = {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}
    (generic / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(VerifierLoadError, match=r"NLIConfig\.entailment_label=None.*LABEL_0.*Fix"):
        NLIVerifier(model=str(generic), device="cpu")
    with pytest.raises(VerifierLoadError, match=r"step_score='not_contradicted' needs a contradiction class"):
        NLIVerifier(model=str(generic), device="cpu", entailment_label=2)
    nli = NLIVerifier(model=str(generic), device="cpu", entailment_label="LABEL_2", step_score="entailment")
    assert nli.entail_idx == 2 and len(nli.verify(TRACE)) == 2
    with pytest.raises(VerifierLoadError, match=r"entailment_label=7 is not a class"):
        NLIVerifier(model=str(generic), device="cpu", entailment_label=7)
