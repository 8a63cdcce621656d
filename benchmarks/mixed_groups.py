r"""Mixed GRPO groups: does every faithful completion rank above every constructed derivation of the answer?

Per problem, GRPO groups of 8 that mix *faithful* completions — the gold solution and deterministic rewordings of it
(independent lines reordered, the prose around the equations rephrased, ``####`` written ``The answer is``) — with
*constructed* ones from the audit's construction families (:data:`rewards.audit.families.CONSTRUCTION_FAMILIES`:
a grounded one ``16 + 16 * 100 / 1600 * 2``, disguised zeros, ones times digits, their ``<think>`` /
``reasoning_content`` / ``aligned`` / "Check:" forms, thinking made only of questions). Each reward is called as
TRL's ``GRPOTrainer`` calls it, the whole group in one call::

    fn(prompts=[problem] * 8, completions=[...8 completions...], answer=[gold] * 8)

(a group holding a ``reasoning_content`` completion is passed as chat messages, every member). ``None`` counts as
0.0. Two layouts:

* ``4+4``: four faithful completions and four constructions of four different families;
* ``1+7``: the gold alone and seven completions of one construction family (seven seeds), per family — the group
  where agreement among the correct completions cannot help the faithful one.

Reported per source, layout and reward: the share of problems on which *every* faithful completion scores strictly
above *every* constructed one (``min faithful > max constructed``), over GSM8K problems and over the MATH-500
problems whose gold is verified (``faithful_accuracy_reward`` pays the gold alone 1.0; the others are counted and
left out). The bar this yardstick serves: >= 95% of GSM8K problems in both layouts. ``rewording_below_gold`` counts
the problems where a rewording of the gold earned less than the gold itself (the rewordings are faithful: a drop
there is the reward's, not the construction's).

Run from the project root (deterministic; a progress bar on stderr)::

    python benchmarks/mixed_groups.py [--n 200] [--n-math 100] [--seed 0] [--json OUT.json] [--markdown OUT.md]
    python benchmarks/mixed_groups.py --config '{"counterfactual_agreement": true}'   # RAFSConfig fields, both rewards
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere: the repository's rewards, not an installed copy
    sys.path.insert(0, str(ROOT))

from rewards.audit.battery import AuditProblem, load_problems  # noqa: E402
from rewards.audit.families import (CONSTRUCTION_FAMILIES, FAMILIES, MessageCompletion, annotations,  # noqa: E402
                                    faithful_completion, is_gsm8k)

GROUP = 8
LAYOUTS = ("4+4", "1+7")
MIXED_ORDER = ("constructed_one", "disguised_zero", "ones_times_digits", "constructed_one_checks",
               "constructed_one_aligned", "constructed_one_think", "constructed_one_reasoning",
               "asking_thinking_summary", "asking_thinking")
"""The construction families a ``4+4`` group draws from, the first four that apply to the problem."""

_ANSWER_LINE = re.compile(r"^####\s*(.+?)\s*$", re.M)
_PHRASES = ((r"\bin total\b", "altogether"), (r"\bSo\b", "Thus"), (r"\bso\b", "thus"), (r"\bTherefore\b", "Hence"),
            (r"\btherefore\b", "hence"),
            (r"\btotal\b", "sum"), (r"\bThere are\b", "We have"), (r"\bthere are\b", "we have"),
            (r"\beach\b", "every"), (r"\bThen\b", "Next"), (r"\bthen\b", "next"),
            (r"\bneeds\b", "requires"), (r"\bbuys\b", "purchases"), (r"\bgets\b", "receives"))
_CONNECTIVES = ("First, ", "Next, ", "Then, ", "After that, ", "Now, ", "Also, ")
_OPENERS = frozenset("Thus Hence Next So Then Therefore First Finally Now Also".split())
_LOWER = frozenset("The A An She He They It We There This That His Her Their In On If Each So Thus Since".split())


# ------------------------------------------------------------------------------------------------ rewordings
def answer_sentence(text: str) -> str:
    """GSM8K's ``#### 18`` written ``The answer is 18.``"""
    return _ANSWER_LINE.sub(lambda m: f"The answer is {m.group(1)}.", text)


def rephrase(text: str) -> str:
    """The prose around the equations rephrased: a connective before each line but the last (the answer line),
    common words swapped for synonyms; numbers, operators and LaTeX untouched."""
    lines = text.split("\n")
    out = []
    body = [i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("####")]
    for k, ln in enumerate(lines):
        if not ln.strip() or ln.lstrip().startswith("####") or "$" in ln or "\\" in ln:
            out.append(ln)
            continue
        for pat, rep in _PHRASES:
            ln = re.sub(pat, rep, ln)
        first = ln.split(" ", 1)[0].rstrip(",")
        if body and k != body[-1] and ln[:1].isalpha() and first not in _OPENERS:
            if first in _LOWER:  # "First, the average ..." (a name keeps its capital)
                ln = first.lower() + ln[len(first):]
            ln = _CONNECTIVES[body.index(k) % len(_CONNECTIVES)] + ln
        out.append(ln)
    return "\n".join(out)


