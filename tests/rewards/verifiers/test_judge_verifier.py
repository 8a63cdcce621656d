"""JudgeVerifier: in-process on a tiny Llama, and against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rewards.parsing.trace import Trace
from rewards.verifiers.fallback import FallbackVerifier
from rewards.verifiers.judge import JudgeConfig, JudgeError, JudgeVerifier, yes_probability
from rewards.verifiers.prm import VerifierLoadError

TRACE = Trace("Tom has 3 boxes of 4 pens. He gives away 5.",
              ("3 * 4 = 13 pens.", "13 - 5 = 8 pens are left.", "So he has 8 pens."), "8")
# the fake judge: "no" is likely for a step stating 13 (the wrong product), "yes" otherwise
LP_WRONG = {" no": -0.1, " yes": -2.4, " maybe": -4.0}
LP_RIGHT = {" yes": -0.2, " no": -1.9, "Yes": -3.0}


def q_of(lps):
    yes = sum(math.exp(v) for k, v in lps.items() if k.strip().lower() == "yes")
    no = sum(math.exp(v) for k, v in lps.items() if k.strip().lower() == "no")
    return yes / (yes + no)


def _judged(prompt: str) -> dict:
    step = re.findall(r"Step (\d+):\n(.*?)\n\nIs step", prompt, re.S)[-1][1]
    return LP_WRONG if "= 13" in step else LP_RIGHT


class FakeOpenAI(BaseHTTPRequestHandler):
    state: dict = {}

    def log_message(self, *args):  # quiet
        pass

    def _send(self, code, payload):
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "judge-model", "object": "model"}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        st = self.state
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        st["requests"].append((self.path, payload))
        time.sleep(st.get("delay", 0.0))
        if st.get("fail", 0) > 0:
            st["fail"] -= 1
            return self._send(503, {"error": "overloaded"})
        if st.get("bad_request"):
            return self._send(400, {"error": "logprobs too large"})
        if self.path == "/v1/completions":
            prompts = payload["prompt"] if isinstance(payload["prompt"], list) else [payload["prompt"]]
            choices = [{"index": i, "text": max(_judged(p), key=_judged(p).get),
                        "logprobs": {"tokens": ["x"], "token_logprobs": [-0.1], "top_logprobs": [_judged(p)]}}
                       for i, p in reversed(list(enumerate(prompts)))]  # out of order on purpose
            return self._send(200, {"choices": choices})
        if self.path == "/v1/chat/completions":
            lps = _judged(payload["messages"][-1]["content"])
            top = [{"token": k, "logprob": v} for k, v in lps.items()]
            best = max(top, key=lambda a: a["logprob"])
            return self._send(200, {"choices": [{"index": 0, "message": {"content": best["token"]},
                                                 "logprobs": {"content": [{**best, "top_logprobs": top}]}}]})
        self._send(404, {"error": "not found"})


@pytest.fixture()
def server():
    FakeOpenAI.state = {"requests": [], "fail": 0, "delay": 0.0}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", FakeOpenAI.state
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def test_completions_endpoint_batches_prompts_and_reads_yes_no(server):
    url, state = server
    judge = JudgeVerifier(JudgeConfig(base_url=url, batch_size=2))
    assert judge.served_model == "judge-model"
    checks = judge.verify(TRACE)
    assert [c.q for c in checks] == pytest.approx([q_of(LP_WRONG), q_of(LP_RIGHT), q_of(LP_RIGHT)])
    assert checks[0].q < 0.5 and "wrong" in checks[0].reasons[0]
    posts = state["requests"]
    assert len(posts) == 2 and [len(p["prompt"]) for _, p in posts] == [2, 1]  # 3 prompts, batch_size=2
    assert posts[0][1]["max_tokens"] == 1 and posts[0][1]["logprobs"] == 20 and posts[0][1]["model"] == "judge-model"
    assert "Is step 1 correct? Answer yes or no." in posts[0][1]["prompt"][0]
    judge.close()


def test_chat_endpoint_one_request_per_step(server):
    url, state = server
    judge = JudgeVerifier(JudgeConfig(base_url=url, api="chat", model="judge-model"))
    assert [c.q for c in judge.verify(TRACE)] == pytest.approx([q_of(LP_WRONG), q_of(LP_RIGHT), q_of(LP_RIGHT)])
    assert len(state["requests"]) == 3 and all(p == "/v1/chat/completions" for p, _ in state["requests"])
    assert state["requests"][0][1]["logprobs"] is True
    judge.close()


def test_transient_errors_are_retried_with_backoff(server):
    url, state = server
    judge = JudgeVerifier(JudgeConfig(base_url=url, batch_size=8, backoff_s=0.01, max_retries=3))
    state["fail"] = 2
    assert judge.verify(TRACE)[0].q == pytest.approx(q_of(LP_WRONG))
    assert len(state["requests"]) == 3  # two 503s, then success
    state["fail"] = 5
    with pytest.raises(JudgeError, match="failed after 4 attempts: HTTP 503"):
        judge.verify(TRACE)
    state["fail"], state["bad_request"] = 0, True
    with pytest.raises(JudgeError, match="HTTP 400"):
        judge.verify(TRACE)


def test_slow_endpoint_degrades_to_symbolic_within_the_deadline(server):
    from rewards.evidence import build_dataflow

    url, state = server
    judge = JudgeVerifier(JudgeConfig(base_url=url, timeout_s=0.3, max_retries=0))
    state["delay"] = 1.0
    wrapped = FallbackVerifier(judge, timeout_s=5)
    t0 = time.monotonic()
    checks = wrapped.verify(TRACE, build_dataflow(TRACE))
    assert time.monotonic() - t0 < 3
    assert "fallback (judge: JudgeError" in checks[0].reasons[-1] and "Timeout" in checks[0].reasons[-1]
    assert checks[0].q == pytest.approx(0.05)  # the symbolic verifier catches 3 * 4 = 13


def test_unreachable_endpoint_and_unknown_model_fail_at_construction(server):
    url, _ = server
    unreachable = r"JudgeConfig\.base_url='http://127\.0\.0\.1:9/v1' is unreachable.*vllm serve"
    with pytest.raises(VerifierLoadError, match=unreachable):
        JudgeVerifier(base_url="http://127.0.0.1:9/v1", timeout_s=2)
    with pytest.raises(VerifierLoadError, match=r"JudgeConfig\.model='gpt-9' is not served.*judge-model"):
        JudgeVerifier(base_url=url, model="gpt-9")
    with pytest.raises(VerifierLoadError, match="base_url"):
        JudgeConfig(base_url="127.0.0.1:8000")


def test_registry_takes_an_endpoint_url_as_model(server):
    from rewards.verifiers.registry import build_verifier

    url, _ = server
    v = build_verifier("judge", url)
    assert v.primary.config.base_url == url and v.primary.served_model == "judge-model"


def test_in_process_judge_matches_a_manual_next_token_computation(llama_dir):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    judge = JudgeVerifier(model=llama_dir, device="cpu", dtype="float32", batch_size=2)
    got = [c.q for c in judge.verify(TRACE)]
    tok = AutoTokenizer.from_pretrained(llama_dir)
    model = AutoModelForCausalLM.from_pretrained(llama_dir).eval()
    want = []
    for prompt in judge.prompts(TRACE):  # one unpadded prompt at a time
        with torch.no_grad():
            probs = torch.softmax(model(tok.encode(prompt, return_tensors="pt")).logits[0, -1], -1)
        y, n = probs[judge.yes_ids].sum().item(), probs[judge.no_ids].sum().item()
        want.append(y / (y + n))
    assert got == pytest.approx(want, abs=1e-4)  # left padding + position ids = the unpadded result
    assert all(0 < q < 1 for q in got)


def test_in_process_chat_template_and_token_errors(llama_chat_dir):
    pytest.importorskip("torch")
    judge = JudgeVerifier(model=llama_chat_dir, device="cpu")
    assert len(judge.verify(TRACE)) == 3
    with pytest.raises(VerifierLoadError, match=r"JudgeConfig\.yes_tokens=.*none is a single token"):
        JudgeVerifier(model=llama_chat_dir, device="cpu", yes_tokens=("affirmative and certainly",))


def test_yes_probability_ignores_garbage():
    alternatives = [{"token": "Yes", "logprob": math.log(0.3)}, {"token": "▁No", "logprob": math.log(0.1)},
                    {"token": None, "logprob": 0.0}, {"token": "no", "logprob": float("nan")}]
    assert yes_probability(alternatives) == pytest.approx(0.75)
    assert yes_probability({}) is None
