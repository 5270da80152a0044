"""Generation soak: the prompt solver over every built-in implementation against the local OpenAI-protocol stub
server, several threads at once, several times in a row; every item must be recorded each time.

The stub answers every request with one long code block (hundreds of definitions), so each thread spends its time
parsing answers: the path where CPython 3.11's AST construction raced between threads (cpython#106905) and ended
the run.

    python benchmarks/soak_generate.py [--rounds 3] [--concurrency 8] [--samples 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from lmrbench.generate import generate_with_model
from lmrbench.jsonl import read_records
from lmrbench.models.base import ModelSettings
from lmrbench.models.litellm_model import LiteLLMModel
from lmrbench.models.openai_stub_server import Reply, StubServer
from lmrbench.tasks.loader import load_tasks

HELPERS = "\n\n".join(f"def helper_{i}(x, y=({i}, [{i}] * 2)):\n    return [(a, b) for a in x for b in y if a]"
                      for i in range(400))
ANSWER = f"Here you are.\n```python\n{HELPERS}\n```\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--samples", type=int, default=1)
    args = parser.parse_args()
    tasks = load_tasks()
    want = len(tasks.select(None)) * args.samples
    with StubServer(default=Reply(content=ANSWER, delay_s=0.01)) as server:
        settings = ModelSettings(api_base=server.url, extra={"api_key": "sk-local"}, retry_base_s=0.05)
        for r in range(1, args.rounds + 1):
            model = LiteLLMModel("openai/stub", settings, use_cache=False)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                generate_with_model(tasks, model, "prompt", Path(tmp), args.samples, args.concurrency,
                                    patterns=None, papers_dir=Path(tmp) / "papers")
                recs = [rec.obj for rec in read_records(Path(tmp) / "predictions.jsonl")]
                keys = Counter((o["instance_id"], o["sample"]) for o in recs if o)
                outcomes = Counter(o["meta"].get("outcome") for o in recs if o)
                print(f"round {r}: {len(keys)}/{want} items recorded once each: {len(keys) == want == len(recs)}; "
                      f"outcomes {dict(outcomes)}; {time.perf_counter() - t0:.1f} s", flush=True)
                for o in recs:
                    if o and o["meta"].get("outcome") == "harness_error":
                        print(f"  harness error, {o['instance_id']}: {o['error'][:300]}", flush=True)


if __name__ == "__main__":
    main()
