"""Regenerate tests/fixtures from the reference: python make_fixtures.py OUT_DIR (cwd = repo with reference).

Writes parses and options only: the reference's tables are computed by the probe and stored outside the
sandbox, in tests/expected/."""
import json
import random
import sys
from pathlib import Path

from synchain.parse import DependencyParse

UPOS = ["ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT", "VERB", "X"]
DEPS = ["nsubj", "dobj", "amod", "advmod", "det", "prep", "pobj", "punct", "cc", "conj", "acomp", "compound",
        "aux", "neg", "nmod:poss", "xcomp"]


def random_parse(rng: random.Random, n: int) -> DependencyParse:
    order = list(range(n))
    rng.shuffle(order)
    heads = [0] * n
    root = order[0]
    heads[root] = root
    for k in range(1, n):  # attach each token to one placed before it in `order`: always a tree
        heads[order[k]] = order[rng.randrange(k)]
    alphabet = "abcdefghijklmnopqrstuvwxyzéü'-"
    tokens = ["".join(rng.choice(alphabet) for _ in range(rng.choice([1, 1, 2, 3, 5, 8, 12, 14]))) for _ in range(n)]
    pos = [rng.choice(UPOS) for _ in range(n)]
    for i in range(n):
        if pos[i] == "PUNCT":
            tokens[i] = rng.choice([".", ",", "!", "?", ";", "--"])
    deps = ["ROOT" if heads[i] == i else ("punct" if pos[i] == "PUNCT" else rng.choice(DEPS)) for i in range(n)]
    return DependencyParse(tokens, heads, deps, pos)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2025)
    cases = []
    for i, n in enumerate([1, 2, 3, 5, 8, 9, 10, 11, 15, 23, 40, 99, 100, 104, 7, 12, 6, 30]):
        parse = random_parse(rng, n)
        skip = i % 3 == 2
        if i == 14:  # a punctuation root whose row is skipped while its dependents still name it
            parse = DependencyParse(parse.tokens, parse.heads, parse.deps,
                                    ["PUNCT" if parse.heads[j] == j else p for j, p in enumerate(parse.pos)])
            skip = True
        cases.append({"tokens": parse.tokens, "heads": parse.heads, "deps": parse.deps, "pos": parse.pos,
                      "skip_punct": skip})
    (out / "table_cases.json").write_text(json.dumps(cases, ensure_ascii=False, indent=0))
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