def reorder(solution: str) -> str | None:
    """The faithful completion of a GSM8K gold with the first two adjacent lines swapped whose later line uses no
    value the earlier one computes (independent steps; the answer's line stays last); ``None`` when every line
    depends on the one before it."""
    if not is_gsm8k(solution):
        return None
    lines, anns = annotations(solution)
    if len(lines) < 3:
        return None
    produced: dict[int, set] = {}
    used: dict[int, set] = {}
    for a in anns:
        produced.setdefault(a.line, set()).add(a.value)
        used.setdefault(a.line, set()).update(re.findall(r"\d+(?:\.\d+)?", a.expr))
    for i in range(len(lines) - 2):  # never move the last line (it computes the answer)
        j = i + 1
        made = {str(v) if v.denominator != 1 else str(v.numerator) for v in produced.get(i, set())}
        if made & used.get(j, set()) or i not in produced or j not in produced:
            continue
        swapped = lines[:i] + [lines[j], lines[i]] + lines[j + 1:]
        answer = _ANSWER_LINE.search(solution)
        text = "\n".join(faithful_completion(ln) for ln in swapped)
        return text + ("\n" + answer.group(0) if answer else "")
    return None


def faithful_set(p: AuditProblem, k: int) -> list[str]:
    """The gold and its rewordings, distinct, in a fixed order; cycled when fewer than ``k`` exist."""
    gold = faithful_completion(p.solution)
    moved = reorder(p.solution)
    candidates = [gold, rephrase(gold), answer_sentence(gold), moved,
                  answer_sentence(rephrase(moved)) if moved else None, answer_sentence(rephrase(gold))]
    out = list(dict.fromkeys(c for c in candidates if c))
    return [out[i % len(out)] for i in range(k)]


# ------------------------------------------------------------------------------------------------ groups
def constructed(p: AuditProblem, family: str, seed: int, draw: int = 0) -> str | None:
    return FAMILIES[family].generate(p.problem, p.solution, p.answer, random.Random(f"{seed}:{p.id}:{family}:{draw}"))


def groups(p: AuditProblem, seed: int) -> dict[str, tuple[list, list]]:
    """``{layout name: (faithful completions, constructed completions)}`` for one problem: ``4+4`` and one ``1+7``
    per construction family that applies."""
    out: dict[str, tuple[list, list]] = {}
    mixed = [t for t in (constructed(p, f, seed) for f in MIXED_ORDER) if t is not None][:4]
    if len(mixed) == 4:
        out["4+4"] = (faithful_set(p, 4), mixed)
    gold = faithful_set(p, 1)
    for family in CONSTRUCTION_FAMILIES:
        seven = [constructed(p, family, seed, d) for d in range(GROUP - 1)]
        if all(t is not None for t in seven):
            out[f"1+7 {family}"] = (gold, seven)
    return out


def call_group(fn: Callable, problem: str, completions: Sequence, gold: str) -> list[float]:
    """One TRL call for the whole group; chat messages for every member when one holds ``reasoning_content``."""
    n = len(completions)
    if any(isinstance(c, MessageCompletion) for c in completions):
        prompts: list[Any] = [[{"role": "user", "content": problem}]] * n
        comps: list[Any] = [c.message() if isinstance(c, MessageCompletion) else
                            [{"role": "assistant", "content": str(c)}] for c in completions]
    else:
        prompts, comps = [problem] * n, [str(c) for c in completions]
    values = fn(prompts=prompts, completions=comps, answer=[gold] * n)
    return [0.0 if v is None else float(v) for v in values]


