"""Load test of ``rafs serve`` on loopback: throughput and p50/p99 latency, and nothing lost or swapped.

For each worker count (default 1 and 2) a server is started as a subprocess (``python -m trainers serve`` on a free
127.0.0.1 port) and, for each batch size (default 1, 64 and 512 completions per request), ``--clients``
concurrent clients (httpx) send ``--requests`` OpenRLHF ``/get_reward`` requests in all, each with a different
slice of a synthetic GSM8K-like pool (8 rollouts per prompt: right, wrong, and right answers on a false step).
Every response is compared with the same items scored in-process (:func:`rewards.adapters.engines.openrlhf.
openrlhf_rewards`), in order: rewards, scores and every extra log must be equal.

Bounded: ``--requests`` per configuration and a wall-clock cap ``--max-seconds`` over the whole run (a
configuration that runs out of time stops sending and reports what it finished).

    python benchmarks/bench_serve.py                          # 1,64,512 x workers 1,2 x 4 clients
    python benchmarks/bench_serve.py --batches 1,64 --workers 1 --requests 8 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHATML = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"


def make_items(n: int, seed: int = 0, rollouts: int = 8) -> dict[str, list]:
    """``n`` OpenRLHF items: ``rollouts`` responses per prompt, prompts in ChatML, labels the right answers."""
    rng = random.Random(seed)
    queries, prompts, labels = [], [], []
    while len(queries) < n:
        a, b, c = rng.randint(2, 40), rng.randint(2, 40), rng.randint(2, 30)
        q = (f"A shop has {a} boxes with {b} pencils each and sells {c} pencils. "
             "How many pencils are left?")
        prompt = CHATML.format(q=q)
        total, left = a * b, a * b - c
        variants = [
            f"Each box has {b} pencils, so {a} * {b} = {total} pencils.\nAfter selling, {total} - {c} = {left}.\n"
            f"#### {left}",
            f"{a} * {b} = {total}\n{total} - {c} = {left + 1}\n#### {left + 1}",            # wrong step, wrong
            f"{a} * {b} = {total + 2}\n{total + 2} - {c} = {left}\nThe answer is {left}",   # false step, right
            f"<think>{a} times {b} is {total}.</think>\n{total} - {c} = {left}\n\\boxed{{{left}}}",
            f"We compute {a} * {b} = {total}, then {total} + {c} = {total + c}.\n#### {total + c}",
        ]
        for _ in range(rollouts):
            if len(queries) >= n:
                break
            response = rng.choice(variants)
            queries.append(prompt + response + "<|im_end|>")
            prompts.append(prompt)
            labels.append(str(left))
    return {"query": queries, "prompts": prompts, "labels": labels}


def _slice(pool: dict[str, list], start: int, size: int) -> dict[str, list]:
    n = len(pool["query"])
    idx = [(start + k) % n for k in range(size)]
    return {key: [pool[key][i] for i in idx] for key in ("query", "prompts", "labels")}


def expected_response(payload: dict[str, list]) -> dict[str, Any]:
    """The same items scored in-process, as the server must answer."""
    from rewards.adapters.engines.openrlhf import openrlhf_rewards

    return openrlhf_rewards(payload["query"], payload["prompts"], payload["labels"])


async def run_load(base_url: str, *, batch: int, clients: int, requests: int, pool: dict[str, list],
                   max_seconds: float, check: bool = True, timeout: float = 120.0) -> dict[str, Any]:
    """Send ``requests`` POST /get_reward of ``batch`` items from ``clients`` concurrent clients; returns the stats
    and, with ``check``, how many responses differ from in-process scoring (``mismatches``)."""
    import httpx

    payloads = [_slice(pool, r * batch, batch) for r in range(requests)]
    latencies: list[float] = []
    errors: list[str] = []
    bodies: dict[int, Any] = {}
    attempted = [0]
    next_req = iter(range(requests))
    deadline = time.perf_counter() + max_seconds

    async def client_loop(client: "httpx.AsyncClient") -> None:
        for r in next_req:
            if time.perf_counter() > deadline:
                return
            t0 = time.perf_counter()
            attempted[0] += 1
            try:
                resp = await client.post(base_url + "/get_reward", json=payloads[r])
            except httpx.HTTPError as exc:
                errors.append(f"request {r}: {type(exc).__name__}: {exc}")
                continue
            latencies.append(time.perf_counter() - t0)
            if resp.status_code != 200:
                errors.append(f"request {r}: HTTP {resp.status_code}: {resp.text[:200]}")
                continue
            bodies[r] = resp.json()

    t_start = time.perf_counter()
    async with httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(max_connections=clients)) as client:
        await asyncio.gather(*(client_loop(client) for _ in range(clients)))
    wall = time.perf_counter() - t_start
    done = len(bodies)
    mismatches = []
    if check:
        for r, body in bodies.items():
            exp = expected_response(payloads[r])
            if body != exp:
                bad = next((i for i, (a, b) in enumerate(zip(body.get("rewards", []), exp["rewards"])) if a != b),
                           None)
                mismatches.append(f"request {r}: first differing item {bad}")
    lat_ms = sorted(x * 1000 for x in latencies)

    def pct(p: float) -> float | None:
        if not lat_ms:
            return None
        k = min(len(lat_ms) - 1, max(0, int(round(p / 100 * len(lat_ms) + 0.5)) - 1))
        return round(lat_ms[k], 1)

    return {"batch": batch, "clients": clients, "requests_sent": attempted[0],
            "requests_ok": done, "items_ok": done * batch, "wall_s": round(wall, 3),
            "items_per_s": round(done * batch / wall, 1) if wall > 0 else None,
            "req_per_s": round(done / wall, 2) if wall > 0 else None,
            "p50_ms": pct(50), "p99_ms": pct(99), "mean_ms": round(statistics.fmean(lat_ms), 1) if lat_ms else None,
            "errors": errors[:5], "n_errors": len(errors), "mismatches": mismatches[:5],
            "n_mismatches": len(mismatches)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(workers: int, max_batch: int, timeout: float) -> tuple[subprocess.Popen, str]:
    """``python -m trainers serve`` on a free loopback port; waits for ``/health``."""
    import httpx

    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "trainers", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--workers", str(workers), "--max-batch", str(max_batch), "--timeout", str(timeout),
                             "--log-level", "warning"], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("server did not become healthy within 60 s")


def stop_server(proc: subprocess.Popen) -> int:
    proc.terminate()
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", default="1,64,512", help="completions per request (comma-separated)")
    ap.add_argument("--workers", default="1,2", help="server worker counts (comma-separated)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients")
    ap.add_argument("--requests", type=int, default=16, help="requests per configuration (bound)")
    ap.add_argument("--max-seconds", type=float, default=240.0, help="wall-clock cap for the whole run")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    batches = [int(x) for x in args.batches.split(",")]
    workers_list = [int(x) for x in args.workers.split(",")]
    if args.requests < 1 or args.clients < 1 or max(batches) > 4096:
        ap.error("--requests and --clients must be >= 1 and batches <= 4096")
    pool = make_items(max(batches) * 4, seed=0)
    configs = len(batches) * len(workers_list)
    t0 = time.perf_counter()
    rows = []
    for w in workers_list:
        proc, base = start_server(w, max(batches), timeout=120)
        try:
            for b in batches:
                left = args.max_seconds - (time.perf_counter() - t0)
                budget = max(1.0, left / max(1, configs - len(rows)))
                res = asyncio.run(run_load(base, batch=b, clients=args.clients, requests=args.requests, pool=pool,
                                           max_seconds=budget))
                res["workers"] = w
                rows.append(res)
                print(f"workers={w} batch={b}: {res['items_per_s']} items/s, p50 {res['p50_ms']} ms, "
                      f"p99 {res['p99_ms']} ms, {res['requests_ok']} ok, {res['n_errors']} errors, "
                      f"{res['n_mismatches']} mismatches", flush=True)
        finally:
            rc = stop_server(proc)
            print(f"server (workers={w}) stopped with exit code {rc}", flush=True)
    print()
    print("| workers | batch | clients | requests ok | items/s | req/s | p50 ms | p99 ms | errors | mismatches |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['workers']} | {r['batch']} | {r['clients']} | {r['requests_ok']} | {r['items_per_s']} | "
              f"{r['req_per_s']} | {r['p50_ms']} | {r['p99_ms']} | {r['n_errors']} | {r['n_mismatches']} |")
    meta = {"cpu_count": os.cpu_count(), "python": sys.version.split()[0], "wall_s": round(time.perf_counter() - t0, 1)}
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    bad = sum(r["n_errors"] + r["n_mismatches"] for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
