"""Commands per second of a real server on the offline provider (LISAN_PROVIDER=local).

    .venv/bin/python -m bench.offline_load [--clients 8] [--seconds 20] [--rounds 2]

Starts `lisan serve` on a temporary SQLite database, registers one device per client, grants
Telegram, and has every client post real 2 s spoken commands (espeak-ng, a few sentences in
turn) in a closed loop. Reports per round: commands per second, p50/p99 latency, the statuses,
and the CPU of the server and its decoder processes per command (from /proc).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

from bench.accuracy.cases import SCREENS
from bench.kit.cpu import cpu_seconds
from bench.kit.servers import free_port, process
from lisan import say

SENTENCES = ["tap send", "scroll down", "go back", "tap abebe", "open telegram", "call kebede"]
SCREEN = SCREENS["chat"]
TELEGRAM = SCREEN.package


def _pcm(text: str) -> bytes:
    pcm = say.speak(text, "en-us", 160)
    wanted = 2 * 16_000 * 2
    return (pcm + b"\0" * wanted)[:wanted]


async def _device(client: httpx.AsyncClient) -> dict[str, str]:
    install_id = f"bench-{uuid.uuid4().hex}"
    session = await client.post("/v1/auth/register-device", json={"install_id": install_id})
    headers = {
        "Authorization": f"Bearer {session.json()['session_token']}",
        "X-Install-ID": install_id,
    }
    grant = {"package_name": TELEGRAM, "granted": True}
    assert (await client.post("/v1/app-grants", json=grant, headers=headers)).status_code == 200
    return headers


async def _client(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    bodies: list[dict[str, object]],
    until: float,
    latencies: list[float],
    statuses: Counter[str],
) -> None:
    turn = 0
    while time.monotonic() < until:
        body = bodies[turn % len(bodies)]
        turn += 1
        started = time.perf_counter()
        response = await client.post(
            "/v1/commands",
            json=body,
            headers={**headers, "X-Idempotency-Key": str(uuid.uuid4())},
        )
        latencies.append((time.perf_counter() - started) * 1000)
        status = response.json().get("status") if response.status_code == 200 else None
        statuses[status or str(response.status_code)] += 1


async def _round(
    base: str, pid: int, clients: int, seconds: float, bodies: list[dict[str, object]]
) -> str:
    limits = httpx.Limits(max_connections=clients + 4)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        devices = [await _device(client) for _ in range(clients)]
        latencies: list[float] = []
        statuses: Counter[str] = Counter()
        cpu_before, started = cpu_seconds(pid), time.monotonic()
        until = started + seconds
        await asyncio.gather(
            *(_client(client, d, bodies, until, latencies, statuses) for d in devices)
        )
        elapsed, cpu = time.monotonic() - started, cpu_seconds(pid) - cpu_before
    done = len(latencies)
    quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
    return (
        f"{done / elapsed:.1f} commands/s, p50 {quantiles[49]:.0f} ms, p99 {quantiles[98]:.0f} ms,"
        f" server+decoders CPU {cpu / done * 1000:.0f} ms/command, {dict(statuses)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    bodies: list[dict[str, object]] = [
        {
            "audio_base64": base64.b64encode(_pcm(text)).decode(),
            "duration_ms": 2000,
            "language": "en-US",
            "screen_context": {"current_package": TELEGRAM, "view_tree_summary": SCREEN.tree},
        }
        for text in SENTENCES
    ]
    with tempfile.TemporaryDirectory() as directory:
        port = free_port()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("LISAN_")},
            "LISAN_DATABASE_URL": f"sqlite+aiosqlite:///{directory}/bench.db",
            "LISAN_STORAGE_DIR": f"{directory}/objects",
            "LISAN_RATE_LIMIT_COMMANDS": "1000000/minute",
            "LISAN_RATE_LIMIT_USER": "1000000/minute",
            "LISAN_RATE_LIMIT_IP": "1000000/minute",
            "LISAN_RATE_LIMIT_REGISTER": "1000000/minute",
            "LISAN_LOG_LEVEL": "WARNING",
        }
        command = [sys.executable, "-m", "lisan", "serve", "--port", str(port)]
        base = f"http://127.0.0.1:{port}"
        with process(command, env, f"{base}/health", Path(directory) / "server.log") as pid:
            asyncio.run(_round(base, pid, 1, 5.0, bodies))  # warm-up: decoders start
            for index in range(args.rounds):
                line = asyncio.run(_round(base, pid, args.clients, args.seconds, bodies))
                print(f"round {index + 1}: {line}")


if __name__ == "__main__":
    main()
