"""Reward functions by name: a recipe's ``reward_funcs`` -> TRL reward callables, ours and other libraries'.

Each entry of ``reward_funcs`` is a name :func:`trainers.training.reward_names.resolve_reward_name` reads (the one
resolver, which ``rafs audit`` uses too):

* a registry name of :mod:`rewards.adapters.trl_rewards` (``faithful_accuracy``, ``rafs``, ``rafs_step_validity``,
  ``rafs_support``, ``rafs_consensus``, ``rafs_stability``) or its function name (``rafs_reward``), optionally
  prefixed with ``rewards.adapters.trl_rewards.``: configured by the recipe (``rafs_config``,
  ``unfaithful_credit``, ``answer_column``, the step verifier of the ``verifier*`` keys);
* a public name of ``trl.rewards`` (``accuracy_reward``, ``think_format_reward``, ...);
* a dotted import path (``trl.rewards.accuracy_reward``, ``my_module.my_reward``, ``pkg.mod:func``); a ``get_*``
  factory is called with its defaults.

A function that is not ours is wrapped in :class:`GoldColumnReward`, which hands it the recipe's gold column under
the name it asks for (``solution`` for TRL's and open-r1's accuracy rewards) and never lets it crash training.

>>> from trainers.training.recipes import RAFSScriptArguments
>>> resolve_reward_func("rafs", RAFSScriptArguments()).__name__
'rafs_reward'
>>> resolve_reward_func("faithful_acuracy", RAFSScriptArguments())
Traceback (most recent call last):
...
ValueError: reward_funcs: unknown reward 'faithful_acuracy' (did you mean 'faithful_accuracy'...
"""

from __future__ import annotations

import inspect
import logging
from typing import TYPE_CHECKING, Any, Callable, Sequence

from trainers.training.recipes import rafs_config_of
from trainers.training.reward_names import import_reward, resolve_reward_name, trl_reward_names

if TYPE_CHECKING:
    from rewards import RAFSConfig
    from trainers.training.recipes import RAFSScriptArguments

__all__ = ["GOLD_PARAMETERS", "TRL_KWARGS", "GoldColumnReward", "import_reward", "reward_needs", "trl_reward_names",
           "resolve_reward_func", "build_reward_funcs", "build_verifier", "describe_reward", "answer_probe",
           "rewards_that_cannot_pay"]

log = logging.getLogger(__name__)

#: Parameter names under which reward functions of other libraries take the gold answer (TRL's and open-r1's
#: ``accuracy_reward`` take ``solution``); the recipe's ``answer_column`` is passed under each one they declare.
GOLD_PARAMETERS = ("solution", "answer", "ground_truth", "gold", "reference", "target")
#: Keyword arguments TRL itself gives every reward function (besides the dataset columns).
TRL_KWARGS = ("prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric", "environments")


