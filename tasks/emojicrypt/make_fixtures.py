"""Write the input fixtures of the emojicrypt task (pairs and embedder settings).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied. Inputs
only: the reference's scores are computed by the probe and stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from emojicrypt.attack import SimulatedDecrypter, attack_dictionary
from emojicrypt.data import TARGET, census_table
from emojicrypt.obfuscate import SEPARATOR, reusable_dictionary

FEATURES = ["age", "workclass", "education", "marital-status", "native country", "blood type", "zip"]
VALUES = ["39", "40", "Private", "State-gov", "Bachelors", "HS-grad", "Never-married", "Married-civ-spouse",
          "United-States", "Cuba", "O+", "AB-", "08540", "Self-emp-not-inc", "👩‍⚕️ nurse", "New York, NY"]


def recover(rng: random.Random, value: str) -> str:
    """A plausible attacker answer for ``value``."""
    kind = rng.randrange(9)
    if kind == 0:
        return value
    if kind == 1:
        return value.lower()
    if kind == 2:
        return rng.choice(["\n", " ", "  ", "\t"]) + value + rng.choice(["\n", " ", ""])
    if kind == 3 and len(value) > 1:
        i = rng.randrange(len(value) - 1)
        return value[:i] + value[i + 1] + value[i] + value[i + 2 :]  # swapped characters
    if kind == 4:
        return rng.choice(VALUES)
    if kind == 5:
        return rng.choice(["", " ", "\n"])  # no answer
    if kind == 6:
        return value + " " + rng.choice(["(approx.)", "years", "maybe"])
    if kind == 7:
        return "x" + SEPARATOR + value  # the separator appears inside the recovered value
    return value[: max(1, len(value) // 2)]


def random_case(rng: random.Random, index: int) -> dict:
    features = rng.sample(FEATURES, rng.randint(1, 4))
    pairs = []
    for feature in features:
        count = rng.randint(1, 5)  # features with different numbers of levels
        for value in rng.sample(VALUES, count):
            if rng.random() < 0.1:
                value = value + SEPARATOR + "extra"  # the separator inside an original value
            original = f"Feature: {feature}{SEPARATOR}{value}"
            recovered = f"Feature: {feature}{SEPARATOR}{recover(rng, value)}"
            pairs.append([original, recovered])
    rng.shuffle(pairs)
    embedder = {"dim": rng.choice([8, 16, 100]), "ngram": rng.choice([2, 3]), "seed": index}
    return {"pairs": pairs, "embedder": embedder}


def census_case(noise: float, seed: int) -> dict:
    dictionary = reusable_dictionary(census_table(), TARGET)
    pairs = attack_dictionary(dictionary, SimulatedDecrypter(noise=noise, seed=seed))
    embedder = {"dim": 100, "ngram": 3, "seed": seed}
    return {"pairs": [list(p) for p in pairs.items()], "embedder": embedder}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2402_05868)
    cases = [random_case(rng, i) for i in range(40)]
    cases += [census_case(noise, seed) for noise, seed in ((0.0, 0), (0.2, 1), (0.6, 2))]
    (out / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
