"""Generation throughput against the local OpenAI-protocol stub server with an injected latency.

For each concurrency, runs the prompt solver over the built-in suite through the real litellm HTTP path (cache
off) and prints achieved throughput over ideal (concurrency / latency).

    python benchmarks/bench_generate.py [--latency 0.2] [--concurrency 1 4 16] [--samples 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from lmrbench.generate import generate_with_model
from lmrbench.models.base import Message, ModelSettings
from lmrbench.models.litellm_model import LiteLLMModel
from lmrbench.models.openai_stub_server import Reply, StubServer
from lmrbench.tasks.loader import load_tasks

ANSWER = "```python\ndef placeholder():\n    return 0\n```"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--samples", type=int, default=2)
    args = parser.parse_args()
    tasks = load_tasks().restrict(split="all")  # lite and main (the upstream split needs its releases fetched)
    n = len(tasks.instances()) * args.samples
    print(f"{n} requests per setting, server latency {args.latency * 1000:.0f} ms")
    with StubServer(default=Reply(content=ANSWER, delay_s=args.latency)) as server:
        settings = ModelSettings(api_base=server.url, extra={"api_key": "sk-local"}, retry_base_s=0.05)
        # warm-up: litellm's import and first-call set-up are not part of steady-state throughput
        LiteLLMModel("openai/stub", settings, use_cache=False).query([Message(role="user", content="warm up")])
        for conc in args.concurrency:
            model = LiteLLMModel("openai/stub", settings, use_cache=False)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                prog = generate_with_model(tasks, model, "prompt", Path(tmp), args.samples, conc,
                                           papers_dir=Path(tmp) / "papers")
                wall = time.perf_counter() - t0
            achieved = prog.done / wall
            ideal = conc / args.latency
            print(f"concurrency {conc:>2}: {prog.done} calls in {wall:.2f} s -> {achieved:.1f} req/s; ideal "
                  f"{ideal:.1f} req/s; achieved/ideal {achieved / ideal:.0%}")


if __name__ == "__main__":
    main()
