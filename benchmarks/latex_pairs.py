r"""How the LaTeX algebra check (:mod:`rewards.checks.latex_algebra`) reads MATH-500 gold: consecutive pairs and
corrupted pairs.

Every gold solution's math segments (``$...$``, ``$$...$$``, ``\[...\]``, ``\(...\)``) are read in order:

1. **Chain links.** Each segment with a top-level ``=`` is a chain ``a = b = c``; every consecutive pair of sides
   ``(a, b)`` is checked with :func:`~rewards.checks.latex_algebra.expressions_equal`: verified / refuted /
   undecided. Gold is right, so *refuted* here is a false refutation (or a side that is a condition, which the
   check refuses to refute when it has a letter).
2. **Consecutive equations.** Two consecutive segments that are both single equations with a letter:
   :func:`~rewards.checks.latex_algebra.equation_follows` of the second to the first (verified / undecided).
3. **Corruptions.** Every verified link and every verified follow again with one number of the second side changed
   (``n -> n + 1``, each of its first three numbers in turn): how often the corrupted pair is still *verified* (the
   false verification rate; must be ~0: a changed number can still give a true statement, e.g. ``x^0``, which is
   printed for reading).

    nice python benchmarks/latex_pairs.py [--limit N] [--json OUT.json] [--examples K]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: the repository's rewards, not an installed copy
    sys.path.insert(0, str(ROOT))

from rewards.checks.latex_algebra import equation_follows, expressions_equal, parse, split_top_level

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "math500" / "test.jsonl"
SEGMENT = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$(.+?)\$", re.S)
NUMBER = re.compile(r"(?<![\w.^_])\d+(?![\w.])")


def segments(text: str) -> list[str]:
    """The math segments of ``text`` in order, each split at ``\\\\`` lines (``align`` rows), ``&`` removed."""
    out = []
    for m in SEGMENT.finditer(text):
        body = next(g for g in m.groups() if g is not None)
        if "matrix" in body or "array" in body:  # rows of a matrix are no lines of a derivation
            continue
        for row in re.split(r"\\\\", body):
            row = re.sub(r"\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}", " ", row).replace("&", " ").strip()
            if row:
                out.append(row)
    return out


def corruptions(side: str) -> list[str]:
    """``side`` with each of its first three integers in turn changed ``n -> n + 1``."""
    out = []
    for m in list(NUMBER.finditer(side))[:3]:
        out.append(side[:m.start()] + str(int(m.group()) + 1) + side[m.end():])
    return out


def measure(limit: int | None, examples: int) -> dict:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    if limit:
        rows = rows[:limit]
    links, follows = Counter(), Counter()
    bad_links, bad_follows = Counter(), Counter()
    shown: list[str] = []
    started = time.perf_counter()
    calls = 0
    for row in rows:
        previous_equation = None
        for seg in segments(row["solution"]):
            sides = [s for s in split_top_level(seg) if s.strip()]
            if len(sides) < 2:
                previous_equation = None
                continue
            for a, b in zip(sides, sides[1:]):
                verdict = expressions_equal(a, b)
                calls += 1
                links[verdict.status] += 1
                if verdict.status == "refuted" and len(shown) < examples:
                    shown.append(f"refuted link [{row['unique_id']}]: {a.strip()} = {b.strip()} ({verdict.reason})")
                if verdict.verified:
                    for changed in corruptions(b):
                        v = expressions_equal(a, changed)
                        calls += 1
                        bad_links[v.status] += 1
                        if v.verified and len(shown) < examples:
                            shown.append(f"corrupted link verified [{row['unique_id']}]: {a.strip()} = {changed.strip()}")
            if len(sides) == 2 and parse(seg) is not None and parse(seg).free_symbols:
                if previous_equation is not None:
                    verdict = equation_follows(previous_equation, seg)
                    calls += 1
                    follows[verdict.status] += 1
                    if verdict.verified:
                        for changed in corruptions(sides[1]):
                            v = equation_follows(previous_equation, sides[0] + "=" + changed)
                            calls += 1
                            bad_follows[v.status] += 1
                            if v.verified and len(shown) < examples:
                                shown.append(f"corrupted follow verified [{row['unique_id']}]: {previous_equation} "
                                             f"-> {sides[0]} = {changed}")
                previous_equation = seg
            else:
                previous_equation = None
    seconds = time.perf_counter() - started
    return {"solutions": len(rows), "chain_links": dict(links), "corrupted_links": dict(bad_links),
            "consecutive_equations": dict(follows), "corrupted_equations": dict(bad_follows),
            "checks": calls, "ms_per_check": round(1000 * seconds / max(1, calls), 2), "examples": shown}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the report here (not overwritten)")
    ap.add_argument("--examples", type=int, default=20)
    args = ap.parse_args(argv)
    if args.json and Path(args.json).exists():
        print(f"--json {args.json}: exists; not overwritten (choose another path)", file=sys.stderr)
        return 2
    report = measure(args.limit, args.examples)
    text = json.dumps(report, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
