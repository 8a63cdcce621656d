"""An LLM judge as a step verifier: ``q_t = p(yes) / (p(yes) + p(no))`` for "Is step t correct? Answer yes or no".

For each step ``t`` the judge reads the problem, the previous steps and step ``t``
(:data:`DEFAULT_PROMPT`), and ``q_t`` is read from the distribution of the *next token* — no sampling, no parsing
of free text: ``p(yes)`` sums the probabilities of the yes-tokens (``yes``, ``Yes``, `` yes``...), ``p(no)`` those
of the no-tokens, and ``q_t = p(yes) / (p(yes) + p(no))``. When neither appears among the returned top tokens the
step gets the neutral prior ``q_prior`` with ``checked=False``.

Two backends, one config:

* **in-process** (``base_url=None``): a transformers causal LM loaded with ``AutoModelForCausalLM``
  (``trust_remote_code=False``), prompts batched ``batch_size`` per forward pass under ``torch.inference_mode()``;
  the tokenizer's chat template is used when it has one.
* **OpenAI-compatible endpoint** (``base_url="http://host:8000/v1"``: ``vllm serve``, SGLang, TGI):
  ``api="completions"``
  sends ``batch_size`` prompts per ``/v1/completions`` request with ``max_tokens=1, logprobs=top_logprobs``;
  ``api="chat"`` sends one ``/v1/chat/completions`` request per step (``logprobs=true, top_logprobs``),
  ``max_concurrency`` at a time. Every request has a timeout; connection errors, timeouts, 429 and 5xx are retried
  ``max_retries`` times with exponential backoff (``backoff_s · 2^attempt``); other errors raise
  :class:`JudgeError`. Construction checks that the server answers ``GET /v1/models`` and serves ``model``.

Wrap the judge in :class:`rewards.verifiers.fallback.FallbackVerifier` (the registry does) so that a slow or failing
server degrades to the symbolic verifier instead of stalling the trainer.

Example (endpoint)::

    # vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000 --max-logprobs 20
    from rewards.verifiers.judge import JudgeConfig, JudgeVerifier
    judge = JudgeVerifier(JudgeConfig(model="Qwen/Qwen2.5-7B-Instruct", base_url="http://127.0.0.1:8000/v1",
                                      generator="meta-llama/Llama-3.1-8B-Instruct"))
"""

from __future__ import annotations

import logging
import math
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rewards.verifiers.base import StepCheck
from rewards.verifiers.prm import (ModelVerifier, VerifierLoadError, pad_id, load_error, load_kwargs, place,
                                   resolve_device, resolve_dtype)

__all__ = ["JudgeConfig", "JudgeVerifier", "JudgeError", "DEFAULT_PROMPT", "yes_probability"]

log = logging.getLogger(__name__)

DEFAULT_PROMPT = (
    "You are checking one step of a solution to a math problem.\n\n"
    "Problem:\n{problem}\n\n"
    "Previous steps:\n{previous}\n\n"
    "Step {t}:\n{step}\n\n"
    "Is step {t} correct? Answer yes or no.\nAnswer:"
)
"""Placeholders: ``{problem}``, ``{previous}`` (numbered earlier steps or "(none)"), ``{t}`` (1-based), ``{step}``."""

MAX_PROBLEM_CHARS = 4000
MAX_PREVIOUS_CHARS = 8000
MAX_RESPONSE_BYTES = 8 * 1024 * 1024


class JudgeError(RuntimeError):
    """A judge call failed after its retries (the FallbackVerifier turns this into a logged fallback)."""


