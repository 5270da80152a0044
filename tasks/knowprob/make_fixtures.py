"""Regenerate tests/fixtures from the reference implementations.

Run as ``python make_fixtures.py OUT_DIR`` with the current directory set to a copy
of the repository with the golden files applied (and on PYTHONPATH). Everything is
seeded; running it twice writes identical files. Inputs and options only: the probes compute
the outputs, and the reference's are stored outside the sandbox, in tests/expected/.

Writes one fixture file per implementation:
    classify.json     knowprob/1  classify_by_relation_group
    overlap.json      knowprob/2  jaro_winkler_similarity, drop_subject_object_overlap
    counter.json      knowprob/3  build_counter_knowledge
    in_prompt.json    knowprob/4  parametric_object_absent
    groups.json       knowprob/5  relation_group_overlap
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import torch

SYLLABLES = ["va", "lor", "kes", "tin", "mar", "do", "ri", "sel", "ba", "nu", "os", "pel"]


def name(rng: random.Random, k: int | None = None) -> str:
    k = rng.randint(1, 3) if k is None else k
    return "".join(rng.choice(SYLLABLES) for _ in range(k)).capitalize()


def vary_surface(rng: random.Random, s: str) -> str:
    """Same entity, different surface form (case / surrounding or inner whitespace)."""
    r = rng.random()
    if r < 0.3:
        return s.upper()
    if r < 0.5:
        return "  " + s.lower() + " "
    if r < 0.6:
        return s.replace(" ", "   ")
    return s


def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


# ----------------------------------------------------------------------------- 1: classify
def classify_cases() -> list[dict]:
    gen = torch.Generator().manual_seed(1234)
    rng = np.random.default_rng(1234)
    cases = []
    for c in range(40):
        n_groups = int(rng.integers(2, 5))
        names = [f"group_{chr(97 + int(i))}" for i in rng.permutation(8)[:n_groups]]
        n = int(rng.integers(10, 48))
        d = int(rng.integers(1, 7))
        groups = [names[int(i)] for i in rng.integers(n_groups, size=n)]
        for i, g in enumerate(names):  # every group present at least twice
            groups[2 * i] = groups[2 * i + 1] = g
        direction = torch.randn(d, generator=gen, dtype=torch.float64)
        y = torch.randint(0, 2, (n,), generator=gen)
        noise = torch.randn(n, d, generator=gen, dtype=torch.float64)
        signal = float(rng.uniform(0.0, 2.0))
        x = noise + signal * (2.0 * y[:, None].double() - 1.0) * direction
        # features of very different scales and offsets: standardisation matters
        scale = torch.exp(torch.randn(d, generator=gen, dtype=torch.float64) * 2.0)
        offset = torch.randn(d, generator=gen, dtype=torch.float64) * 5.0
        x = x * scale + offset
        labels = ["PK" if int(v) == 1 else "CK" for v in y]
        nd = rng.random(n) < rng.uniform(0.0, 0.3)
        labels = ["ND" if z else lab for z, lab in zip(nd, labels)]
        if c % 10 == 3:  # one group holds every CK: held out, its training set lacks CK
            only = names[0]
            labels = ["CK" if g == only and lab != "ND" else ("PK" if lab != "ND" else lab)
                      for g, lab in zip(groups, labels)]
            labels[2 * 0] = "CK"
        if c % 10 == 7:  # a group made only of ND examples disappears
            labels = ["ND" if g == names[-1] else lab for g, lab in zip(groups, labels)]
        l2 = float([1e-3, 1e-2, 1e-1, 1.0][c % 4])
        max_iter = 2 if c % 9 == 5 else 100
        tol = 1e-10
        cases.append({
            "features": x.tolist(),
            "labels": labels,
            "groups": groups,
            "l2": l2,
            "max_iter": max_iter,
            "tol": tol,
        })
    return cases


# ----------------------------------------------------------------------------- 2: overlap
def random_string(rng: random.Random, alphabet: str, lo: int, hi: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def perturb(rng: random.Random, s: str) -> str:
    s = list(s)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if op < 0.35 and len(s) >= 2:  # swap two nearby characters
            i = rng.randrange(len(s) - 1)
            j = min(len(s) - 1, i + rng.randint(1, 3))
            s[i], s[j] = s[j], s[i]
        elif op < 0.6:
            s.insert(rng.randint(0, len(s)), rng.choice("abcdexyz"))
        elif op < 0.8 and s:
            del s[rng.randrange(len(s))]
        elif s:
            s[rng.randrange(len(s))] = rng.choice("abcdexyz")
    return "".join(s)


def jw_pairs() -> list[dict]:
    rng = random.Random(2)
    pairs = []
    for i in range(700):
        kind = i % 5
        if kind == 0:
            a = random_string(rng, "abc", 0, 10)
            b = random_string(rng, "abc", 0, 10)
        elif kind == 1:
            a = random_string(rng, "abcdef", 1, 14)
            b = perturb(rng, a)
        elif kind == 2:
            a = name(rng).lower()
            b = perturb(rng, a) if rng.random() < 0.7 else name(rng).lower()
        elif kind == 3:  # long common prefixes (prefix cap) and length differences
            p = random_string(rng, "abcd", 3, 7)
            a = p + random_string(rng, "abcd", 0, 6)
            b = p + random_string(rng, "abcd", 0, 6)
        else:
            a = random_string(rng, "ab", 1, 16)
            b = random_string(rng, "ab", 1, 16)
        pw, mp = 0.1, 4
        if i % 7 == 6:
            pw = rng.choice([0.05, 0.2, 0.25])
            mp = rng.choice([0, 2, 6])
        pairs.append({"a": a, "b": b, "prefix_weight": pw, "max_prefix": mp})
    return pairs


def overlap_tables() -> list[dict]:
    rng = random.Random(3)
    cases = []
    for c in range(30):
        rows = []
        for i in range(rng.randint(1, 14)):
            obj = name(rng)
            kind = rng.random()
            if kind < 0.2:
                subject = f"{vary_surface(rng, obj)} {name(rng, 2)}"   # object is a word of the subject
            elif kind < 0.35:
                subject = f"{name(rng, 1)} {perturb(rng, obj.lower())}"  # a near-copy of the object
            elif kind < 0.45:
                subject = perturb(rng, obj.lower()) + name(rng, 1).lower()
            elif kind < 0.55:
                subject = vary_surface(rng, obj)
            elif kind < 0.6:
                subject = f"{name(rng)} {name(rng)} {obj}{name(rng, 1).lower()}"
            else:
                subject = f"{name(rng)}" + (f" {name(rng)}" if rng.random() < 0.4 else "")
            rows.append({"subject": subject, "parametric_object": vary_surface(rng, obj),
                         "relation": rng.choice(["P17", "P176", "P37"]), "row_id": i})
        index = rng.sample(range(100, 200), len(rows))
        threshold = rng.choice([0.8, 0.85, 0.9, 0.9, 0.95])
        cases.append({"rows": rows, "index": index, "threshold": threshold})
    # custom column names
    rows = [{"s": "Valor Motors", "o": "valor", "row_id": 0}, {"s": "Kestin", "o": "Valor", "row_id": 1},
            {"s": "Marta Selnu", "o": "Marat", "row_id": 2}, {"s": "Dosel", "o": "Dosell", "row_id": 3},
            {"s": "Lorkes Tin", "o": "Lorks", "row_id": 4}, {"s": "Banumar", "o": "Numar", "row_id": 5},
            {"s": "Nuselva", "o": "Selvanu", "row_id": 6}]
    custom = {"rows": rows, "index": [5, 3, 9, 1, 0, 7, 2], "threshold": 0.85}
    return cases, custom


# ----------------------------------------------------------------------------- 3: counter
def counter_cases() -> list[dict]:
    rng = random.Random(4)
    cases = []
    for c in range(30):
        rel_ids = rng.sample(["R1", "R2", "R3", "R4", "R5"], rng.randint(1, 4))
        templates = {r: rng.choice(["{subject} lives in {object}.",
                                    "The language of {subject} is {object}.",
                                    "{subject} was made by {object}.",
                                    "{subject} plays the {object}."]) for r in rel_ids}
        pools = {}
        for r in rel_ids:
            k = rng.choice([1, 2, 3, 4, 6])  # k == 1: no counter object possible
            pools[r] = sorted({name(rng) for _ in range(k)})
        rows = []
        for i in range(rng.randint(1, 16)):
            r = rng.choice(rel_ids)
            obj = rng.choice(pools[r])
            if rng.random() < 0.15:
                obj = vary_surface(rng, obj)  # same entity, other surface form
            rows.append({"subject": name(rng) + (" " + name(rng) if rng.random() < 0.3 else ""),
                         "relation": r, "parametric_object": obj, "row_id": i})
        index = rng.sample(range(1000), len(rows))
        seed = rng.randrange(10_000)
        cases.append({"rows": rows, "index": index, "seed": seed, "templates": templates})
    return cases


def counter_default_templates_case() -> dict:
    rows = [
        {"subject": "Kestin", "relation": "P19", "parametric_object": "Valor"},
        {"subject": "Dosel", "relation": "P19", "parametric_object": "Marnu"},
        {"subject": "Ribanu", "relation": "P37", "parametric_object": "Pelos"},
        {"subject": "Tinva", "relation": "P19", "parametric_object": "Lorkes"},
        {"subject": "Numar", "relation": "P37", "parametric_object": "Selva"},
        {"subject": "Osri", "relation": "P176", "parametric_object": "Banu"},
    ]
    return {"rows": rows, "seed": 11}


# ----------------------------------------------------------------------------- 4: in prompt
def in_prompt_cases() -> list[dict]:
    rng = random.Random(5)
    vocab = ["Valor", "Kestin", "is", "located", "in", "the", "New", "York", "Paris", "Parisian",
             "Saint", "Etienne", "language", "of", "Marnu", "Lorkes", "born", "FRANCE", "français",
             "Straße", "Ribanu", "São", "Paulo"]
    seps = [" ", " ", " ", ", ", ". ", "-", " (", ") ", "  ", "'s ", "\n"]
    cases = []
    for i in range(400):
        words = [rng.choice(vocab) for _ in range(rng.randint(0, 14))]
        prompt = ""
        for w in words:
            prompt += w + rng.choice(seps)
        prompt = prompt.strip() + rng.choice(["", ".", " is"])
        kind = i % 8
        if kind == 0 and words:  # a contiguous run of the prompt's words, other surface form
            a = rng.randrange(len(words))
            b = min(len(words), a + rng.randint(1, 3))
            obj = rng.choice([" ", "-", "  "]).join(words[a:b])
            obj = obj.upper() if rng.random() < 0.3 else obj.lower() if rng.random() < 0.3 else obj
        elif kind == 1 and words:  # a prefix or suffix of a word only
            w = rng.choice(words)
            obj = w[: max(1, len(w) - 2)] if rng.random() < 0.5 else w[2:] or w
        elif kind == 2 and len(words) >= 3:  # prompt words in a different order / not adjacent
            obj = " ".join(rng.sample(words, 2))
        elif kind == 3:
            obj = rng.choice(["", "   ", ".", "--", "?!", "Valor.", " valor ", "N/A"])
        elif kind == 4 and words:  # the whole prompt or longer
            obj = " ".join(words) + rng.choice(["", " Valor", " extra words"])
        elif kind == 5:
            obj = rng.choice(["STRASSE", "straße", "Sao Paulo", "são paulo", "SÃO-PAULO", "Francais"])
        else:
            obj = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 2)))
        cases.append({"prompt": prompt, "object": obj})
    return cases


# ----------------------------------------------------------------------------- 5: groups
def groups_cases() -> list[dict]:
    rng = random.Random(6)
    cases = []
    for c in range(30):
        n_groups = rng.randint(1, 5)
        group_names = rng.sample(["location", "language", "organisation", "profession",
                                  "music", "sport"], n_groups)
        pool = sorted({name(rng) for _ in range(rng.randint(3, 14))}) + ["New York", "Saint Valor"]
        rows = []
        for i in range(rng.randint(1, 22)):
            subj = vary_surface(rng, rng.choice(pool))
            obj = vary_surface(rng, rng.choice(pool))
            r = rng.random()
            if r < 0.05:
                subj = None
            elif r < 0.1:
                obj = None
            elif r < 0.13:
                obj = "   "
            elif r < 0.16:
                subj = ""
            rows.append({"relation_group": rng.choice(group_names), "subject": subj,
                         "parametric_object": obj, "object": rng.choice(pool), "row_id": i})
        cases.append({"rows": rows})
    return cases


def main() -> None:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "classify.json", {"cases": classify_cases()})
    tables, custom = overlap_tables()
    write_json(out_dir / "overlap.json", {"jw_pairs": jw_pairs(), "tables": tables,
                                          "custom_columns": custom})
    write_json(out_dir / "counter.json", {"cases": counter_cases(),
                                          "default_templates": counter_default_templates_case()})
    write_json(out_dir / "in_prompt.json", {"cases": in_prompt_cases()})
    write_json(out_dir / "groups.json", {"cases": groups_cases()})


if __name__ == "__main__":
    main()
