"""Preparation cost of `functions` predictions with many keys: splice N tiny helper keys (and, separately, a
`<module>` entry of N imports and N helpers) into the toy goal file; print the time and how many times the goal
file was parsed. The target: one parse per goal file whatever N, and time growing about linearly in N.

    python benchmarks/bench_prepare.py [--keys 500 1000 2000 4000]
"""

from __future__ import annotations

import argparse
import time

from lmrbench.tasks import source

GOAL = '''"""Small arithmetic helpers used by the solver."""

import math  # used by norm


def add_scaled(a, b, k):
    """Return a + k * b, element-wise for lists."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def norm(v):
    return math.sqrt(sum(x * x for x in v))
'''
MARKER = GOAL.splitlines()[0]


def count_parses() -> list[int]:
    seen = [0]
    real = source._parse

    def counting(text: str, what: str):
        seen[0] += MARKER in text
        return real(text, what)

    source._parse = counting  # type: ignore[assignment]
    return seen


def entries(n: int) -> dict[str, dict[str, str]]:
    keys = {f"helper_{i}": f"def helper_{i}(x):\n    return x + {i}\n" for i in range(n)}
    module = "".join(f"import mod_{i}\n" for i in range(n)) + "".join(
        f"def extra_{i}():\n    return {i}\n" for i in range(n))
    methods = {"Box": "class Box:\n    pass\n"} | {f"Box.m_{i}": f"def m_{i}(self):\n    return {i}\n"
                                                  for i in range(n)}
    return {"helper keys": keys, "<module> statements": {"<module>": module}, "methods of one class": methods}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    args = parser.parse_args()
    parses = count_parses()
    print(f"{'shape':<22} {'N':>6} {'seconds':>8} {'ms/N':>6} {'parses':>6}")
    for n in args.keys:
        for shape, entry in entries(n).items():
            parses[0] = 0
            start = time.perf_counter()
            source.splice_functions(GOAL, entry)
            took = time.perf_counter() - start
            print(f"{shape:<22} {n:>6} {took:>8.3f} {1000 * took / n:>6.3f} {parses[0]:>6}")


if __name__ == "__main__":
    main()