@dataclass(frozen=True)
class JudgeConfig:
    """Configuration of :class:`JudgeVerifier`.

    Attributes:
        model: checkpoint for the in-process judge, or the served model name at ``base_url`` (empty: the first
            model the server lists).
        base_url: OpenAI-compatible endpoint root including ``/v1``; ``None`` runs the judge in-process.
        api: ``"completions"`` (batched prompts) or ``"chat"`` (chat messages, one request per step).
        api_key: sent as ``Authorization: Bearer``; ``None`` sends none (local vLLM needs none).
        prompt: the per-step prompt (see :data:`DEFAULT_PROMPT`).
        yes_tokens, no_tokens: token strings counted as yes / no (compared after stripping spaces and the
            ``Ġ``/``▁`` markers, case-insensitively, for endpoint answers; encoded to ids in-process).
        top_logprobs: how many alternatives the endpoint returns (vLLM's default cap is 20).
        timeout_s: per-request timeout; max_retries, backoff_s: retry policy for transient failures.
        batch_size: prompts per forward pass (in-process) or per ``/v1/completions`` request.
        max_concurrency: parallel ``/v1/chat/completions`` requests.
        device, dtype, device_map, max_length, use_chat_template: in-process settings (``device_map="auto"`` shards
            a large judge over the GPUs; ``max_length`` cuts prompts from the left).
        q_prior: ``q`` of a step the judge could not score.
        generator, strict_independence: the cross-family check (see :mod:`rewards.verifiers.families`).
    """

    model: str = ""
    base_url: str | None = None
    api: str = "completions"
    api_key: str | None = None
    prompt: str = DEFAULT_PROMPT
    yes_tokens: tuple[str, ...] = ("yes", "Yes", " yes", " Yes", "YES", " YES")
    no_tokens: tuple[str, ...] = ("no", "No", " no", " No", "NO", " NO")
    top_logprobs: int = 20
    timeout_s: float = 30.0
    max_retries: int = 3
    backoff_s: float = 0.5
    batch_size: int = 16
    max_concurrency: int = 8
    device: str = "auto"
    dtype: str = "auto"
    device_map: str | None = None
    max_length: int = 2048
    use_chat_template: bool = True
    q_prior: float = 0.75
    generator: str | None = None
    strict_independence: bool = False

    def __post_init__(self) -> None:
        if self.base_url is None and not self.model:
            raise VerifierLoadError("JudgeConfig.model='' and base_url=None: pass model=<checkpoint> for an "
                                    "in-process judge, or base_url='http://host:8000/v1' for a served one.")
        if self.api not in ("completions", "chat"):
            raise VerifierLoadError(f"JudgeConfig.api={self.api!r}; use 'completions' or 'chat'.")
        if self.base_url is not None and not str(self.base_url).startswith(("http://", "https://")):
            raise VerifierLoadError(f"JudgeConfig.base_url={self.base_url!r} must start with http:// or https://, "
                                    f"e.g. 'http://127.0.0.1:8000/v1'.")
        for name in ("{t}", "{step}"):
            if name not in self.prompt:
                raise VerifierLoadError(f"JudgeConfig.prompt lacks the placeholder {name}; see DEFAULT_PROMPT.")
        if not (self.timeout_s > 0 and self.max_retries >= 0 and self.backoff_s >= 0 and self.batch_size >= 1
                and self.max_concurrency >= 1 and 1 <= self.top_logprobs <= 100):
            raise VerifierLoadError(
                f"JudgeConfig: timeout_s={self.timeout_s!r} must be > 0, max_retries={self.max_retries!r} and "
                f"backoff_s={self.backoff_s!r} >= 0, batch_size={self.batch_size!r} and max_concurrency="
                f"{self.max_concurrency!r} >= 1, top_logprobs={self.top_logprobs!r} in [1, 100].")
        if not 0.0 <= self.q_prior <= 1.0:
            raise VerifierLoadError(f"JudgeConfig.q_prior={self.q_prior!r} must be in [0, 1].")


def _norm(token: str) -> str:
    return token.replace("Ġ", "").replace("▁", "").strip().lower()


def yes_probability(alternatives: Mapping[str, float] | Sequence[Mapping[str, Any]], yes=("yes",), no=("no",)):
    """``p(yes) / (p(yes) + p(no))`` from next-token logprobs; ``None`` when neither appears.

    ``alternatives`` is ``{token: logprob}`` (``/v1/completions``) or ``[{"token", "logprob"}]`` (chat).

    >>> round(yes_probability({" Yes": math.log(0.6), " No": math.log(0.2), "Maybe": math.log(0.2)}), 3)
    0.75
    >>> yes_probability({"Maybe": 0.0}) is None
    True
    """
    if isinstance(alternatives, Mapping):
        pairs = list(alternatives.items())
    else:
        pairs = [(a.get("token", ""), a.get("logprob")) for a in alternatives if isinstance(a, Mapping)]
    yes_set, no_set = {_norm(y) for y in yes}, {_norm(n) for n in no}
    p_yes = p_no = 0.0
    for token, lp in pairs:
        if not isinstance(lp, (int, float)) or not math.isfinite(lp) or not isinstance(token, str):
            continue
        key = _norm(token)
        if key in yes_set:
            p_yes += math.exp(min(lp, 0.0))
        elif key in no_set:
            p_no += math.exp(min(lp, 0.0))
    if p_yes + p_no <= 0.0:
        return None
    return p_yes / (p_yes + p_no)


