"""``rafs serve`` (trainers.serve): endpoints, limits, errors, ordering under concurrency, shutdown, the CLI.

The ``/get_reward`` payload mirrors OpenRLHF 0.11.2 ``openrlhf/utils/agent.py`` ``_fetch_rewards_via_http``
(lines 327-365: ``{"query", "prompts", "labels"}`` POSTed as JSON, the JSON answer used as is, one dict per server
shard) and ``openrlhf/cli/serve_rm.py`` (lines 128-134: ``{"rewards", "scores", "extra_logs"}``). Servers bind
127.0.0.1 only and are stopped by the test that starts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from rewards.adapters.engines.core import Item, score_items
from rewards.adapters.engines.openrlhf import openrlhf_rewards
from trainers.cli import main as cli_main
from trainers.serve import create_app, plan_chunks

ROOT = Path(__file__).resolve().parents[2]


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_serve", ROOT / "benchmarks" / "bench_serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()


@contextlib.contextmanager
def running_server(app, *, ready_timeout: float = 60.0):
    """uvicorn serving ``app`` on a free 127.0.0.1 port in a thread; yields the base URL, stops it on exit."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + ready_timeout
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
        assert not thread.is_alive(), "server thread did not stop"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(workers=2, max_batch=256)) as c:
        yield c


def _pool(n, seed=1):
    return bench.make_items(n, seed=seed)


def test_health_reports_workers_and_limits(client):
    r = client.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok" and body["workers"] == 2 and body["pending_items"] == 0
    assert body["limits"]["max_batch"] == 256 and body["limits"]["timeout_s"] == 30.0


def test_get_reward_equals_in_process_scoring_in_order(client):
    payload = _pool(48)                        # >= 16 items: split across both workers, groups kept whole
    r = client.post("/get_reward", json=payload)
    assert r.status_code == 200
    assert r.json() == openrlhf_rewards(payload["query"], payload["prompts"], payload["labels"])
    rev = {k: v[::-1] for k, v in payload.items()}     # reversed order: the answer follows the request order
    r2 = client.post("/get_reward", json=rev).json()
    assert r2["rewards"] == r.json()["rewards"][::-1]


def test_get_reward_accepts_query_only_like_old_openrlhf(client):
    r = client.post("/get_reward", json={"query": ["Q?\n2 + 3 = 5\n#### 5"]})
    assert r.status_code == 200
    body = r.json()
    assert len(body["rewards"]) == 1 and body["scores"] == body["rewards"]
    assert set(body["extra_logs"]) == {"rafs", "rafs_abstain", "rafs_accept", "rafs_suspect", "rafs_correct"}


def test_score_endpoint_plain_items_with_groups(client):
    items = [{"problem": "Tom has 3 boxes of 4 pens.", "completion": "3 * 4 = 12\n#### 12", "answer": "12",
              "group": "tom"},
             {"problem": "Tom has 3 boxes of 4 pens.", "completion": "3 * 4 = 13\n#### 12", "answer": "12",
              "group": "tom"},
             {"problem": "Ann has 2 cats and 3 dogs.", "completion": "2 + 3 = 5\n#### 5"},
             {"completion": [{"role": "assistant", "content": "2 + 3 = 5\n#### 5"}], "answer": 5}]
    r = client.post("/score", json={"items": items})
    assert r.status_code == 200
    results = r.json()["results"]
    expected = score_items([Item(i.get("problem"), i["completion"], None if i.get("answer") is None
                                 else str(i["answer"]), None if "group" not in i else ("group", i["group"]))
                            for i in items])
    assert results == expected
    assert [x["reward"] for x in results[:2]] == [1.0, 0.5]
    assert results[0]["components"]["C_A"] is not None and results[2]["components"]["C_A"] is None
    assert results[2]["correct"] is None and 0 < results[2]["reward"] < 1          # no answer: RAFS/100
    assert {"rafs", "status", "reward", "suspect_step", "failure_type", "correct"} <= set(results[0])


