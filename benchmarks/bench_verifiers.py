"""Throughput of the step verifiers: traces per second, on tiny random models on CPU, over batch sizes.

Every model-backed verifier runs behind its real loading code on a tiny random checkpoint of its architecture
(hidden 32, 2 layers) built offline in a temp dir, so the numbers measure the pipeline (tokenising, padding,
batching, the HTTP client), not a real model's FLOPs; the symbolic verifier is measured in the same run for
comparison. On a real 7B PRM the forward pass dominates: expect GPU-bound numbers there.

    python benchmarks/bench_verifiers.py [--traces 64] [--batch-sizes 1 8 32] [--threads 1]

Rows: symbolic, prm-qwen (Qwen2.5-Math-PRM layout), prm-shepherd (Math-Shepherd convention, Llama), judge
(in-process, one prompt per step), judge-http (a stdlib fake OpenAI-compatible server on 127.0.0.1: client and
batching overhead only), nli (BERT cross-encoder), and the teacher-forced counterfactual sensitivity (policy:
tiny Llama; one forward pass per trace).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import logging  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)

HIDDEN = 32


def make_traces(n: int, seed: int = 0):
    from rewards.parsing.trace import parse_trace

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c, d = (rng.randint(2, 30) for _ in range(4))
        problem = f"Sam has {a} bags of {b} apples. He eats {c} apples and then buys {d} more. How many now?"
        steps = [f"{a} * {b} = {a * b} apples.", f"{a * b} - {c} = {a * b - c} apples after eating.",
                 f"{a * b - c} + {d} = {a * b - c + d} apples.", f"So Sam has {a * b - c + d} apples now."]
        out.append(parse_trace(problem, "\n".join(steps) + f"\n#### {a * b - c + d}"))
    return out


def build_models(root: Path) -> dict[str, str]:
    import torch
    from safetensors.torch import save_file
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import (BertConfig, BertForSequenceClassification, LlamaConfig, LlamaForCausalLM,
                              PreTrainedTokenizerFast, Qwen2Config, Qwen2Model)

    corpus = [t.problem + " " + " ".join(t.steps) for t in make_traces(50, seed=1)]
    corpus += ["Step 1: ok ки Is step 2 correct? Answer yes or no. yes no Yes No + - entailment"] * 50

    def train():
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(corpus, trainers.BpeTrainer(
            vocab_size=500, special_tokens=["<pad>", "<s>", "</s>", "<extra_0>", "[CLS]", "[SEP]"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        return tok

    raw = train()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                  additional_special_tokens=["<extra_0>"])
    common = dict(hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=2, num_attention_heads=4,
                  max_position_embeddings=1024, pad_token_id=0)
    torch.manual_seed(0)
    paths = {}
    llama = root / "llama"
    LlamaForCausalLM(LlamaConfig(vocab_size=len(tok), num_key_value_heads=2, bos_token_id=1, eos_token_id=2,
                                 **common)).save_pretrained(llama)
    tok.save_pretrained(llama)
    paths["llama"] = str(llama)

    qwen = root / "qwen_prm"
    config = Qwen2Config(vocab_size=len(tok), num_key_value_heads=2, num_labels=2, **common)
    config.architectures = ["Qwen2ForProcessRewardModel"]
    base = Qwen2Model(config)
    head = torch.nn.Sequential(torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 2))
    state = {f"model.{k}": v.contiguous() for k, v in base.state_dict().items()}
    state.update({f"score.{k}": v.contiguous() for k, v in head.state_dict().items()})
    qwen.mkdir()
    save_file(state, str(qwen / "model.safetensors"), metadata={"format": "pt"})
    config.save_pretrained(qwen)
    tok.save_pretrained(qwen)
    paths["qwen_prm"] = str(qwen)

    raw_b = train()
    raw_b.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", raw_b.token_to_id("[CLS]")), ("[SEP]", raw_b.token_to_id("[SEP]"))])
    btok = PreTrainedTokenizerFast(tokenizer_object=raw_b, cls_token="[CLS]", sep_token="[SEP]", pad_token="<pad>")
    bert = root / "bert_nli"
    BertForSequenceClassification(BertConfig(
        vocab_size=len(btok), type_vocab_size=2, id2label={0: "contradiction", 1: "neutral", 2: "entailment"},
        label2id={"contradiction": 0, "neutral": 1, "entailment": 2},
        **{**common, "max_position_embeddings": 512})).save_pretrained(bert)
    btok.save_pretrained(bert)
    paths["bert_nli"] = str(bert)
    return paths


class _FakeOpenAI(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._send({"data": [{"id": "judge"}]})

    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompts = payload["prompt"] if isinstance(payload["prompt"], list) else [payload["prompt"]]
        top = {" yes": -0.2, " no": -1.8}
        self._send({"choices": [{"index": i, "text": " yes", "logprobs": {"top_logprobs": [top]}}
                                for i in range(len(prompts))]})


def rate(fn, n_traces: int, min_seconds: float = 0.5, repeats: int = 3) -> float:
    """Traces per second: the best of ``repeats`` windows of at least ``min_seconds`` each (the best window is the
    one least disturbed by other processes on a shared CPU)."""
    fn()  # warm-up
    best = 0.0
    for _ in range(repeats):
        runs, start = 0, time.perf_counter()
        while True:
            fn()
            runs += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        best = max(best, runs * n_traces / elapsed)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=64)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--threads", type=int, default=1,
                        help="torch intra-op threads (1: on a shared CPU more threads spin against each other)")
    parser.add_argument("--min-seconds", type=float, default=0.4, help="length of each timing window")
    parser.add_argument("--repeats", type=int, default=3, help="timing windows per row (the best is reported)")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    from rewards.adapters.counterfactual import model_sensitivity
    from rewards.checks.equations import step_equations
    from rewards.evidence import build_dataflow, problem_numbers
    from rewards.verifiers.judge import JudgeVerifier
    from rewards.verifiers.nli import NLIVerifier
    from rewards.verifiers.prm import PRMVerifier
    from rewards.verifiers.symbolic import SymbolicVerifier

    traces = make_traces(args.traces)
    flows = [build_dataflow(t) for t in traces]
    n = len(traces)
    steps = sum(len(t.steps) for t in traces)
    rows: list[tuple[str, str, float]] = []

    symbolic = SymbolicVerifier()
    rows.append(("symbolic (dataflow prebuilt)", "-", rate(
        lambda: [symbolic.verify(t, f) for t, f in zip(traces, flows)], n, args.min_seconds, args.repeats)))

    def symbolic_cold():
        step_equations.cache_clear()
        problem_numbers.cache_clear()
        return [symbolic.verify(t, build_dataflow(t)) for t in traces]

    rows.append(("symbolic + dataflow, caches cleared", "-", rate(symbolic_cold, n, args.min_seconds, args.repeats)))
    with tempfile.TemporaryDirectory() as tmp:
        paths = build_models(Path(tmp))
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOpenAI)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        try:
            for bs in args.batch_sizes:
                verifiers = {
                    "prm-qwen": PRMVerifier(model=paths["qwen_prm"], device="cpu", batch_size=bs),
                    "prm-shepherd": PRMVerifier(model=paths["llama"], device="cpu", batch_size=bs),
                    "judge": JudgeVerifier(model=paths["llama"], device="cpu", batch_size=bs),
                    "judge-http": JudgeVerifier(base_url=url, batch_size=bs),
                    "nli": NLIVerifier(model=paths["bert_nli"], device="cpu", batch_size=bs),
                }
                for name, v in verifiers.items():
                    rows.append((name, str(bs), rate(lambda v=v: v.verify_batch(traces), n, args.min_seconds,
                                                     args.repeats)))
                verifiers["judge-http"].close()
            from transformers import AutoModelForCausalLM, AutoTokenizer

            policy = AutoModelForCausalLM.from_pretrained(paths["llama"]).eval()
            ptok = AutoTokenizer.from_pretrained(paths["llama"])
            rows.append(("counterfactual (teacher-forced)", "4m rows/trace", rate(
                lambda: [model_sensitivity(t, f, policy, ptok) for t, f in zip(traces, flows)], n, args.min_seconds,
                args.repeats)))
        finally:
            httpd.shutdown()
            httpd.server_close()

    base = rows[1][2]
    print(f"RAFS step verifiers, {n} traces ({steps} steps), CPU, {args.threads} torch threads, tiny models "
          f"(hidden {HIDDEN}, 2 layers)")
    print(f"{'verifier':34} {'batch':>13} {'traces/s':>12} {'vs symbolic':>12}  (symbolic = with dataflow, uncached)")
    for name, bs, r in rows:
        print(f"{name:34} {bs:>13} {r:12.1f} {r / base:11.4f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
