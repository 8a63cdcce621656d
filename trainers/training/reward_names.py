"""One resolver of reward names, for every command that takes them (``rafs audit``, ``rafs train``'s
``reward_funcs``, the demo).

A name is one of

* a registry name of :mod:`rewards.adapters.trl_rewards` (``rafs``, ``faithful_accuracy``, ``rafs_step_validity``,
  ``rafs_support``, ``rafs_consensus``, ``rafs_stability``) or its function name (``rafs_reward``), optionally
  prefixed with ``rewards.adapters.trl_rewards.``;
* a public name of ``trl.rewards`` (``accuracy_reward``, ``think_format_reward``, ...), when TRL is installed;
* an import path, ``pkg.module.func`` or ``pkg.module:func`` (``pkg.module:obj.attr`` too). A module next to the
  working directory is found (the working directory is put on ``sys.path``), and a ``get_*`` factory is called
  with its defaults.

Errors are one-line :class:`ValueError`\\ s naming the reward and the fix. This module imports neither TRL nor
torch (``rafs audit`` runs in the light install).

>>> resolve_reward_name("rafs_reward")
('rafs', None)
>>> key, func = resolve_reward_name("rewards.scoring.score:score_trace")
>>> key, func.__name__
(None, 'score_trace')
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import sys
from typing import Any, Callable

__all__ = ["OURS_PREFIX", "our_reward_names", "trl_reward_names", "import_reward", "resolve_reward_name"]

OURS_PREFIX = "rewards.adapters.trl_rewards."


def our_reward_names() -> dict[str, str]:
    """Every name that means one of our rewards -> its registry key (``rafs_reward`` -> ``rafs``)."""
    from rewards.adapters.trl_rewards import REWARD_FUNCS

    return {**{k: k for k in REWARD_FUNCS}, **{f.__name__: k for k, f in REWARD_FUNCS.items()}}


def trl_reward_names() -> list[str]:
    """The reward functions and factories ``trl.rewards`` exports (its ``__all__`` without the submodules); [] when
    TRL is not installed."""
    try:
        import trl.rewards as trl_rewards
    except ImportError:
        return []
    return [n for n in getattr(trl_rewards, "__all__", []) if n.endswith("_reward") or n.startswith("get_")]


def import_reward(name: str) -> Callable[..., Any]:
    """``pkg.module.func``, ``pkg.module:func`` or ``pkg.module:obj.attr`` -> the function (a ``get_*`` factory is
    called with its defaults); a one-line ``ValueError`` when it is missing.

    >>> import_reward("rewards.adapters.trl_rewards:get_rafs_reward").__name__
    'rafs_reward'
    """
    if ":" in name:
        module_name, _, attr = name.partition(":")
    else:
        module_name, _, attr = name.rpartition(".")
    if not module_name or not attr:
        raise ValueError(f"reward {name!r}: expected a registry name, pkg.module.func or pkg.module:func "
                         "(e.g. trl.rewards.accuracy_reward)")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a reward module next to the working directory
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"reward {name!r}: cannot import {module_name!r} ({exc}); check the spelling or install "
                         "the package") from None
    func: Any = module
    for part in attr.split("."):
        try:
            func = getattr(func, part)
        except AttributeError:
            owner = func
            public = getattr(owner, "__all__", None) or [n for n in dir(owner) if not n.startswith("_")]
            close = difflib.get_close_matches(part, list(public), n=3)
            hint = f"; did you mean {', '.join(f'{module_name}.{c}' for c in close)}?" if close else ""
            raise ValueError(f"reward {name!r}: {module_name!r} has no reward function {attr!r}{hint}") from None
    if not callable(func) or inspect.ismodule(func):
        raise ValueError(f"reward {name!r} is a {type(func).__name__}, not a callable reward function")
    if attr.rpartition(".")[2].startswith("get_") and not hasattr(func, "__self__"):  # a factory: its defaults
        try:
            func = func()
        except TypeError as exc:
            raise ValueError(f"reward {name!r} is a factory that needs arguments ({exc}); write a module-level "
                             "function that calls it and name that function instead") from None
    return func


def resolve_reward_name(name: str) -> tuple[str | None, Callable[..., Any] | None]:
    """``(registry key, None)`` for one of our rewards (the caller builds it with its settings), ``(None,
    function)`` for any other; a one-line ``ValueError`` for an unknown name (with the closest names)."""
    name = str(name).strip()
    ours = our_reward_names()
    short = name.removeprefix(OURS_PREFIX)
    if short in ours:
        return ours[short], None
    if "." in name or ":" in name:
        return None, import_reward(name)
    trl_names = trl_reward_names()
    if name in trl_names:
        return None, import_reward(f"trl.rewards.{name}")
    close = difflib.get_close_matches(name, sorted(ours) + trl_names, n=2)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    from rewards.adapters.trl_rewards import REWARD_FUNCS

    trl_part = f", a name of trl.rewards ({', '.join(trl_names)})" if trl_names else ""
    raise ValueError(f"unknown reward {name!r}{hint}; use one of {sorted(REWARD_FUNCS)}{trl_part} or an import "
                     "path such as trl.rewards.accuracy_reward or my_module:my_reward")
