"""Agreement between judges and human annotators: accuracy, macro-F1, Cohen's kappa, confusion matrix; and
between all annotators at once, Fleiss' kappa."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from itertools import combinations
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from lmrbench.jsonl import read_lines
from lmrbench.records import HumanLabel, Judgment, JudgmentStatus

CATEGORIES = (1, 2, 3)
POOLED = "humans (pooled)"
Item = tuple[str, str, int]


class Agreement(BaseModel):
    """Agreement of rater `a` (rows) with rater `b` (columns) on the items both labelled."""

    a: str
    b: str
    n: int
    accuracy: float
    macro_f1: float
    kappa: float
    confusion: list[list[int]]  # confusion[i][j]: a said i+1, b said j+1


class FleissAgreement(BaseModel):
    """Fleiss' kappa of every annotator together, over the items that each of them labelled."""

    annotators: list[str]
    n: int = Field(description="Items labelled by every annotator.")
    observed: float = Field(description="Mean share of agreeing annotator pairs per item (P-bar).")
    expected: float = Field(description="Agreement expected by chance from the pooled category shares (P_e).")
    kappa: float


def load_labels(path: Path) -> list[HumanLabel]:
    """Human labels, one JSON object a line; raises ValueError naming the line and field."""
    out = []
    for n, obj, raw in read_lines(path):
        if obj is None:
            raise ValueError(f"{path}: line {n}: not a JSON object: {raw.strip()[:80]}")
        try:
            out.append(HumanLabel.model_validate(obj))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(map(str, first["loc"]))
            raise ValueError(f"{path}: line {n}: field '{field}': {first['msg']}") from exc
    return out


def confusion(pairs: list[tuple[int, int]]) -> list[list[int]]:
    m = [[0] * len(CATEGORIES) for _ in CATEGORIES]
    for x, y in pairs:
        m[x - 1][y - 1] += 1
    return m


def cohen_kappa(m: list[list[int]]) -> float:
    n = sum(map(sum, m))
    if n == 0:
        return float("nan")
    po = sum(m[i][i] for i in range(len(m))) / n
    pe = sum(sum(m[i]) * sum(row[i] for row in m) for i in range(len(m))) / (n * n)
    return 1.0 if pe == 1 else (po - pe) / (1 - pe)


def macro_f1(m: list[list[int]]) -> float:
    """Mean F1 over the categories that occur in either rater's labels (b taken as the truth)."""
    scores = []
    for c in range(len(m)):
        tp = m[c][c]
        pred = sum(m[c])  # a said c
        true = sum(row[c] for row in m)  # b said c
        if pred == 0 and true == 0:
            continue
        scores.append(2 * tp / (pred + true))
    return sum(scores) / len(scores) if scores else float("nan")


def agreement(name_a: str, a: Mapping[Any, int], name_b: str, b: Mapping[Any, int]) -> Agreement:
    """Agreement on the keys both raters labelled (an item, or an (item, annotator) pair when pooled)."""
    common = sorted(set(a) & set(b), key=str)
    m = confusion([(a[i], b[i]) for i in common])
    n = len(common)
    return Agreement(a=name_a, b=name_b, n=n, accuracy=sum(m[i][i] for i in range(3)) / n if n else float("nan"),
                     macro_f1=macro_f1(m), kappa=cohen_kappa(m), confusion=m)


def _resolve(labels: list[HumanLabel], judged: set[Item]) -> dict[str, dict[Item, int]]:
    """Per annotator; a label with no model applies to every judged candidate of that instance and sample."""
    out: dict[str, dict[Item, int]] = defaultdict(dict)
    for lab in labels:
        if lab.model:
            out[lab.annotator][lab.item_key] = lab.category
        else:
            for item in judged:
                if item[0] == lab.instance_id and item[2] == lab.sample:
                    out[lab.annotator][item] = lab.category
    return out


def agreement_table(judgments: list[Judgment], labels: list[HumanLabel]) -> list[Agreement]:
    """Each judge against each annotator, then each pair of annotators."""
    judges: dict[str, dict[Item, int]] = defaultdict(dict)
    for j in judgments:
        if j.status is JudgmentStatus.OK and j.category is not None:
            judges[j.judge][j.item_key] = j.category
    judged = {i for d in judges.values() for i in d}
    humans = _resolve(labels, judged)
    rows = [agreement(jn, jd, hn, hd) for jn, jd in sorted(judges.items()) for hn, hd in sorted(humans.items())]
    if len(humans) > 1:
        rows += [_pooled(jn, jd, humans) for jn, jd in sorted(judges.items())]
    rows += [agreement(x, humans[x], y, humans[y]) for x, y in combinations(sorted(humans), 2)]
    return rows


def _pooled(judge: str, judged: dict[Item, int], humans: dict[str, dict[Item, int]]) -> Agreement:
    """The judge against every human label at once: one pair per (item, annotator)."""
    pooled = {(item, who): cat for who, labels in humans.items() for item, cat in labels.items()}
    repeated = {(item, who): judged[item] for item, who in pooled if item in judged}
    return agreement(judge, repeated, POOLED, pooled)


def fleiss_kappa(counts: list[list[int]]) -> tuple[float, float, float]:
    """(kappa, observed P-bar, chance P_e) from counts[i][j]: how many raters put item i in category j; every
    item needs the same number of raters, at least two. NaN when there is no item."""
    if not counts:
        return float("nan"), float("nan"), float("nan")
    raters = sum(counts[0])
    if raters < 2 or any(sum(row) != raters for row in counts):
        raise ValueError("Fleiss' kappa needs the same number (at least two) of raters on every item")
    items = len(counts)
    observed = sum((sum(c * c for c in row) - raters) / (raters * (raters - 1)) for row in counts) / items
    shares = [sum(row[j] for row in counts) / (items * raters) for j in range(len(counts[0]))]
    expected = sum(p * p for p in shares)
    kappa = 1.0 if expected == 1 else (observed - expected) / (1 - expected)
    return kappa, observed, expected


def latest_human_labels(labels: list[HumanLabel]) -> dict[str, dict[Item, int]]:
    """Per annotator, each item's latest label (a re-label appends a line; the last one wins)."""
    out: dict[str, dict[Item, int]] = defaultdict(dict)
    for lab in labels:
        out[lab.annotator][lab.item_key] = lab.category
    return dict(out)


def fleiss_agreement(labels: list[HumanLabel]) -> FleissAgreement | None:
    """Fleiss' kappa over the items every annotator labelled; None with fewer than two annotators."""
    humans = latest_human_labels(labels)
    if len(humans) < 2:
        return None
    names = sorted(humans)
    common = sorted(set.intersection(*(set(humans[n]) for n in names)), key=str)
    counts = [[sum(humans[n][item] == c for n in names) for c in CATEGORIES] for item in common]
    kappa, observed, expected = fleiss_kappa(counts)
    return FleissAgreement(annotators=names, n=len(common), observed=observed, expected=expected, kappa=kappa)
