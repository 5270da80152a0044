"""Obfuscate the toy census table, attack it, and report how much the attacker recovered.

    python evaluate.py [--noise P] [--seed S] [--dim D]

Lower similarity means better privacy. Two reference points are printed as well: an attacker who sees the
plain values (similarity 1) and an attacker who answers with another row's value of the same feature.
"""

from __future__ import annotations

import argparse

from emojicrypt.attack import SimulatedDecrypter, attack_dictionary
from emojicrypt.data import TARGET, census_table
from emojicrypt.embedding import HashingEmbedder
from emojicrypt.metrics import decryption_similarity
from emojicrypt.obfuscate import SEPARATOR, reusable_dictionary


def shuffled_answers(dictionary: dict[str, str]) -> dict[str, str]:
    """Baseline attacker: answers each level with the next known value of the same feature."""
    by_feature: dict[str, list[str]] = {}
    for level in dictionary:
        feature, value = level.split(SEPARATOR, 1)
        by_feature.setdefault(feature, []).append(value)
    out = {}
    for level in dictionary:
        feature, value = level.split(SEPARATOR, 1)
        values = by_feature[feature]
        out[level] = feature + SEPARATOR + values[(values.index(value) + 1) % len(values)]
    return out


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dim", type=int, default=100)
    args = parser.parse_args(argv)

    dictionary = reusable_dictionary(census_table(), TARGET)
    embed = HashingEmbedder(dim=args.dim, seed=args.seed)
    attacked = attack_dictionary(dictionary, SimulatedDecrypter(noise=args.noise, seed=args.seed))
    plain = {level: level for level in dictionary}

    results = {}
    for name, pairs in (("emoji attack", attacked), ("plain text", plain), ("shuffled", shuffled_answers(dictionary))):
        mean, per_feature = decryption_similarity(pairs, embed)
        results[name] = mean
        print(f"{name:>12}: mean cosine similarity {mean:.4f}")
        for feature, score in per_feature.items():
            print(f"{'':>14}{feature:<16}{score:.4f}")
    for level, answer in list(attacked.items())[:6]:
        print(f"  {level!r} -> {dictionary[level]!r} -> {answer!r}")
    return results


if __name__ == "__main__":
    main()
