"""``rafs serve [--host 127.0.0.1] [--port 8000] [--workers N] [--max-batch 1024] [--timeout 30]``: RAFS over HTTP.

Endpoints: ``GET /health``; ``POST /get_reward`` (OpenRLHF's remote reward payload: ``{"query", "prompts",
"labels"}`` -> ``{"rewards", "scores", "extra_logs"}``); ``POST /score`` (``{"items": [{"problem", "completion",
"answer", "group"}]}`` -> ``{"results": [...]}``). See ``docs/engines.md``.

The scorer's settings: ``--config FILE`` (YAML or JSON of RAFSConfig fields) and ``--rafs.FIELD VALUE`` flags,
read by :mod:`trainers.common.config` as in every command (``--rafs-config JSON`` is kept for compatibility).

OpenRLHF: ``--reward.remote_url http://127.0.0.1:8000/get_reward``. The server has no authentication: keep it on
loopback or a private network.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
from typing import Any

_DEFAULTS = {"workers": 2, "max_batch": 1024, "max_bytes": 32 * 1024 * 1024, "timeout": 30.0}  # = trainers.serve


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("serve", help="serve RAFS rewards over HTTP (OpenRLHF /get_reward, /score)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; there is no auth)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--workers", type=int, default=_DEFAULTS["workers"],
                   help=f"scoring processes (default {_DEFAULTS['workers']})")
    p.add_argument("--max-batch", type=int, default=_DEFAULTS["max_batch"],
                   help=f"most items per request (default {_DEFAULTS['max_batch']})")
    p.add_argument("--max-bytes", type=int, default=_DEFAULTS["max_bytes"],
                   help=f"largest request body in bytes (default {_DEFAULTS['max_bytes']})")
    p.add_argument("--max-pending", type=int, default=None,
                   help="most items queued or being scored before 503 (default 4 x --max-batch)")
    p.add_argument("--timeout", type=float, default=_DEFAULTS["timeout"],
                   help=f"seconds a request may take before 504 (default {_DEFAULTS['timeout']:g})")
    p.add_argument("--mode", choices=("auto", "faithful_accuracy", "rafs"), default="auto",
                   help="reward rule: faithful accuracy with a label, RAFS/100 without (auto, default)")
    p.add_argument("--rafs-config", default=None, metavar="JSON",
                   help="(kept for compatibility; prefer --config / --rafs.FIELD) RAFSConfig fields as a JSON object, "
                        "e.g. '{\"tau_accept\": 60}', or a path to a YAML/JSON file")
    p.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"),
                   help="uvicorn log level (default info)")
    from trainers.common.config import add_config_arguments

    add_config_arguments(p)
    return p


def _rafs_config(args: argparse.Namespace) -> dict | None:
    """The RAFSConfig fields the server scores with (those that differ from the defaults), from ``--config``,
    ``--rafs-config`` (a JSON object or a file) and ``--rafs.FIELD`` flags, validated by one loader
    (:mod:`trainers.common.config`); ``None`` when nothing was set."""
    from trainers.cli import CommandError
    from trainers.common.config import config_from_args, config_to_dict, rafs_overrides_from_args

    value = getattr(args, "rafs_config", None)
    source: Any = args.config
    if value is not None:
        if args.config is not None:
            raise CommandError("give --config or --rafs-config, not both")
        source = value  # an inline JSON object or a path: the loader reads both
    if source is None and not rafs_overrides_from_args(args):
        return None
    flag = "--rafs-config" if value is not None else "--config"
    return config_to_dict(config_from_args(args, source=source, flag=flag))


def _check_port(host: str, port: int) -> None:
    from trainers.cli import CommandError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise CommandError(f"cannot bind {host}:{port} ({exc.strerror}); pick another --port or --host.") from None


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError

    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port} is outside 0-65535.")
    config = _rafs_config(args)
    from trainers.serve import create_app

    try:
        app = create_app(workers=args.workers, max_batch=args.max_batch, max_bytes=args.max_bytes,
                         max_pending=args.max_pending, timeout=args.timeout, mode=args.mode, rafs_config=config)
    except ValueError as exc:
        raise CommandError(str(exc).replace("max_batch=", "--max-batch ").replace("max_bytes=", "--max-bytes ")
                           .replace("max_pending=", "--max-pending ").replace("workers=", "--workers ")
                           .replace("timeout=", "--timeout ")) from None
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    if not loopback:
        print(f"rafs serve: warning: binding {args.host}, not loopback; the server has no authentication.",
              flush=True)
    _check_port(args.host, args.port)
    import uvicorn

    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=10)
    return 0
