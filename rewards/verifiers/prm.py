"""Process reward models as step verifiers: ``q_t`` = the PRM's probability that step ``t`` is correct.

Two conventions, both read at a step-separator token placed after every step:

* **Qwen2.5-Math-PRM** (``convention="qwen"``; Qwen/Qwen2.5-Math-PRM-7B, -72B and fine-tunes): the steps are
  joined by ``<extra_0>`` (one after each step) inside the chat template (system, user = problem, assistant =
  steps); a 2-way classification head scores every token, and
  ``q_t = softmax(head(h_{sep_t}))[positive_label]`` — the model card's ``make_step_rewards``: softmax over the
  two labels, masked to the separator positions, column 1.
* **Math-Shepherd** (``convention="shepherd"``; peiyi9979/math-shepherd-mistral-7b-prm): a causal LM reads
  ``"{problem} Step 1: ... ки\\nStep 2: ... ки"`` and ``q_t = softmax(logits_{ки_t}[[+, -]])[0]``, the probability
  of the ``+`` token against the ``-`` token as the next token after the ``t``-th ``ки`` tag.

Loading uses transformers with ``trust_remote_code=False``. The Qwen PRM ships its head in remote code
(``Qwen2ForProcessRewardModel``: ``score = Linear(H, H) -> ReLU -> Linear(H, 2)``); here the backbone is loaded with
``AutoModel`` (``Qwen2Model``) and the ``score.*`` tensors are read from the checkpoint's safetensors into the same
head, so no remote code runs. A checkpoint saved as ``*ForTokenClassification`` (a linear ``score``) loads through
``AutoModelForTokenClassification``. Inference is batched (``batch_size`` traces per forward pass) under
``torch.inference_mode()`` on ``device``/``dtype``.

Untrusted text cannot forge a step boundary: occurrences of the separator inside the problem or a step are removed
before tokenising. Steps whose separator falls beyond ``max_length`` (the input is cut from the left) get the
neutral prior ``q_prior`` with ``checked=False``.

Example (a local checkpoint; on a GPU use ``device="cuda"``, ``dtype="bfloat16"``)::

    from rewards.verifiers.prm import PRMConfig, PRMVerifier
    prm = PRMVerifier(PRMConfig(model="Qwen/Qwen2.5-Math-PRM-7B", device="cuda", dtype="bfloat16",
                                generator="meta-llama/Llama-3.1-8B-Instruct"))
    checks = prm.verify_batch(traces)  # one StepCheck per step and trace

The scorer takes it as its step verifier: ``score_trace(problem, completion, verifier=prm)``.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import threading
from dataclasses import dataclass, fields, replace
from typing import Any, Sequence

from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.families import check_independence

__all__ = ["PRMConfig", "PRMVerifier", "VerifierLoadError", "ModelVerifier", "resolve_device", "resolve_dtype"]

log = logging.getLogger(__name__)

QWEN_SYSTEM_PROMPT = "Please reason step by step, and put your final answer within \\boxed{}."


class VerifierLoadError(ValueError):
    """A model-backed verifier could not be built: the message names the config field, its value and the fix."""


# --------------------------------------------------------------------------------------------------------------
# Shared helpers for the model-backed verifiers (judge.py and nli.py import them).
# --------------------------------------------------------------------------------------------------------------

_DTYPES = {"float32": "float32", "fp32": "float32", "float": "float32", "bfloat16": "bfloat16", "bf16": "bfloat16",
           "float16": "float16", "fp16": "float16", "half": "float16"}


def resolve_device(device: str, owner: str = "config"):
    """``"auto"`` -> ``cuda`` when available, else ``mps``, else ``cpu``; otherwise ``torch.device(device)``."""
    import torch

    if device in (None, "auto"):
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise VerifierLoadError(f"{owner}.device={device!r} is not a torch device ({exc}); use 'auto', 'cpu', "
                                f"'cuda', 'cuda:1' or 'mps'.") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise VerifierLoadError(f"{owner}.device={device!r} but CUDA is not available on this machine; use "
                                f"device='cpu' (or 'auto').")
    return dev


def resolve_dtype(dtype: str, device, owner: str = "config"):
    """``"auto"`` -> bfloat16 on a GPU that supports it, float16 on other GPUs, float32 on CPU."""
    import torch

    if dtype in (None, "auto"):
        if device.type == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    name = _DTYPES.get(str(dtype).lower().replace("torch.", ""))
    if name is None:
        raise VerifierLoadError(f"{owner}.dtype={dtype!r} is not supported; use 'auto', 'float32', 'bfloat16' or "
                                f"'float16'.")
    return getattr(torch, name)


def load_error(owner: str, field_name: str, value: Any, exc: BaseException,
               fix: str | None = None) -> VerifierLoadError:
    fix = fix or ("pass a local checkpoint directory, or a hub id already in the cache when HF_HUB_OFFLINE=1; "
                  "trust_remote_code is off, so the checkpoint must be a transformers architecture")
    return VerifierLoadError(f"{owner}.{field_name}={value!r} could not be loaded ({type(exc).__name__}: "
                             f"{str(exc)[:300]}). Fix: {fix}.")


def load_kwargs(config, dtype) -> dict[str, Any]:
    """``from_pretrained`` keyword arguments: dtype, no remote code, and ``device_map`` when the config sets one."""
    kwargs: dict[str, Any] = {"dtype": dtype, "trust_remote_code": False}
    if getattr(config, "device_map", None):
        kwargs["device_map"] = config.device_map
    return kwargs


def place(model, config, device):
    """Move ``model`` to ``device`` unless ``device_map`` already placed it; the device its inputs go to."""
    if getattr(config, "device_map", None):
        return model.get_input_embeddings().weight.device
    model.to(device)
    return device


def single_token_id(tokenizer, text: str, owner: str, field_name: str, *, after: str | None = None) -> int:
    """The id of ``text`` when it is one token (optionally as it appears after ``after``), else a clear error."""
    ids = tokenizer.encode((after + text) if after else text, add_special_tokens=False)
    if after:
        prefix = tokenizer.encode(after.rstrip(), add_special_tokens=False) if after.strip() else []
        tail = ids[len(prefix):] if ids[:len(prefix)] == prefix else ids[-1:]
    else:
        tail = ids
    unk = getattr(tokenizer, "unk_token_id", None)
    if len(tail) != 1 or (unk is not None and tail[0] == unk) or text.strip() not in tokenizer.decode(tail):
        raise VerifierLoadError(
            f"{owner}.{field_name}={text!r} is not a single token of the verifier's tokenizer (it encodes to "
            f"{tokenizer.convert_ids_to_tokens(tail)}). Fix: set {field_name} to the token the model was trained "
            f"with, or use a checkpoint whose tokenizer has it.")
    return int(tail[0])


def config_from(cls, config, kwargs: dict, owner: str):
    """A config dataclass from ``config`` and/or keyword overrides; unknown keys name the valid ones."""
    known = {f.name for f in fields(cls)}
    unknown = set(kwargs) - known
    if unknown:
        raise TypeError(f"{owner} got unknown option(s) {sorted(unknown)}; valid options: {sorted(known)}.")
    if config is None:
        return cls(**kwargs)
    if not isinstance(config, cls):
        raise TypeError(f"{owner} config must be a {cls.__name__}, got {type(config).__name__}.")
    return replace(config, **kwargs) if kwargs else config


class ModelVerifier(StepVerifier):
    """Base of the model-backed verifiers: eager load at construction, lazy reload after unpickling, a lock.

    Pickling keeps only the config (a worker process reloads the model on first use); ``verify`` is
    thread-safe (one forward pass at a time per verifier).
    """

    config_cls: type = object

    def __init__(self, config=None, **kwargs) -> None:
        self.config = config_from(self.config_cls, config, kwargs, type(self).__name__)
        self._lock = threading.RLock()
        self._loaded = False
        generator = getattr(self.config, "generator", None)
        if generator and getattr(self.config, "strict_independence", False):  # refuse before loading weights
            check_independence(generator, getattr(self.config, "model", None) or None, strict=True)
        self._ensure_loaded()
        self.independent = self._check_independence()

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config, "independent": getattr(self, "independent", None)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self.independent = state.get("independent")
        self._lock = threading.RLock()
        self._loaded = False

    def _ensure_loaded(self) -> None:
        with self._lock:
            if not self._loaded:
                self._load()
                self._loaded = True

    def _load(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _verifier_identity(self) -> Any:
        model = getattr(self, "model", None)
        return model.config if model is not None and hasattr(model, "config") else getattr(self.config, "model", None)

    def _check_independence(self) -> bool | None:
        generator = getattr(self.config, "generator", None)
        if not generator:
            return None
        return check_independence(generator, self._verifier_identity(),
                                  strict=bool(getattr(self.config, "strict_independence", False)))

    def verify(self, trace, flow=None) -> list[StepCheck]:
        return self.verify_batch([trace], None if flow is None else [flow])[0]

    def verify_batch(self, traces: Sequence[Any], flows: Sequence[Any] | None = None
                     ) -> list[list[StepCheck]]:  # pragma: no cover - abstract
        """Score every step of every trace in a few forward passes (or requests); the model reads the text, so
        ``flows`` (the dataflow graphs the scorer passes) are accepted and not used."""
        raise NotImplementedError


# --------------------------------------------------------------------------------------------------------------
# PRM
# --------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PRMConfig:
    """Configuration of :class:`PRMVerifier`.

    Attributes:
        model: checkpoint directory or hub id (``Qwen/Qwen2.5-Math-PRM-7B``,
            ``peiyi9979/math-shepherd-mistral-7b-prm``).
        convention: ``"qwen"`` (classification head at ``<extra_0>``), ``"shepherd"`` (``+``/``-`` after ``ки``),
            or ``"auto"``: from ``config.architectures`` (``*ForCausalLM`` -> shepherd, else qwen).
        step_token: the separator; ``None`` -> ``"<extra_0>"`` (qwen) or ``"ки"`` (shepherd).
        good_token, bad_token: Math-Shepherd's label tokens.
        positive_label: index of the "correct" class of the Qwen head (1 in Qwen2.5-Math-PRM).
        system_prompt: the Qwen PRM's system message.
        use_chat_template: format the Qwen input with the tokenizer's chat template when it has one.
        device, dtype: ``"auto"`` picks the GPU and bfloat16 when present.
        device_map: passed to ``from_pretrained`` (e.g. ``"auto"`` to shard a 72B PRM over the GPUs; needs
            accelerate); ``None`` puts the whole model on ``device``.
        batch_size: traces per forward pass.
        max_length: at most this many tokens per input (cut from the left; steps cut off get ``q_prior``).
        q_prior: ``q`` of a step the PRM could not score.
        generator: the policy's name or path, for the cross-family independence check (``None``: no check).
        strict_independence: raise instead of warn when the generator and the PRM share a family.
    """

    model: str = ""
    convention: str = "auto"
    step_token: str | None = None
    good_token: str = "+"
    bad_token: str = "-"
    positive_label: int = 1
    system_prompt: str = QWEN_SYSTEM_PROMPT
    use_chat_template: bool = True
    device: str = "auto"
    dtype: str = "auto"
    device_map: str | None = None
    batch_size: int = 8
    max_length: int = 4096
    q_prior: float = 0.75
    generator: str | None = None
    strict_independence: bool = False

    def __post_init__(self) -> None:
        if not self.model or not isinstance(self.model, str):
            raise VerifierLoadError(f"PRMConfig.model={self.model!r} is empty; pass a checkpoint directory or hub "
                                    f"id, e.g. model='Qwen/Qwen2.5-Math-PRM-7B'.")
        if self.convention not in ("auto", "qwen", "shepherd"):
            raise VerifierLoadError(f"PRMConfig.convention={self.convention!r}; use 'auto', 'qwen' or 'shepherd'.")
        if self.batch_size < 1 or self.max_length < 16:
            raise VerifierLoadError(f"PRMConfig.batch_size={self.batch_size!r} must be >= 1 and max_length="
                                    f"{self.max_length!r} >= 16.")
        if not 0.0 <= self.q_prior <= 1.0:
            raise VerifierLoadError(f"PRMConfig.q_prior={self.q_prior!r} must be a probability in [0, 1].")


class PRMVerifier(ModelVerifier):
    """Per-step probabilities from a process reward model (see the module docstring for both formulas).

    ``verify(trace, flow)`` scores one trace; ``verify_batch(traces)`` scores many, ``batch_size`` per forward pass.
    """

    name = "prm"
    config_cls = PRMConfig

    def _load(self) -> None:
        import torch  # noqa: F401 - fail early with a clear message if missing
        from transformers import AutoConfig, AutoTokenizer

        cfg = self.config
        owner = "PRMConfig"
        self.device = resolve_device(cfg.device, owner)
        self.dtype = resolve_dtype(cfg.dtype, self.device, owner)
        try:
            model_config = AutoConfig.from_pretrained(cfg.model, trust_remote_code=False)
        except Exception as exc:  # noqa: BLE001
            raise load_error(owner, "model", cfg.model, exc) from None
        archs = list(getattr(model_config, "architectures", None) or [])
        convention = cfg.convention
        if convention == "auto":
            convention = "shepherd" if any(a.endswith("ForCausalLM") for a in archs) else "qwen"
        self.convention = convention
        self.step_token = cfg.step_token or ("<extra_0>" if convention == "qwen" else "ки")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(cfg.model, trust_remote_code=False)
        except Exception as exc:  # noqa: BLE001
            raise load_error(owner, "model", cfg.model, exc, "the checkpoint needs its tokenizer files "
                             "(tokenizer.json or tokenizer_config.json) beside the weights") from None
        if convention == "qwen":
            self.step_id = single_token_id(self.tokenizer, self.step_token, owner, "step_token")
            self.model, self.head = _load_qwen_prm(cfg.model, archs, load_kwargs(cfg, self.dtype), owner)
        else:
            self.step_id = single_token_id(self.tokenizer, self.step_token, owner, "step_token", after="step ")
            good = self.tokenizer.encode(f"{cfg.good_token} {cfg.bad_token}", add_special_tokens=False)
            if len(good) != 2:
                raise VerifierLoadError(
                    f"PRMConfig.good_token={cfg.good_token!r}/bad_token={cfg.bad_token!r} do not encode to two "
                    f"single tokens (got {self.tokenizer.convert_ids_to_tokens(good)}). Fix: use the label tokens the "
                    f"PRM was trained with.")
            self.label_ids = good
            from transformers import AutoModelForCausalLM

            try:
                self.model = AutoModelForCausalLM.from_pretrained(cfg.model, **load_kwargs(cfg, self.dtype))
            except Exception as exc:  # noqa: BLE001
                raise load_error(owner, "model", cfg.model, exc) from None
            self.head = None
        self.device = place(self.model, cfg, self.device)
        self.model.eval()
        if self.head is not None:
            self.head.to(device=self.device, dtype=self.dtype).eval()
        self.pad_id = pad_id(self.tokenizer)

    # -- formatting ------------------------------------------------------------------------------------------

    def _clean(self, text: str) -> str:
        return text.replace(self.step_token, " ").strip()

    def format(self, trace) -> str:
        """The PRM's input text for ``trace`` (one separator after every step)."""
        steps = [self._clean(s) for s in trace.steps]
        problem = self._clean(trace.problem)
        sep = self.step_token
        if self.convention == "shepherd":
            body = "\n".join(f"Step {i + 1}: {s} {sep}" for i, s in enumerate(steps))
            return f"{problem} {body}"
        answer = sep.join(steps) + sep
        template = getattr(self.tokenizer, "chat_template", None)
        if self.config.use_chat_template and template:
            messages = [{"role": "system", "content": self.config.system_prompt},
                        {"role": "user", "content": problem},
                        {"role": "assistant", "content": answer}]
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
        return f"{self.config.system_prompt}\n\n{problem}\n\n{answer}"

    # -- scoring ----------------------------------------------------------------------------------------------

    def verify_batch(self, traces: Sequence[Any], flows: Sequence[Any] | None = None) -> list[list[StepCheck]]:
        self._ensure_loaded()
        out: list[list[StepCheck]] = []
        bs = self.config.batch_size
        for start in range(0, len(traces), bs):
            out.extend(self._score_chunk(list(traces[start:start + bs])))
        return out

    def _score_chunk(self, traces: list) -> list[list[StepCheck]]:
        import torch

        cfg = self.config
        encoded = []
        for t in traces:
            ids = self.tokenizer.encode(self.format(t), add_special_tokens=self.convention == "shepherd")
            encoded.append(ids[-cfg.max_length:])
        width = max((len(e) for e in encoded), default=1) or 1
        input_ids = torch.full((len(encoded), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(encoded), width), dtype=torch.long)
        for i, ids in enumerate(encoded):
            input_ids[i, :len(ids)] = torch.tensor(ids, dtype=torch.long)
            mask[i, :len(ids)] = 1
        with self._lock, torch.inference_mode():
            input_ids, mask = input_ids.to(self.device), mask.to(self.device)
            if self.convention == "shepherd":
                logits = self.model(input_ids=input_ids, attention_mask=mask).logits
                probs = torch.softmax(logits[:, :, self.label_ids].float(), dim=-1)[:, :, 0]
            elif self.head is None:  # *ForTokenClassification
                logits = self.model(input_ids=input_ids, attention_mask=mask).logits
                probs = torch.softmax(logits.float(), dim=-1)[:, :, cfg.positive_label]
            else:
                hidden = self.model(input_ids=input_ids, attention_mask=mask).last_hidden_state.to(self.device)
                probs = torch.softmax(self.head(hidden).float(), dim=-1)[:, :, cfg.positive_label]
            probs = probs.cpu()
            input_ids = input_ids.cpu()
        results = []
        for i, t in enumerate(traces):
            n = len(t.steps)
            positions = (input_ids[i, :len(encoded[i])] == self.step_id).nonzero().flatten().tolist()
            results.append(self._checks(n, [float(probs[i, p]) for p in positions]))
        return results

    def _checks(self, n: int, qs: list[float]) -> list[StepCheck]:
        prior = self.config.q_prior
        if len(qs) > n:
            reason = f"PRM found {len(qs)} separators for {n} steps; not scored"
            return [StepCheck(prior, [reason], False) for _ in range(n)]
        missing = n - len(qs)  # the input was cut from the left: the earliest steps lost their separators
        checks = [StepCheck(prior, [f"PRM input longer than max_length={self.config.max_length}; step not scored"],
                            False) for _ in range(missing)]
        for q in qs:
            q = min(1.0, max(0.0, q))
            reasons = [] if q >= 0.5 else [f"PRM ({self.convention}) gives this step p(correct)={q:.3f}"]
            checks.append(StepCheck(q, reasons, True))
        return checks