class JudgeVerifier(ModelVerifier):
    """Per-step yes/no judgements from an LLM, in-process or through an OpenAI-compatible server."""

    name = "judge"
    config_cls = JudgeConfig

    # -- loading ---------------------------------------------------------------------------------------------

    def _load(self) -> None:
        if self.config.base_url is not None:
            self._load_endpoint()
        else:
            self._load_local()

    def _load_local(self) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        cfg, owner = self.config, "JudgeConfig"
        self.device = resolve_device(cfg.device, owner)
        self.dtype = resolve_dtype(cfg.dtype, self.device, owner)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(cfg.model, trust_remote_code=False)
            self.model = AutoModelForCausalLM.from_pretrained(cfg.model, **load_kwargs(cfg, self.dtype))
        except Exception as exc:  # noqa: BLE001
            raise load_error(owner, "model", cfg.model, exc) from None
        self.device = place(self.model, cfg, self.device)
        self.model.eval()
        self.yes_ids = self._token_ids(cfg.yes_tokens, "yes_tokens")
        self.no_ids = self._token_ids(cfg.no_tokens, "no_tokens")
        if set(self.yes_ids) & set(self.no_ids):
            shared = set(self.yes_ids) & set(self.no_ids)
            raise VerifierLoadError(f"JudgeConfig.yes_tokens and no_tokens share token ids {shared}; make them "
                                    f"disjoint.")
        self.pad_id = pad_id(self.tokenizer)
        self.client = None

    def _token_ids(self, variants: Sequence[str], field_name: str) -> list[int]:
        ids = []
        for v in variants:
            enc = self.tokenizer.encode(v, add_special_tokens=False)
            if len(enc) == 1 and enc[0] not in ids:
                ids.append(enc[0])
        if not ids:
            raise VerifierLoadError(f"JudgeConfig.{field_name}={tuple(variants)!r}: none is a single token of the "
                                    f"judge's tokenizer ({self.config.model!r}). Fix: list the answer tokens as the "
                                    f"tokenizer spells them.")
        return ids

    def _load_endpoint(self) -> None:
        import httpx

        cfg = self.config
        headers = {"Authorization": f"Bearer {cfg.api_key}"} if cfg.api_key else {}
        self.client = httpx.Client(base_url=cfg.base_url.rstrip("/"), headers=headers,
                                   timeout=httpx.Timeout(cfg.timeout_s, connect=min(cfg.timeout_s, 10.0)))
        try:
            resp = self.client.get("/models")
            resp.raise_for_status()
            served = [m.get("id") for m in resp.json().get("data", []) if isinstance(m, Mapping)]
        except Exception as exc:  # noqa: BLE001
            self.client.close()
            raise VerifierLoadError(
                f"JudgeConfig.base_url={cfg.base_url!r} is unreachable or not OpenAI-compatible "
                f"({type(exc).__name__}: {str(exc)[:200]}). Fix: start the server (e.g. `vllm serve MODEL --port "
                f"8000`) and pass its root including /v1, or set base_url=None for an in-process judge.") from None
        if cfg.model and served and cfg.model not in served:
            self.client.close()
            raise VerifierLoadError(f"JudgeConfig.model={cfg.model!r} is not served at {cfg.base_url} (it serves "
                                    f"{served[:10]}). Fix: pass one of those names as model.")
        self.served_model = cfg.model or (served[0] if served else "")
        self.model = None

    def _verifier_identity(self) -> Any:
        if self.config.base_url is not None:
            return self.served_model
        return super()._verifier_identity()

    def close(self) -> None:
        if getattr(self, "client", None) is not None:
            self.client.close()

    # -- prompts ---------------------------------------------------------------------------------------------

    def prompts(self, trace) -> list[str]:
        """One prompt per step of ``trace`` (problem and previous steps bounded in length)."""
        problem = trace.problem[:MAX_PROBLEM_CHARS]
        out = []
        for t, step in enumerate(trace.steps):
            previous = "\n".join(f"Step {i + 1}: {s}" for i, s in enumerate(trace.steps[:t])) or "(none)"
            if len(previous) > MAX_PREVIOUS_CHARS:
                previous = "..." + previous[-MAX_PREVIOUS_CHARS:]
            out.append(self.config.prompt.format(problem=problem, previous=previous, t=t + 1, step=step))
        return out

    # -- scoring ---------------------------------------------------------------------------------------------

    def verify_batch(self, traces: Sequence[Any], flows: Sequence[Any] | None = None) -> list[list[StepCheck]]:
        self._ensure_loaded()
        prompts, owners = [], []
        for i, t in enumerate(traces):
            for p in self.prompts(t):
                prompts.append(p)
                owners.append(i)
        if self.config.base_url is None:
            qs = self._local_q(prompts)
        elif self.config.api == "chat":
            qs = self._chat_q(prompts)
        else:
            qs = self._completions_q(prompts)
        out: list[list[StepCheck]] = [[] for _ in traces]
        for i, q in zip(owners, qs):
            if q is None:
                out[i].append(StepCheck(self.config.q_prior, ["judge gave neither yes nor no"], False))
            else:
                reasons = [] if q >= 0.5 else [f"judge says this step is wrong (p(yes)={q:.3f})"]
                out[i].append(StepCheck(min(1.0, max(0.0, q)), reasons, True))
        return out

    def _local_q(self, prompts: list[str]) -> list[float | None]:
        import torch

        cfg = self.config
        texts = prompts
        templated = bool(cfg.use_chat_template and getattr(self.tokenizer, "chat_template", None))
        if templated:  # the template writes its own BOS: do not add another
            texts = [self.tokenizer.apply_chat_template([{"role": "user", "content": p}], tokenize=False,
                                                        add_generation_prompt=True) for p in prompts]
        out: list[float | None] = []
        for start in range(0, len(texts), cfg.batch_size):
            chunk = [self.tokenizer.encode(t, add_special_tokens=not templated)[-cfg.max_length:]
                     for t in texts[start:start + cfg.batch_size]]
            width = max(len(c) for c in chunk)
            ids = torch.full((len(chunk), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros_like(ids)
            for i, c in enumerate(chunk):  # left padding: the next-token logits sit at the last column
                ids[i, width - len(c):] = torch.tensor(c, dtype=torch.long)
                mask[i, width - len(c):] = 1
            with self._lock, torch.inference_mode():
                positions = (mask.cumsum(-1) - 1).clamp(min=0)
                logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                    position_ids=positions.to(self.device)).logits[:, -1]
                probs = torch.softmax(logits.float(), dim=-1).cpu()
            p_yes = probs[:, self.yes_ids].sum(-1)
            p_no = probs[:, self.no_ids].sum(-1)
            for y, n in zip(p_yes.tolist(), p_no.tolist()):
                out.append(y / (y + n) if y + n > 0 else None)
        return out

    def _post(self, path: str, payload: dict) -> dict:
        """POST with retries: connection errors, timeouts, 429 and 5xx back off and retry; others raise."""
        import httpx

        cfg = self.config
        last: str = ""
        for attempt in range(cfg.max_retries + 1):
            if attempt:
                time.sleep(min(30.0, cfg.backoff_s * 2 ** (attempt - 1)) * (1 + 0.1 * random.random()))
            try:
                resp = self.client.post(path, json=payload)
            except (httpx.TransportError, httpx.TimeoutException) as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}: {resp.text[:200]}"
                continue
            if resp.status_code >= 400:
                raise JudgeError(f"judge endpoint {cfg.base_url}{path} refused the request: HTTP {resp.status_code}: "
                                 f"{resp.text[:300]}")
            if len(resp.content) > MAX_RESPONSE_BYTES:
                raise JudgeError(f"judge endpoint answered {len(resp.content)} bytes (> {MAX_RESPONSE_BYTES}).")
            try:
                return resp.json()
            except ValueError as exc:
                raise JudgeError(f"judge endpoint answered non-JSON: {exc}") from None
        raise JudgeError(f"judge endpoint {cfg.base_url}{path} failed after {cfg.max_retries + 1} attempts: {last}")

    def _completions_q(self, prompts: list[str]) -> list[float | None]:
        cfg = self.config
        out: list[float | None] = []
        for start in range(0, len(prompts), cfg.batch_size):
            chunk = prompts[start:start + cfg.batch_size]
            data = self._post("/completions", {"model": self.served_model, "prompt": chunk, "max_tokens": 1,
                                               "temperature": 0.0, "logprobs": cfg.top_logprobs})
            choices = sorted(data.get("choices") or [], key=lambda c: c.get("index", 0))
            if len(choices) != len(chunk):
                raise JudgeError(f"judge endpoint returned {len(choices)} choices for {len(chunk)} prompts.")
            for c in choices:
                top = ((c.get("logprobs") or {}).get("top_logprobs") or [None])[0] or {}
                out.append(yes_probability(top, cfg.yes_tokens, cfg.no_tokens) if isinstance(top, Mapping) else None)
        return out

    def _chat_q(self, prompts: list[str]) -> list[float | None]:
        cfg = self.config

        def one(prompt: str) -> float | None:
            data = self._post("/chat/completions", {
                "model": self.served_model, "messages": [{"role": "user", "content": prompt}], "max_tokens": 1,
                "temperature": 0.0, "logprobs": True, "top_logprobs": min(cfg.top_logprobs, 20)})
            choices = data.get("choices") or []
            if not choices:
                raise JudgeError("judge endpoint returned no choices.")
            content = ((choices[0].get("logprobs") or {}).get("content") or [None])[0] or {}
            top = content.get("top_logprobs") or []
            if content.get("token") is not None and not any(a.get("token") == content["token"] for a in top):
                top = [*top, {"token": content["token"], "logprob": content.get("logprob")}]
            return yes_probability(top, cfg.yes_tokens, cfg.no_tokens)

        if len(prompts) <= 1:
            return [one(p) for p in prompts]
        with ThreadPoolExecutor(max_workers=min(cfg.max_concurrency, len(prompts))) as pool:
            return list(pool.map(one, prompts))