def measure(problems: Sequence[AuditProblem], rewards: dict[str, Callable], seed: int, progress: bool,
            desc: str) -> dict:
    from tqdm.auto import tqdm

    tallies: dict[str, dict[str, dict[str, Any]]] = {}
    skipped_unverified = 0
    for p in tqdm(problems, desc=desc, unit="problem", disable=not progress):
        gold_text = faithful_completion(p.solution)
        verified = all(call_group(fn, p.problem, [gold_text], p.answer)[0] == 1.0
                       for name, fn in rewards.items() if name == "faithful_accuracy")
        if p.source == "math500" and not verified:
            skipped_unverified += 1
            continue
        for layout, (faithful, built) in groups(p, seed).items():
            for name, fn in rewards.items():
                scores = call_group(fn, p.problem, list(faithful) + list(built), p.answer)
                f, c = scores[:len(faithful)], scores[len(faithful):]
                t = tallies.setdefault(layout, {}).setdefault(name, {"n": 0, "first": 0, "tie": 0,
                                                                     "rewording_below_gold": 0, "examples": []})
                t["n"] += 1
                t["rewording_below_gold"] += min(f) < f[0]  # a rewording of the gold paid less than the gold
                if min(f) > max(c):
                    t["first"] += 1
                else:
                    t["tie"] += min(f) == max(c)
                    if len(t["examples"]) < 2:
                        worst = built[c.index(max(c))]
                        t["examples"].append({"problem_id": p.id, "faithful_min": round(min(f), 4),
                                              "constructed_max": round(max(c), 4), "completion": str(worst)[:300]})
    for layout in tallies.values():
        for t in layout.values():
            t["share"] = round(t["first"] / t["n"], 4) if t["n"] else None
    return {"n_problems": len(problems), "unverified_skipped": skipped_unverified, "layouts": tallies}


def markdown(report: dict) -> str:
    rewards = report["settings"]["rewards"]
    lines = []
    for source, res in report["sources"].items():
        lines.append(f"**{source}** ({res['n_problems']} problems"
                     + (f", {res['unverified_skipped']} with an unverified gold left out" if res["unverified_skipped"]
                        else "") + "): share of problems where every faithful completion ranks strictly above every "
                     "constructed one (n = problems the layout applies to).\n")
        lines.append("| layout | n | " + " | ".join(rewards) + " |")
        lines.append("|---|---|" + "---|" * len(rewards))
        for layout in sorted(res["layouts"], key=lambda x: (x != "4+4", x)):
            row = res["layouts"][layout]
            n = next(iter(row.values()))["n"]
            cells = ["—" if row[r]["share"] is None else f"{100 * row[r]['share']:.1f}%" for r in rewards]
            lines.append(f"| `{layout}` | {n} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200, help="GSM8K train problems (default 200)")
    ap.add_argument("--n-math", type=int, default=100, help="MATH-500 problems before the verified-gold filter "
                                                             "(default 100; 0 for none)")
    ap.add_argument("--seed", type=int, default=0, help="problem sample and generator seed (default 0)")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--markdown", default=None, help="write the tables here")
    ap.add_argument("--force", action="store_true", help="overwrite --json / --markdown if they exist")
    ap.add_argument("--config", default=None,
                    help="a JSON mapping of RAFSConfig fields both rewards are built with (default: the defaults)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    config = None
    if args.config is not None:
        try:
            config = json.loads(args.config)
            if not isinstance(config, dict):
                raise ValueError("not a mapping")
            from rewards import RAFSConfig

            RAFSConfig.from_dict(config)
        except (ValueError, TypeError) as exc:
            print(f"mixed_groups: error: --config {args.config!r}: {exc}; pass a JSON mapping of RAFSConfig fields, "
                  "e.g. '{\"counterfactual_agreement\": true}'", file=sys.stderr)
            return 2
    if args.n < 1 or args.n_math < 0:
        print(f"mixed_groups: error: --n {args.n} / --n-math {args.n_math}: need --n >= 1 and --n-math >= 0",
              file=sys.stderr)
        return 2
    for out in (args.json, args.markdown):
        if out and Path(out).exists() and not args.force:
            print(f"mixed_groups: error: {out} exists; pass --force to overwrite it", file=sys.stderr)
            return 2
    from rewards import faithful_accuracy_reward, get_faithful_accuracy_reward, get_rafs_reward, rafs_reward
    from rewards.adapters.files import atomic_write

    rewards = {"rafs": rafs_reward, "faithful_accuracy": faithful_accuracy_reward} if config is None else \
        {"rafs": get_rafs_reward(config), "faithful_accuracy": get_faithful_accuracy_reward(config=config)}
    t0 = time.perf_counter()
    sources = {"gsm8k": load_problems(args.n, seed=args.seed, sources=("gsm8k",))}
    if args.n_math:
        sources["math500"] = load_problems(args.n_math, seed=args.seed, sources=("math500",))
    report = {"settings": {"n": args.n, "n_math": args.n_math, "seed": args.seed, "group": GROUP, "config": config,
                           "rewards": list(rewards), "mixed_order": list(MIXED_ORDER)},
              "sources": {name: measure(probs, rewards, args.seed, not args.no_progress, f"mixed groups ({name})")
                          for name, probs in sources.items()}}
    report["seconds"] = round(time.perf_counter() - t0, 1)
    table = markdown(report)
    print(table)
    if args.json:
        atomic_write(args.json, json.dumps(report, indent=1) + "\n")
    if args.markdown:
        atomic_write(args.markdown, table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