class GoldColumnReward:
    """A reward function of another library (TRL, open-r1, your own module) adapted to a recipe's data.

    TRL calls ``reward(prompts=..., completions=..., <dataset columns>=...)``; a recipe's dataset holds the prompt
    and the gold column ``answer_column`` (``answer`` by default), while TRL's ``accuracy_reward`` wants
    ``solution``. This wrapper passes ``kwargs[gold_column]`` under each name of ``gold_params``, turns plain-text
    completions into one assistant message when ``chat`` (TRL's rewards read ``completion[0]["content"]``), and
    never crashes training: an exception inside the wrapped function is logged with the first completion, counted
    (``errors``, and the ``<name>/errors`` metric through TRL's ``log_metric``) and gives ``None`` (unscorable) for
    the batch. It is a plain module-level class, so it pickles (the wrapped function pickles by reference).
    ``__name__`` is the wrapped function's, so metrics stay ``rewards/<name>/mean``.

    >>> def accuracy(completions, solution, **kwargs):
    ...     return [float(c[0]["content"].endswith(s)) for c, s in zip(completions, solution)]
    >>> reward = GoldColumnReward(accuracy, "answer", ("solution",), chat=True)
    >>> reward(prompts=["1+1?", "2+2?"], completions=["#### 2", "#### 5"], answer=["2", "4"])
    [1.0, 0.0]
    >>> reward.__name__
    'accuracy'
    """

    def __init__(self, func: Callable[..., Any], gold_column: str, gold_params: Sequence[str] = (), *,
                 chat: bool = False, qualname: str | None = None):
        self.func = func
        self.gold_column = gold_column
        self.gold_params = tuple(gold_params)
        self.chat = chat
        self.qualname = qualname or f"{getattr(func, '__module__', '?')}.{getattr(func, '__name__', '?')}"
        self.__name__ = getattr(func, "__name__", type(func).__name__)
        self.errors = 0

    def __repr__(self) -> str:
        mapped = ", ".join(f"{p}=<{self.gold_column}>" for p in self.gold_params)
        return f"GoldColumnReward({self.qualname}{'; ' + mapped if mapped else ''}{'; chat' if self.chat else ''})"

    def __call__(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float | None]:
        completions = list(completions or [])
        if self.gold_params:
            if self.gold_column not in kwargs:
                raise ValueError(f"reward {self.qualname} needs the gold column {self.gold_column!r} (answer_column),"
                                 f" but the batch has only {sorted(k for k in kwargs if k not in TRL_KWARGS)}; set "
                                 "answer_column to the dataset's gold column.")
            for name in self.gold_params:
                kwargs.setdefault(name, kwargs[self.gold_column])
        if self.chat:
            completions = [[{"role": "assistant", "content": c}] if isinstance(c, str) else c for c in completions]
        try:
            out = self.func(prompts=prompts, completions=completions, **kwargs)
            return [None if v is None else float(v) for v in out]
        except Exception as exc:  # noqa: BLE001 - a reward never crashes training: unscorable instead
            self.errors += 1
            first = str(completions[0])[:200] if completions else ""
            log.warning("reward %s raised %s: %s (call %d with an error; first completion %r): scored None",
                        self.qualname, type(exc).__name__, exc, self.errors, first,
                        exc_info=self.errors == 1)
            log_metric = kwargs.get("log_metric")
            if callable(log_metric):
                log_metric(f"{self.__name__}/errors", 1.0)
            return [None] * len(completions)


def reward_needs(func: Callable[..., Any]) -> tuple[list[str], list[str], bool]:
    """(gold parameters it declares, other required parameters TRL does not supply, whether it reads chat).

    >>> reward_needs(lambda completions, solution, **kw: [])
    (['solution'], [], False)
    """
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # a builtin or C callable: nothing to learn
        return [], [], False
    gold = [n for n in params if n in GOLD_PARAMETERS]
    missing = [n for n, prm in params.items()
               if prm.default is inspect.Parameter.empty
               and prm.kind in (prm.POSITIONAL_OR_KEYWORD, prm.KEYWORD_ONLY)
               and n not in TRL_KWARGS and n not in GOLD_PARAMETERS]
    return gold, missing, getattr(func, "__module__", "").startswith("trl.")


def resolve_reward_func(name: str, script: "RAFSScriptArguments", *, config: "RAFSConfig | None" = None,
                        verifier: Any = None) -> Any:
    """One entry of ``reward_funcs`` -> a TRL reward function (see the module docstring). ``config`` is the
    recipe's RAFS config (``None``: the rewards' defaults). Raises a one-line ``ValueError`` for an unknown name
    or a function that needs an argument no dataset column provides."""
    from rewards.adapters.trl_rewards import get_reward_funcs

    name = str(name).strip()
    try:
        key, func = resolve_reward_name(name)  # the one resolver (rafs audit uses it too)
    except ValueError as exc:
        raise ValueError(f"reward_funcs: {exc}") from None
    if key is not None:
        kwargs: dict[str, Any] = {"gold_column": script.answer_column} if script.answer_column != "answer" else {}
        if key == "faithful_accuracy" and script.unfaithful_credit != 0.5:
            kwargs["unfaithful_credit"] = script.unfaithful_credit
        if verifier is not None:
            kwargs["verifier"] = verifier
        if config is None and not kwargs:
            return get_reward_funcs([key])[0]  # the picklable module-level function
        return get_reward_funcs([key], config, **kwargs)[0]
    gold, missing, chat = reward_needs(func)
    if missing:
        raise ValueError(f"reward_funcs: {name} needs the argument(s) {missing}, which no dataset column provides "
                         f"(the training set has 'prompt' and answer_column={script.answer_column!r}); wrap it in a "
                         "function that supplies them.")
    gold = [g for g in gold if g != script.answer_column]
    return GoldColumnReward(func, script.answer_column, gold, chat=chat and script.conversational is False,
                            qualname=f"{getattr(func, '__module__', '?')}.{getattr(func, '__name__', name)}")


