#!/usr/bin/env python
"""A behaviour snapshot of the scorer: every verdict on a fixed set of completions, to prove a refactor changes
nothing (or to list exactly what a rule change moved).

The set: the audit battery (``--n`` problems, 2/3 GSM8K train and 1/3 MATH-500, seeded; the faithful completion,
the visible slip and every family's gamed completion), ProcessBench's GSM8K and MATH solutions (all 1,400 rows),
and the GSM8K test and MATH-500 gold solutions (the first ``--gold`` of each). Each completion is scored with
:func:`rewards.score_trace` in reward mode (``missing_evidence="no_support"``) and in evaluation mode
(``"absent"``), with its gold answer; an entry is the verdict's ``to_dict()`` (components, every step's ``q`` and
reasons, status, support) — so a change anywhere in the evidence or the policy shows.

    .venv/bin/python benchmarks/behaviour_snapshot.py --out runs/snapshot.jsonl            # write (refuses to overwrite)
    .venv/bin/python benchmarks/behaviour_snapshot.py --compare runs/snapshot.jsonl        # score again and diff

It prints the number of entries and a SHA-256 of their canonical JSON; ``--compare`` prints how many entries
differ, per source and per field, and the first few. About 3 minutes on one core at the defaults.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data"
MODES = {"reward": "no_support", "evaluation": "absent"}


def _battery(n: int, seed: int):
    from rewards.audit.battery import load_problems
    from rewards.audit.families import FAMILIES, faithful_completion

    for p in load_problems(n, seed=seed):
        texts = {"faithful": faithful_completion(p.solution)}
        for name, family in FAMILIES.items():
            texts[name] = family.generate(p.problem, p.solution, p.answer, random.Random(f"{seed}:{p.id}:{name}"))
        for name, text in texts.items():
            if text is not None:
                yield f"battery/{p.id}/{name}", p.problem, text, p.answer


def _processbench():
    from rewards.checks.answers import gold_answer

    for split in ("gsm8k", "math"):
        for row in json.loads((DATA / "processbench" / f"{split}.json").read_text()):
            text = "\n\n".join(row["steps"])
            yield f"processbench/{row['id']}", row["problem"], text, gold_answer(text)  # its own answer


def _gold(limit: int):
    gsm = [json.loads(line) for line in (DATA / "gsm8k" / "test.jsonl").read_text().splitlines()[:limit]]
    for i, row in enumerate(gsm):
        yield f"gsm8k_test/{i}", row["question"], row["answer"], row["answer"].rsplit("####", 1)[-1].strip()
    math = [json.loads(line) for line in (DATA / "math500" / "test.jsonl").read_text().splitlines()[:limit]]
    for row in math:
        yield f"math500/{row['unique_id']}", row["problem"], row["solution"], row["answer"]


def snapshot(n: int, seed: int, gold: int, progress: bool = True) -> list[dict]:
    from tqdm.auto import tqdm

    from rewards import RAFSConfig, score_trace

    configs = {mode: RAFSConfig(missing_evidence=m) for mode, m in MODES.items()}
    items = [*_battery(n, seed), *_processbench(), *_gold(gold)]
    out = []
    for key, problem, text, answer in tqdm(items, desc="snapshot", unit="completion", disable=not progress):
        for mode, cfg in configs.items():
            result = score_trace(problem, text, gold=answer, config=cfg)
            out.append({"key": key, "mode": mode, **result.to_dict()})
    return out


def digest(entries: list[dict]) -> str:
    h = hashlib.sha256()
    for e in entries:
        h.update(json.dumps(e, sort_keys=True).encode())
    return h.hexdigest()


def compare(old: list[dict], new: list[dict], show: int) -> int:
    before = {(e["key"], e["mode"]): e for e in old}
    after = {(e["key"], e["mode"]): e for e in new}
    differ, fields, sources = [], Counter(), Counter()
    for k in sorted(set(before) | set(after)):
        a, b = before.get(k), after.get(k)
        if a != b:
            differ.append(k)
            sources[(k[0].split("/", 1)[0], k[1])] += 1
            for f in sorted(set(a or {}) | set(b or {})):
                if (a or {}).get(f) != (b or {}).get(f):
                    fields[f] += 1
    print(f"{len(differ)} of {len(after)} entries differ")
    for (src, mode), c in sorted(sources.items()):
        print(f"  {src} ({mode}): {c}")
    for f, c in fields.most_common():
        print(f"  field {f}: {c}")
    for k in differ[:show]:
        a, b = before.get(k) or {}, after.get(k) or {}
        print(f"- {k[0]} ({k[1]}): rafs {a.get('rafs')} -> {b.get('rafs')}, status {a.get('status')} -> "
              f"{b.get('status')}, supported {a.get('supported')} -> {b.get('supported')}")
    return len(differ)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100, help="audit battery problems (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gold", type=int, default=500, help="GSM8K test and MATH-500 gold solutions, each (default 500)")
    ap.add_argument("--out", help="write the snapshot here (JSON lines); refuses to overwrite")
    ap.add_argument("--compare", help="a snapshot written earlier: score again and report what differs")
    ap.add_argument("--show", type=int, default=10, help="differing entries to print with --compare")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.out and Path(args.out).exists():
        print(f"behaviour_snapshot: --out {args.out} exists; pass a new path (nothing overwritten)", file=sys.stderr)
        return 2
    if args.compare and not Path(args.compare).is_file():
        print(f"behaviour_snapshot: --compare {args.compare} is not a file", file=sys.stderr)
        return 2
    start = time.perf_counter()
    entries = snapshot(args.n, args.seed, args.gold, progress=not args.no_progress)
    print(f"{len(entries)} entries, sha256 {digest(entries)}, {time.perf_counter() - start:.0f} s")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in entries))
    if args.compare:
        old = [json.loads(line) for line in Path(args.compare).read_text().splitlines() if line.strip()]
        return 1 if compare(old, entries, args.show) else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
