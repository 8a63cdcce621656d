"""What rafs can and cannot check, measured: what ``faithful_accuracy_reward`` and ``rafs_reward`` pay on each kind
of task (docs/capabilities.md quotes this script's output).

For each kind, three completions of the same problem: the faithful worked solution, the same solution with one
wrong step that still ends in the right answer (a *lucky* trace; the first ``a op b = c`` of the solution gets
``c + 1``), and the bare answer. Real data where the project has it (GSM8K test, MATH-500 by subject, from
``../shared/data`` or ``$RAFS_DATA_DIR``); proofs, code and multiple choice are written out below, since no data set
of them ships with the project. Each completion is scored alone, as a GRPO group of one.

    python scripts/capabilities.py [--n 100] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rewards import get_faithful_accuracy_reward, get_rafs_reward, score_trace  # noqa: E402
from rewards.audit.families import faithful_completion  # noqa: E402

DATA = Path(os.environ.get("RAFS_DATA_DIR") or ROOT.parent / "shared" / "data")
_EQ = re.compile(r"(\d+(?:\.\d+)?\s*[-+*/×]\s*\d+(?:\.\d+)?\s*=\s*)(\d+)(?!\.\d)")

# -- tasks no data set of the project covers: written out here, each with a faithful and a lucky completion -------
PROOFS = [
    ("Prove that the sum of two even integers is even.",
     "Let the integers be 2a and 2b for integers a and b.\nTheir sum is 2a + 2b = 2(a + b).\n"
     "Since a + b is an integer, the sum is even. QED.",
     "Let the integers be 2a and 2b for integers a and b.\nTheir sum is 2a + 2b = 2(a + 2b).\n"
     "Since a + 2b is an integer, the sum is even. QED."),
    ("Prove that n^2 + n is even for every integer n.",
     "We have n^2 + n = n(n + 1).\nOne of n and n + 1 is even, so their product is even.\nTherefore n^2 + n is even.",
     "We have n^2 + n = n(n + 2).\nOne of n and n + 1 is even, so their product is even.\nTherefore n^2 + n is even."),
    ("Prove that 1 + 2 + ... + n = n(n + 1)/2 for every positive integer n.",
     "For n = 1 both sides are 1.\nAssume 1 + ... + k = k(k + 1)/2.\nThen 1 + ... + (k + 1) = k(k + 1)/2 + (k + 1) "
     "= (k + 1)(k + 2)/2.\nBy induction the formula holds for every n.",
     "For n = 1 both sides are 1.\nAssume 1 + ... + k = k(k + 1)/2.\nThen 1 + ... + (k + 1) = k(k + 1)/2 + (k + 1) "
     "= (k + 1)(k + 3)/2.\nBy induction the formula holds for every n."),
]
CODE = [
    ("Write a Python function that returns the sum of the squares of a list of integers. What does it return for "
     "[1, 2, 3]?",
     "```python\ndef sum_squares(xs):\n    return sum(x * x for x in xs)\n```\nFor [1, 2, 3]: 1 + 4 + 9 = 14.\n#### 14",
     "```python\ndef sum_squares(xs):\n    return sum(x * x for x in xs)\n```\nFor [1, 2, 3]: 1 + 4 + 8 = 14.\n#### 14",
     "14"),
    ("Write a Python function that counts the vowels in a string. What does it return for 'banana'?",
     "```python\ndef vowels(s):\n    return sum(c in 'aeiou' for c in s)\n```\n'banana' has the vowels a, a, a: "
     "1 + 1 + 1 = 3.\n#### 3",
     "```python\ndef vowels(s):\n    return sum(c in 'aeiou' for c in s)\n```\n'banana' has the vowels a, a, a: "
     "1 + 1 + 2 = 3.\n#### 3",
     "3"),
    ("Write a Python function that returns the n-th Fibonacci number (F(1) = F(2) = 1). What is F(7)?",
     "```python\ndef fib(n):\n    a, b = 1, 1\n    for _ in range(n - 2):\n        a, b = b, a + b\n    return b\n```\n"
     "F(3) = 1 + 1 = 2, F(4) = 1 + 2 = 3, F(5) = 2 + 3 = 5, F(6) = 3 + 5 = 8, F(7) = 5 + 8 = 13.\n#### 13",
     "```python\ndef fib(n):\n    a, b = 1, 1\n    for _ in range(n - 2):\n        a, b = b, a + b\n    return b\n```\n"
     "F(3) = 1 + 1 = 2, F(4) = 1 + 2 = 3, F(5) = 2 + 3 = 6, F(6) = 3 + 5 = 8, F(7) = 5 + 8 = 13.\n#### 13",
     "13"),
]
CHOICE = [
    ("A shop sells pens at $3 each. Tom buys 4 pens and pays with a $20 bill. How much change does he get?\n"
     "(A) $6  (B) $8  (C) $12  (D) $17",
     "The pens cost 4 * 3 = 12 dollars.\nThe change is 20 - 12 = 8 dollars, which is option (B).\n#### B",
     "The pens cost 4 * 3 = 13 dollars.\nThe change is 20 - 12 = 8 dollars, which is option (B).\n#### B",
     "B"),
    ("Which gas do plants take in for photosynthesis?\n(A) Oxygen  (B) Nitrogen  (C) Carbon dioxide  (D) Helium",
     "Plants take in carbon dioxide and water and, using light, make glucose and release oxygen.\n"
     "So the answer is (C).\n#### C",
     "Plants take in oxygen and water and, using light, make glucose and release carbon dioxide.\n"
     "So the answer is (C).\n#### C",
     "C"),
    ("What is 15% of 80?\n(A) 8  (B) 10  (C) 12  (D) 15",
     "15% of 80 is 0.15 * 80 = 12, option (C).\n#### C",
     "15% of 80 is 0.15 * 80 = 11, option (C).\n#### C",
     "C"),
]


def _lucky(solution: str) -> str | None:
    """The solution with its first ``a op b = c`` (an integer c) written ``c + 1``; None when it has none."""
    m = _EQ.search(solution)
    if m is None:
        return None
    return solution[:m.start(2)] + str(int(m.group(2)) + 1) + solution[m.end(2):]


def _bare(solution: str, gold: str) -> str:
    return f"#### {gold}" if "####" in solution else f"The answer is $\\boxed{{{gold}}}$."


class Pay:
    """What each reward pays one completion, scored alone."""

    def __init__(self) -> None:
        self.fa = get_faithful_accuracy_reward(cache=False)
        self.rafs = get_rafs_reward(cache=False)

    def __call__(self, problem: str, completion: str, gold: str | None) -> tuple[float, float, bool]:
        """(faithful accuracy, rafs reward, whether score_trace flags a faulty step: a suspect step or a silent
        failure)."""
        kwargs = {"answer": [gold]} if gold is not None else {}
        fa = self.fa(prompts=[problem], completions=[completion], **kwargs)[0] if gold is not None else None
        rafs = self.rafs(prompts=[problem], completions=[completion], **kwargs)[0]
        result = score_trace(problem, completion, gold=gold)
        flagged = result.suspect_step is not None or result.failure_type == "silent_failure"
        return fa, rafs, flagged


def _summary(rows: list[dict]) -> dict:
    """Means and shares over ``rows`` ({kind: (fa, rafs)} for faithful / lucky / bare)."""
    out: dict = {"n": len(rows)}
    for kind in ("faithful", "lucky", "bare"):
        have = [r[kind] for r in rows if r.get(kind) is not None]
        if not have:
            continue
        fa = [x[0] for x in have if x[0] is not None]
        rafs = [0.0 if x[1] is None else x[1] for x in have]
        out[kind] = {"n": len(have),
                     "fa_mean": round(statistics.fmean(fa), 3) if fa else None,
                     "fa_full": round(sum(v >= 1.0 for v in fa) / len(fa), 3) if fa else None,
                     "rafs_mean": round(statistics.fmean(rafs), 3),
                     "rafs_positive": round(sum(v > 0 for v in rafs) / len(rafs), 3),
                     "flagged": round(sum(x[2] for x in have) / len(have), 3)}
    return out


def measure_dataset(pay: Pay, items: list[tuple[str, str, str]]) -> dict:
    rows = []
    for problem, solution, gold in items:
        faithful = faithful_completion(solution)
        row = {"faithful": pay(problem, faithful, gold), "bare": pay(problem, _bare(faithful, gold), gold)}
        lucky = _lucky(faithful)
        if lucky is not None:
            row["lucky"] = pay(problem, lucky, gold)
        rows.append(row)
    return _summary(rows)


def measure_written(pay: Pay, items: list[tuple], with_gold: bool) -> dict:
    rows = []
    for item in items:
        problem, faithful, lucky = item[:3]
        gold = item[3] if with_gold else None
        row = {"faithful": pay(problem, faithful, gold), "lucky": pay(problem, lucky, gold)}
        if gold is not None:
            row["bare"] = pay(problem, f"#### {gold}", gold)
        rows.append(row)
    return _summary(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100, help="GSM8K test problems (and MATH-500 problems per subject, "
                                                          "at most)")
    parser.add_argument("--json", help="write the measurements here")
    args = parser.parse_args(argv)
    pay = Pay()
    report: dict = {}
    gsm = [json.loads(x) for x in (DATA / "gsm8k" / "test.jsonl").read_text().splitlines()[:args.n]]
    report["arithmetic word problems (GSM8K test)"] = measure_dataset(
        pay, [(r["question"], r["answer"], r["answer"].split("####")[-1].strip()) for r in gsm])
    by_subject: dict[str, list] = defaultdict(list)
    for line in (DATA / "math500" / "test.jsonl").read_text().splitlines():
        r = json.loads(line)
        if len(by_subject[r["subject"]]) < args.n:
            by_subject[r["subject"]].append((r["problem"], r["solution"], r["answer"]))
    for subject in sorted(by_subject):
        report[f"competition math: {subject} (MATH-500)"] = measure_dataset(pay, by_subject[subject])
    report["proofs (written here, no gold answer)"] = measure_written(pay, PROOFS, with_gold=False)
    report["code with a computed answer (written here)"] = measure_written(pay, CODE, with_gold=True)
    report["multiple choice (written here)"] = measure_written(pay, CHOICE, with_gold=True)

    def cell(part: dict | None, key: str) -> str:
        if not part or part.get(key) is None:
            return "—"
        return f"{part[key]:.2f}"

    print("| task | n | faithful: fa mean / fa = 1 / rafs mean / flagged | lucky: fa mean / rafs mean / flagged "
          "| bare answer: fa / rafs |")
    print("|---|---|---|---|---|")
    for task, s in report.items():
        f, l, b = s.get("faithful"), s.get("lucky"), s.get("bare")
        partial = f" ({l['n']})" if l and l["n"] != s["n"] else ""
        print(f"| {task} | {s['n']} | {cell(f, 'fa_mean')} / {cell(f, 'fa_full')} / {cell(f, 'rafs_mean')} / "
              f"{cell(f, 'flagged')} | {cell(l, 'fa_mean')} / {cell(l, 'rafs_mean')} / {cell(l, 'flagged')}{partial} | "
              f"{cell(b, 'fa_mean')} / {cell(b, 'rafs_mean')} |")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
