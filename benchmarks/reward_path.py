#!/usr/bin/env python
"""Which modules of ``rewards`` one completion passes on its way from ``rafs_reward`` to its float, and how often.

A profile hook (:func:`sys.setprofile`) watches one call of ``rafs_reward`` in this process (``RAFS_NUM_WORKERS=1``,
so no pool worker takes it) after a warm-up call on another problem (imports and lazy loads are paid there): every
Python call whose function lives in a ``rewards`` module, made from code in another ``rewards`` module (or from
outside the package), counts as one *entry* into that module. It prints the number of modules
entered, the entries in all, the lines those modules hold, and the modules by entries — the measure behind ``docs/architecture.md``'s picture of
the path (the architecture issue asks for each module entered once, in at most 8 modules).

    python benchmarks/reward_path.py                       # the duck-eggs GSM8K completion
    python benchmarks/reward_path.py --problem P --completion C --answer A
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PROBLEM = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
           "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
           "egg. How much in dollars does she make every day at the farmers' market?")
COMPLETION = ("Janet sells 16 - 3 - 4 = 9 duck eggs a day.\n"
              "She makes 9 * 2 = $18 every day at the farmer's market.\n#### 18")


WARM_UP = ("Ann has 3 apples and buys 4 bags of 2 apples. How many apples does she have?",
           "4 * 2 = 8 apples.\n3 + 8 = 11 apples.\n#### 11", "11")


def _module(frame) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name == "rewards" or name.startswith("rewards.") else None


def module_entries(problem: str, completion: str, answer: str | None) -> collections.Counter:
    """Entries per ``rewards`` module during one ``rafs_reward`` call (after a warm-up call on another problem)."""
    from rewards import rafs_reward

    columns = {} if answer is None else {"answer": [answer]}
    rafs_reward([WARM_UP[0]], [WARM_UP[1]], answer=[WARM_UP[2]])  # imports and lazy loads, on another text
    entries: collections.Counter = collections.Counter()

    def hook(frame, event, arg):
        if event != "call":
            return
        module = _module(frame)
        if module is None:
            return
        caller = frame.f_back
        while caller is not None and _module(caller) is None:
            caller = caller.f_back
        if caller is None or _module(caller) != module:
            entries[module] += 1

    sys.setprofile(hook)
    try:
        rafs_reward([problem], [completion], **columns)
    finally:
        sys.setprofile(None)
    return entries


def module_lines(module: str) -> int:
    """Lines of a ``rewards`` module's source file (a package's ``__init__.py``)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return 0
    with open(spec.origin, encoding="utf-8") as source:
        return sum(1 for _ in source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problem", default=PROBLEM)
    parser.add_argument("--completion", default=COMPLETION)
    parser.add_argument("--answer", default="18", help="the gold column's value ('' for none)")
    args = parser.parse_args(argv)
    os.environ["RAFS_NUM_WORKERS"] = "1"
    entries = module_entries(args.problem, args.completion, args.answer or None)
    lines = sum(module_lines(m) for m in entries)
    print(f"{len(entries)} modules entered, {sum(entries.values())} entries in all; the modules hold {lines:,} lines")
    for module, count in entries.most_common():
        print(f"{count:6d}  {module}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
