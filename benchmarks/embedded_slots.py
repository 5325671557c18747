#!/usr/bin/env python3
"""How many sequences the embedded model should decode at once: the same requests, two in flight at a time (as a
run's two workers send them), against a server of one slot and one of two.

Each request shares a long prefix (the airline policy, as every call of a stage does) and ends with a question
of its own, and asks for up to --tokens output tokens. Each server size runs in a process of its own, since the
server is one per process. Prints, per size, the wall time, the output tokens per second and the share of prompt
tokens its prefix cache served.

    python benchmarks/embedded_slots.py                    # 8 requests, slots 1 and 2
    python benchmarks/embedded_slots.py --requests 12 --tokens 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a checkout without installing the package


def measure(slots: int, requests: int, tokens: int, in_flight: int) -> dict[str, float]:
    """Start a server of `slots` slots in this process and send the requests, `in_flight` at a time."""
    from intellagent.llm.embedded import MODEL_NAME, local_server

    server = local_server(parallel=slots)
    policy = (ROOT / "policies" / "airline.md").read_text(encoding="utf-8")
    questions = [f"In one short paragraph, what does the policy say about case {n}: "
                 f"{topic}?" for n, topic in enumerate(["cancelling a basic economy flight", "checked bags for a "
                 "gold member", "changing the cabin", "a refund to a gift card", "travel insurance",
                 "compensation for a delayed flight", "changing passengers", "booking for four people"] * 4)]

    async def ask(client: httpx2.AsyncClient, question: str) -> dict:
        answer = await client.post(f"{server.base_url}/chat/completions", json={
            "model": MODEL_NAME, "max_tokens": tokens, "temperature": 0,
            "messages": [{"role": "system", "content": policy}, {"role": "user", "content": question}]})
        return answer.json()["usage"]

    async def run() -> list[dict]:
        gate = asyncio.Semaphore(in_flight)
        async with httpx2.AsyncClient(timeout=600) as client:
            await ask(client, "Say ok.")  # the model loaded and the policy read once, before the clock starts

            async def one(question: str) -> dict:
                async with gate:
                    return await ask(client, question)

            return await asyncio.gather(*(one(q) for q in questions[:requests]))

    started = time.monotonic()
    usages = asyncio.run(run())
    wall = time.monotonic() - started
    output = sum(u["completion_tokens"] for u in usages)
    prompt = sum(u["prompt_tokens"] for u in usages)
    served = sum((u.get("prompt_tokens_details") or {}).get("cached_tokens", 0) for u in usages)
    return {"slots": slots, "wall": wall, "output": output, "per_second": output / wall,
            "served": served / prompt if prompt else 0.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=150, help="output tokens each request may take")
    parser.add_argument("--in-flight", type=int, default=2, help="requests sent at once (a run's workers)")
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process: measure this size only
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one, args.requests, args.tokens, args.in_flight)))
        return 0
    print(f"{args.requests} requests of up to {args.tokens} output tokens, {args.in_flight} in flight")
    print(f"{'slots':>5}  {'wall':>8}  {'output tok':>10}  {'tok/s':>6}  {'prefix cache':>12}")
    for slots in args.slots:
        child = subprocess.run([sys.executable, __file__, "--one", str(slots), "--requests", str(args.requests),
                                "--tokens", str(args.tokens), "--in-flight", str(args.in_flight)],
                               capture_output=True, text=True, check=True)
        figures = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"{slots:>5}  {figures['wall']:>7.1f}s  {figures['output']:>10}  {figures['per_second']:>6.1f}  "
              f"{figures['served']:>12.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