@pytest.mark.parametrize("body,status,fragment", [
    (b"{not json", 400, "not valid JSON"),
    (b"", 400, "empty"),
    (b"[1, 2]", 422, "must be a JSON object"),
    (json.dumps({"query": "one string"}).encode(), 422, "'query' must be a JSON list"),
    (json.dumps({"prompts": ["p"]}).encode(), 422, "field 'query' is missing"),
    (json.dumps({"query": ["a", "b"], "prompts": ["p"]}).encode(), 422, "'prompts' has 1 entries but 'query' has 2"),
    (json.dumps({"query": ["a", 3]}).encode(), 422, "query[1] = 3"),
    (json.dumps({"query": ["a"], "labels": [{"x": 1}]}).encode(), 422, "labels[0]"),
    (json.dumps({"query": []}).encode(), 422, "is empty"),
    (json.dumps({"query": ["a"] * 257}).encode(), 413, "257 items, over the server's limit of 256"),
])
def test_get_reward_rejects_malformed_input_with_a_reason(client, body, status, fragment):
    r = client.post("/get_reward", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status
    assert fragment in r.json()["error"]


@pytest.mark.parametrize("body,fragment", [
    ({"items": "x"}, "'items' must be a list"),
    ({"items": [{"problem": "p"}]}, "items[0].completion = null"),
    ({"items": [{"completion": "c", "gold": "1"}]}, "unknown field(s) ['gold']"),
    ({"items": [{"completion": "c", "group": [1]}]}, "items[0].group"),
    ({"items": [{"completion": "c"}], "mode": "rafs"}, "unknown top-level field(s) ['mode']"),
])
def test_score_rejects_malformed_items_naming_the_field(client, body, fragment):
    r = client.post("/score", json=body)
    assert r.status_code == 422
    assert fragment in r.json()["error"]


def test_byte_limit_gives_413_before_reading_the_body():
    with TestClient(create_app(workers=1, max_batch=8, max_bytes=2048)) as c:
        r = c.post("/get_reward", json={"query": ["x" * 4000]})
        assert r.status_code == 413 and "over the server's limit of 2048" in r.json()["error"]
        assert c.post("/get_reward", json={"query": ["2 + 3 = 5"]}).status_code == 200


def test_timeout_gives_504_with_a_reason():
    app = create_app(workers=1, max_batch=1024, timeout=0.001)
    with TestClient(app) as c:
        before = app.state.scorer.pool.pids()
        r = c.post("/get_reward", json=_pool(1024, seed=3))
        assert r.status_code == 504
        assert "longer than the server's timeout of 0.001 s" in r.json()["error"]
        deadline = time.time() + 30                          # the chunk's worker is killed; the server recovers
        while c.get("/health").json()["pending_items"] and time.time() < deadline:
            time.sleep(0.1)
        assert c.get("/health").json()["pending_items"] == 0
        assert app.state.scorer.pool.replaced == 1 and not set(before) & set(app.state.scorer.pool.pids())


def test_back_pressure_gives_503(client):
    scorer = client.app.state.scorer
    scorer.pending = scorer.max_pending                       # as if the queue were full
    try:
        r = client.post("/get_reward", json={"query": ["2 + 3 = 5"]})
    finally:
        scorer.pending = 0
    assert r.status_code == 503 and "server busy" in r.json()["error"]


def test_shutdown_closes_the_pool_and_its_processes():
    app = create_app(workers=2)
    with TestClient(app) as c:
        assert c.get("/health").status_code == 200
        pids = app.state.scorer.pool.pids()
        assert len(pids) == 2 and all(os.path.exists(f"/proc/{pid}") for pid in pids)
    assert app.state.scorer.pool is None
    assert not any(os.path.exists(f"/proc/{pid}") for pid in pids)  # stopped and reaped


def test_create_app_validates_its_limits():
    for kwargs, fragment in [({"workers": 0}, "workers=0"), ({"max_batch": 0}, "max_batch=0"),
                             ({"timeout": 0}, "timeout=0"), ({"mode": "x"}, "mode='x'"),
                             ({"rafs_config": {"bogus": 1}}, "bogus"), ({"mp_context": "fork"}, "fork")]:
        with pytest.raises(ValueError, match=fragment):
            create_app(**kwargs)


def test_plan_chunks_keeps_groups_whole_and_covers_every_index():
    keys = [("p", i % 5) for i in range(40)] + [None] * 7
    chunks = plan_chunks(keys, 3)
    assert sorted(i for c in chunks for i in c) == list(range(47))
    for c in chunks:
        assert c == sorted(c)
    owner = {}
    for n, c in enumerate(chunks):
        for i in c:
            if keys[i] is not None:
                assert owner.setdefault(keys[i], n) == n


def test_concurrent_clients_on_a_real_server_get_their_own_answers_in_order():
    """The load test's check with small numbers: 4 clients, batches 1 and 24, nothing lost or swapped."""
    pool = _pool(96, seed=7)
    with running_server(create_app(workers=2, max_batch=64)) as base:
        for batch in (1, 24):
            res = asyncio.run(bench.run_load(base, batch=batch, clients=4, requests=8, pool=pool, max_seconds=60))
            assert res["requests_ok"] == 8, res["errors"]
            assert res["n_errors"] == 0 and res["n_mismatches"] == 0, (res["errors"], res["mismatches"])
        assert httpx.get(base + "/health").json()["pending_items"] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rafs_serve_cli_serves_and_shuts_down_gracefully_on_sigterm():
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "trainers", "serve", "--port", str(port), "--workers", "1",
                             "--log-level", "info"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                if httpx.get(base + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.time() < deadline, "rafs serve did not become healthy"
            time.sleep(0.1)
        q = "Tom has 3 boxes of 4 pens.\n"  # the problem grounds the derivation (without it: 0.5, unsupported)
        r = httpx.post(base + "/get_reward", json={"query": [q + "3 * 4 = 12\n#### 12"], "prompts": [q],
                                                   "labels": ["12"]})
        assert r.json()["rewards"] == [1.0]
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        log = proc.stderr.read().decode()
    # uvicorn shuts down gracefully (the lifespan closes the pool), then re-raises the signal it caught
    assert rc in (0, -signal.SIGTERM), log[-2000:]
    assert "Application shutdown complete" in log and "Finished server process" in log


def test_rafs_serve_cli_errors_are_one_line(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        assert cli_main(["serve", "--port", str(busy)]) == 2
    err = capsys.readouterr().err
    assert f"cannot bind 127.0.0.1:{busy}" in err and "--port" in err
    assert cli_main(["serve", "--workers", "0"]) == 2
    assert "--workers 0" in capsys.readouterr().err
    assert cli_main(["serve", "--rafs-config", "{\"tau_accept\": 500}"]) == 2
    assert "tau_accept" in capsys.readouterr().err


def test_docstring_examples_run():
    import doctest

    import trainers.serve

    result = doctest.testmod(trainers.serve)
    assert result.attempted > 0 and result.failed == 0