def build_verifier(script: "RAFSScriptArguments") -> Any:
    """The step verifier the recipe's ``verifier*`` keys describe, or ``None`` for the symbolic default."""
    if script.verifier in (None, "", "symbolic"):
        return None
    from dataclasses import asdict

    from rewards.verifiers.registry import VERIFIER_KEYS, verifier_from_config

    values = {k: v for k, v in asdict(script).items() if k in VERIFIER_KEYS}
    return verifier_from_config(values)


BOXED_INSTRUCTION = r"Put the final answer in \boxed{}."


def answer_probe(instruction: str | None) -> tuple[str, str, str] | None:
    r"""(problem, completion, gold): a worked, correct completion that writes its answer the way ``instruction``
    asks (after ``####``, in ``\boxed{}``), for checking that a reward can pay at all; None when the instruction
    names neither format.

    >>> answer_probe("Put the final answer after ####.")[1]
    'Sam has 3 + 2 = 5 pens.\n#### 5'
    >>> answer_probe("Think step by step.") is None
    True
    """
    text = instruction or ""
    if "####" in text:
        final = "#### 5"
    elif "boxed" in text:
        final = "The answer is \\boxed{5}."
    else:
        return None
    return "Sam has 3 pens and gets 2 more. How many pens does Sam have now?", f"Sam has 3 + 2 = 5 pens.\n{final}", "5"


def rewards_that_cannot_pay(funcs: Sequence[Any], script: "RAFSScriptArguments") -> list[str]:
    r"""One warning per reward of another library that pays 0 for a correct, worked completion written the way the
    recipe's ``instruction`` asks (:func:`answer_probe`): in that run it can never pay, e.g. TRL's
    ``accuracy_reward`` reads only ``\boxed{}`` and the demo recipe asks for ``####``. rafs's own rewards read both.
    """
    probe = answer_probe(script.instruction)
    if probe is None:
        return []
    problem, completion, gold = probe
    prompt = [{"role": "user", "content": f"{problem}\n{script.instruction}"}]
    out = []
    for func in funcs:
        if not isinstance(func, GoldColumnReward):
            continue
        # what TRL hands a reward: message lists on a conversational data set, plain text otherwise
        given = completion if script.conversational is False else [{"role": "assistant", "content": completion}]
        errors = func.errors
        paid = func(prompts=[prompt], completions=[given], **{script.answer_column: [gold]})
        func.errors = errors  # the probe is not the run's call
        if paid and paid[0] is not None and paid[0] <= 0:
            out.append(f"reward {func.qualname} pays 0 for a correct answer written as the instruction asks "
                       f"({script.instruction!r}), e.g. {completion!r} with gold {gold!r}: it can never pay in this "
                       f"run; ask for a format both read (--instruction {BOXED_INSTRUCTION!r}; rafs's rewards read "
                       "\\boxed{} too) or drop it")
    return out


def build_reward_funcs(script: "RAFSScriptArguments", *, with_verifier: bool = True) -> list[Any]:
    """The recipe's reward functions, in order (see :func:`resolve_reward_func`); ``with_verifier=False`` skips
    building the step verifier (``--dry-run``: resolve the names without loading a model)."""
    cfg = rafs_config_of(script)
    verifier = build_verifier(script) if with_verifier else None
    funcs = [resolve_reward_func(name, script, config=cfg, verifier=verifier) for name in script.reward_funcs]
    if not funcs:
        raise ValueError("reward_funcs is empty: name at least one reward, e.g. [faithful_accuracy, rafs].")
    for warning in rewards_that_cannot_pay(funcs, script):
        log.warning(warning)
    return funcs


def describe_reward(func: Any) -> str:
    """One line: where a resolved reward function comes from and how it is configured.

    >>> from rewards.adapters.trl_rewards import rafs_reward
    >>> describe_reward(rafs_reward)
    'rewards.adapters.trl_rewards.rafs_reward'
    """
    if isinstance(func, GoldColumnReward):
        return repr(func)
    module = getattr(func, "__module__", None) or type(func).__module__
    name = getattr(func, "__name__", type(func).__name__)
    settings = []
    for attr in ("gold_column", "unfaithful_credit", "verifier"):
        value = getattr(func, attr, None)
        if value is not None:
            settings.append(f"{attr}={value!r}" if attr != "verifier" else f"verifier={type(value).__name__}")
    return f"{module}.{name}" + (f" ({', '.join(settings)})" if settings else "")
