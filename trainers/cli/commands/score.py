"""``rafs score INPUT [--out OUT.jsonl] [--workers N] [--timeout S]``: score reasoning traces, one row in, one JSON row out.

INPUT is a ``.jsonl``, ``.json`` (one array, e.g. ProcessBench's ``gsm8k.json``, or JSON Lines), ``.csv`` or
``.parquet`` file, or ``-`` for JSON on stdin. ``--workers N`` scores on N worker processes
(:mod:`rewards.adapters.pool`; rows stay in order, the output is the same); ``--timeout S`` gives each row a
deadline, past which the row is written as an abstention whose reason says so. Each row is read in one of four layouts (``--layout``, detected from
each row's columns by default; see :mod:`trainers.common.readers`): ``problem`` + ``completion`` (text or chat messages),
GSM8K's ``question`` + ``answer`` (the worked solution, whose ``#### X`` is the gold), ProcessBench's ``problem``
+ ``steps``, or chat ``messages``. Optional columns: ``samples`` (other completions of the same problem: enables
C_A and D_R) and the gold answer (``answer`` or ``gold``, or ``--answer-col``).

Each output row is the input row plus ``rafs`` (0-100 or null), ``status``, ``failure_type``, ``suspect_step``,
``reasons`` (why: an abstention's cause, a suspect step's evidence), ``components`` (``P_R``, ``S_RA``, ``C_A``,
``D_R``) and ``step_checks`` (per step ``q`` and ``reasons``). A row whose completion is empty is scored (it
abstains: ``reasons`` says so), not rejected. The
scorer's settings come from ``--config FILE`` (YAML or JSON) and ``--rafs.FIELD VALUE`` flags (see
:mod:`trainers.common.config`). ``--out`` is written atomically and never overwritten without ``--force``.

Example::

    rafs score examples/traces.jsonl
    rafs score ../shared/data/processbench/gsm8k.json --out runs/pb_scores.jsonl \\
        --rafs.tau_accept 70
    rafs score ../shared/data/gsm8k/train.jsonl --out runs/gsm8k_scores.jsonl --config my_rafs.yaml
"""

from __future__ import annotations

import argparse
import json
import sys

SCORE_FIELDS = ("rafs", "status", "failure_type", "suspect_step", "reasons", "components", "step_checks")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("score", help="score reasoning traces (JSONL, JSON, CSV or parquet in; JSONL out)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="a .jsonl, .json, .csv or .parquet file ('-' for JSON on stdin)")
    p.add_argument("--out", help="output JSONL (default: stdout); an existing file is not overwritten without --force")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="scoring processes (default 1: this process); the rows keep their order")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds one row may take (scored on a worker that is killed past it; default: none)")
    from trainers.common.config import add_config_arguments
    from trainers.common.readers import add_reader_arguments

    add_reader_arguments(p)
    add_config_arguments(p, aliases={"tau_accept": ["--tau-accept"], "theta_step": ["--theta-step"]})
    try:
        from rewards.verifiers.registry import add_verifier_arguments
    except ImportError:
        pass
    else:
        add_verifier_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    from rewards.scoring.score import score_trace
    from trainers.cli import CommandError, atomic_write, check_output_file
    from trainers.common.config import config_from_args
    from trainers.common.readers import check_input_path, read_items, spec_from_args

    if args.workers < 1:
        raise CommandError(f"--workers {args.workers} must be >= 1 (scoring processes)")
    if args.timeout is not None and not args.timeout > 0:
        raise CommandError(f"--timeout {args.timeout} must be a positive number of seconds")
    spec = spec_from_args(args)
    config = config_from_args(args)
    check_input_path(args.input)
    check_output_file(args.out, force=args.force, flag="--out")
    verifier = None
    if getattr(args, "verifier", None) not in (None, "symbolic"):
        from rewards.verifiers.registry import verifier_from_args

        try:
            verifier = verifier_from_args(args)
        except (ValueError, OSError) as exc:
            raise CommandError(str(exc)) from None
    from tqdm import tqdm

    def results(items):
        """(row, verdict) in input order: here, or on the pool in chunks that keep every worker busy."""
        if args.workers == 1 and args.timeout is None:
            for row, item in items:
                yield row, score_trace(item.problem, item.completion, steps=item.steps, samples=item.samples,
                                       gold=item.gold, config=config, verifier=verifier)
            return
        from itertools import islice

        from rewards.adapters.pool import Failure, ScoringPool, call_with, unscorable

        with ScoringPool(args.workers) as pool:
            while chunk := list(islice(items, 64 * args.workers)):
                tasks = [(score_trace, {"problem": item.problem, "completion": item.completion, "steps": item.steps,
                                        "samples": item.samples, "gold": item.gold, "config": config,
                                        "verifier": verifier}) for _, item in chunk]
                for (row, _), got in zip(chunk, pool.map(call_with, tasks, timeout_s=args.timeout)):
                    if isinstance(got, Failure):
                        print(f"rafs score: a row was not scored ({got.reason})", file=sys.stderr)
                        got = unscorable(f"not scored: {got.reason}", config)
                    yield row, got

    def write(handle) -> int:
        n = 0
        items = iter(read_items(args.input, spec))
        for row, result in tqdm(results(items), desc="rafs score", unit="trace", disable=not sys.stderr.isatty()):
            data = result.to_dict()
            handle.write(json.dumps({**row, **{k: data[k] for k in SCORE_FIELDS}}, ensure_ascii=False,
                                    default=str) + "\n")
            n += 1
        return n

    if args.out is None:
        write(sys.stdout)
        return 0
    counted = []

    def to_file(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as handle:
            counted.append(write(handle))

    try:
        atomic_write(args.out, to_file)
    except OSError as exc:
        raise CommandError(f"cannot write --out {args.out!r}: {exc.strerror or exc}") from None
    from dataclasses import asdict

    from rewards.adapters.reward_version import reward_version

    version = reward_version("rafs_score", {"config": None if config is None else asdict(config),
                                            "verifier": getattr(args, "verifier", None)})
    print(f"rafs score: scored {counted[0]} rows with {version}; wrote {args.out}", file=sys.stderr)
    return 0