def pad_id(tokenizer) -> int:
    for attr in ("pad_token_id", "eos_token_id", "unk_token_id"):
        value = getattr(tokenizer, attr, None)
        if isinstance(value, int):
            return value
    return 0


def _checkpoint_files(path: str) -> list[str]:
    """The safetensors files of a checkpoint (a local directory, or a hub id resolved through the cache)."""
    if os.path.isdir(path):
        return sorted(glob.glob(os.path.join(path, "*.safetensors")))
    from transformers.utils import cached_file

    index = cached_file(path, "model.safetensors.index.json", _raise_exceptions_for_missing_entries=False)
    if index:
        with open(index, encoding="utf-8") as fh:
            shards = sorted(set(json.load(fh)["weight_map"].values()))
        return [cached_file(path, s) for s in shards]
    single = cached_file(path, "model.safetensors", _raise_exceptions_for_missing_entries=False)
    return [single] if single else []


def _load_score_head(path: str, owner: str):
    """``score.*`` tensors -> ``Linear(H,H) -> ReLU -> Linear(H,L)`` (Qwen2ForProcessRewardModel) or ``Linear(H,L)``."""
    import torch
    from safetensors import safe_open

    tensors: dict[str, Any] = {}
    for file in _checkpoint_files(path):
        with safe_open(file, framework="pt") as fh:
            for key in fh.keys():
                if key.startswith("score."):
                    tensors[key[len("score."):]] = fh.get_tensor(key)
    if {"0.weight", "2.weight"} <= set(tensors):
        w0, w2 = tensors["0.weight"], tensors["2.weight"]
        head = torch.nn.Sequential(torch.nn.Linear(w0.shape[1], w0.shape[0], bias="0.bias" in tensors),
                                   torch.nn.ReLU(),
                                   torch.nn.Linear(w2.shape[1], w2.shape[0], bias="2.bias" in tensors))
    elif "weight" in tensors:
        w = tensors["weight"]
        head = torch.nn.Sequential(torch.nn.Linear(w.shape[1], w.shape[0], bias="bias" in tensors))
        tensors = {f"0.{k}": v for k, v in tensors.items()}
    else:
        raise VerifierLoadError(
            f"{owner}.model={path!r} has no classification head (no 'score.0.weight'/'score.2.weight' or "
            f"'score.weight' in its safetensors): it is not a Qwen-style PRM. Fix: point model at a PRM checkpoint, "
            f"or use convention='shepherd' for a causal-LM PRM.")
    head.load_state_dict({k: v.float() for k, v in tensors.items()})
    return head


def _load_qwen_prm(path: str, archs: list[str], kwargs: dict[str, Any], owner: str):
    from transformers import AutoModel, AutoModelForTokenClassification

    try:
        if any(a.endswith("ForTokenClassification") for a in archs):
            model = AutoModelForTokenClassification.from_pretrained(path, **kwargs)
            return model, None
        model, info = AutoModel.from_pretrained(path, output_loading_info=True, **kwargs)
    except Exception as exc:  # noqa: BLE001
        raise load_error(owner, "model", path, exc) from None
    missing = [k for k in info.get("missing_keys", []) if "rotary" not in k]
    if missing:
        raise VerifierLoadError(f"{owner}.model={path!r}: the backbone's weights were not found in the checkpoint "
                                f"(missing {missing[:3]}...). Fix: pass the PRM checkpoint directory itself.")
    return model, _load_score_head(path, owner)
