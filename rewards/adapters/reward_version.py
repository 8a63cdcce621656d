"""The reward version: which reward a training run was trained on, as one short string.

``reward_version(name, settings)`` is ``"<name>@<rafs version>+<12 hex digits>"``, the digits a SHA-256 over the
source of the scorer (every ``.py`` file under ``rewards/``: the policy, the evidence it reads, the checks and
parsers) and the reward's settings (its :class:`~rewards.scoring.config.RAFSConfig` and its own parameters, as
canonical JSON). Two runs that log the same version were paid by the same code with the same configuration; any
change to a rule, a threshold or a credit gives a new one. Every reward function logs it beside its values
(``<name>/reward_version`` in TRL's completion table, and once in the log), and the reports of ``rafs score``,
``rafs eval`` and ``rafs audit`` carry it.

>>> v = reward_version("rafs_reward", {"weights": {"P_R": 0.4}})
>>> v.startswith("rafs_reward@") and len(v.split("+")[1]) == 12
True
>>> v == reward_version("rafs_reward", {"weights": {"P_R": 0.4}}) != reward_version("rafs_reward", {})
True
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping

__all__ = ["reward_version", "source_digest", "package_version"]

_REWARDS = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 over the scorer's source files (``rewards/**/*.py``, by relative path, in sorted order)."""
    h = hashlib.sha256()
    for path in sorted(_REWARDS.rglob("*.py")):
        h.update(path.relative_to(_REWARDS).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def package_version() -> str:
    """The installed ``rafs`` distribution's version (``"0+unknown"`` when it is not installed)."""
    try:
        return metadata.version("rafs")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def reward_version(name: str, settings: Mapping[str, Any] | None = None) -> str:
    """``"<name>@<version>+<digest>"``: the scorer's source and ``settings`` (JSON-serialisable; other values by
    ``str``) hashed together."""
    blob = json.dumps(dict(settings or {}), sort_keys=True, default=str)
    digest = hashlib.sha256(f"{source_digest()}\0{name}\0{blob}".encode()).hexdigest()[:12]
    return f"{name}@{package_version()}+{digest}"
