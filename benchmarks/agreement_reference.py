r"""Counterfactual agreement on real model completions: ProcessBench's right-answer solutions against the gold.

ProcessBench holds one model solution per problem, so a group of several models' solutions of one problem does not
exist there; what exists is the dataset's own worked solution for the problem (GSM8K test for the GSM8K split,
MATH-500 for the MATH problems it shares). With a worked solution as the gold, counterfactual agreement
(:mod:`rewards.scoring.agreement`, ``RAFSConfig(counterfactual_agreement=True)``) compares each completion's
derivation function with the reference solution's at consistent edits of the problem's quantities: a valid solution
that computes the gold's function should gain nothing and lose nothing, a flawed one that computes another should lose
a little.

Per split, every right-answer row with a ``\boxed`` answer (:func:`benchmarks.real_completions.load_split`) whose
problem has a worked solution is scored by ``rafs_reward`` and ``faithful_accuracy_reward`` as GRPO calls them, one
completion per call, with the worked solution as the gold column::

    fn(prompts=[problem], completions=[completion], answer=[worked solution])

once with the setting off and once on. Reported per split and reward: rows (valid / flawed), AUROC valid vs flawed
(``roc_auc_score``, valid positive) off and on, how many valid and flawed completions the setting lowered or raised,
and how many were compared with the reference (and found isolated). Deterministic. Run from the project root::

    python benchmarks/agreement_reference.py [--splits gsm8k math] [--limit N] [--json OUT.json [--force]]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere: the repository's rewards, not an installed copy
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))

DATA = ROOT.parent / "shared" / "data"
REWARDS = ("rafs", "faithful_accuracy")


def references(split: str) -> dict[str, str]:
    """``{problem text: worked solution}``: GSM8K test for the GSM8K split, MATH-500 for the MATH split."""
    out: dict[str, str] = {}
    if split == "gsm8k":
        for line in (DATA / "gsm8k" / "test.jsonl").read_text().splitlines():
            row = json.loads(line)
            out[row["question"].strip()] = row["answer"]
    else:
        for line in (DATA / "math500" / "test.jsonl").read_text().splitlines():
            row = json.loads(line)
            out[row["problem"].strip()] = row["solution"]
    return out


def measure(split: str, limit: int | None, progress: bool) -> dict[str, Any]:
    from sklearn.metrics import roc_auc_score
    from tqdm import tqdm

    from real_completions import load_split
    from rewards import get_faithful_accuracy_reward, get_rafs_reward

    rows, counts = load_split(split, limit)
    refs = references(split)
    rows = [dict(r, reference=refs[r["problem"].strip()]) for r in rows if r["problem"].strip() in refs]
    funcs = {}
    for setting in ("off", "on"):
        config = {"counterfactual_agreement": setting == "on"}
        funcs[setting] = {"rafs": get_rafs_reward(config), "faithful_accuracy": get_faithful_accuracy_reward(
            config=config)}
    values = {s: {k: [] for k in REWARDS} for s in funcs}
    compared, isolated = [], []
    for row in tqdm(rows, desc=f"agreement ({split})", unit="completion", disable=not progress):
        p, c, ref = row["problem"], row["completion"], row["reference"]
        for setting, fns in funcs.items():
            for k, fn in fns.items():
                v = fn(prompts=[p], completions=[c], answer=[ref])[0]
                values[setting][k].append(0.0 if v is None else float(v))
        result = funcs["on"]["rafs"].score([p], [c], [ref])[0]  # the verdict the reward paid (its cache)
        compared.append(result.agreement is not None)
        isolated.append(result.agreement is not None and result.agreement < 1.0)
    valid = [r["valid"] for r in rows]
    out: dict[str, Any] = {"split": split, "counts": counts, "with_reference": len(rows),
                           "valid": sum(valid), "flawed": len(valid) - sum(valid),
                           "compared": {"valid": sum(c for c, v in zip(compared, valid) if v),
                                        "flawed": sum(c for c, v in zip(compared, valid) if not v)},
                           "isolated": {"valid": sum(i for i, v in zip(isolated, valid) if v),
                                        "flawed": sum(i for i, v in zip(isolated, valid) if not v)},
                           "rewards": {}}
    both = 0 < sum(valid) < len(valid)
    for k in REWARDS:
        off, on = values["off"][k], values["on"][k]
        out["rewards"][k] = {
            "auroc_off": round(roc_auc_score(valid, off), 4) if both else None,
            "auroc_on": round(roc_auc_score(valid, on), 4) if both else None,
            "valid_lowered": sum(b < a for a, b, v in zip(off, on, valid) if v),
            "flawed_lowered": sum(b < a for a, b, v in zip(off, on, valid) if not v),
            "raised": sum(b > a for a, b in zip(off, on)),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splits", nargs="+", default=["gsm8k", "math"], choices=["gsm8k", "math"])
    ap.add_argument("--limit", type=int, default=None, help="the first N right-answer rows of each split")
    ap.add_argument("--json", default=None, help="write the report here (not overwritten without --force)")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        print(f"agreement_reference: error: --limit {args.limit}: need at least 1", file=sys.stderr)
        return 2
    if args.json and Path(args.json).exists() and not args.force:
        print(f"agreement_reference: error: {args.json} exists; pass --force to overwrite it", file=sys.stderr)
        return 2
    report = [measure(s, args.limit, not args.no_progress) for s in args.splits]
    for r in report:
        print(f"{r['split']}: {r['with_reference']} right-answer completions with a worked reference "
              f"({r['valid']} valid, {r['flawed']} flawed); compared with the reference: valid {r['compared']['valid']}, "
              f"flawed {r['compared']['flawed']}; isolated: valid {r['isolated']['valid']}, "
              f"flawed {r['isolated']['flawed']}")
        for k, x in r["rewards"].items():
            print(f"  {k}: AUROC valid vs flawed {x['auroc_off']} -> {x['auroc_on']}; lowered: valid "
                  f"{x['valid_lowered']}, flawed {x['flawed_lowered']}; raised {x['raised']}")
    if args.json:
        from rewards.adapters.files import atomic_write

        atomic_write(args.json, json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
