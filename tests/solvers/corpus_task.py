"""The answer corpus (`corpus/cases/*.txt`) and the synthetic task its goal files belong to.

A case file is a few `key: value` header lines (`goal`, `shape`, optionally `crlf: yes`), then
`=== answer ===` and the model's answer, then either `=== expected ===` and the exact spliced goal file, or
`=== error ===` and a fragment of the reason the prediction is invalid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
TASK = "corpus"
CRLF_TASK = "corpus-crlf"
# goal name -> (implementation index, targets)
GOALS: dict[str, tuple[int, list[str]]] = {
    "losses": (1, ["pairwise_loss"]),
    "alloc": (2, ["RankAllocator.update"]),
    "stats": (3, ["RunningStats.push", "RunningStats.mean", "RunningStats.variance"]),
}
ANSWER, EXPECTED, ERROR = "=== answer ===\n", "=== expected ===\n", "=== error ===\n"


@dataclass(frozen=True)
class Case:
    name: str
    goal: str
    shape: str
    answer: str
    expected: str | None
    error: str | None
    crlf: bool

    @property
    def instance_id(self) -> str:
        return f"{CRLF_TASK if self.crlf else TASK}/{GOALS[self.goal][0]}"

    @property
    def goal_file(self) -> str:
        return f"rankloss/{self.goal}.py"


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def parse_case(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(ANSWER, 1)
    fields = dict(line.split(": ", 1) for line in head.strip().splitlines())
    marker = EXPECTED if EXPECTED in rest else ERROR
    answer, tail = rest.split(marker, 1)
    crlf = fields.get("crlf") == "yes"
    expected = (_crlf(tail) if crlf else tail) if marker == EXPECTED else None
    return Case(name=path.stem, goal=fields["goal"], shape=fields["shape"], answer=answer.removesuffix("\n"),
                expected=expected, error=tail.strip() if marker == ERROR else None, crlf=crlf)


def load_cases() -> list[Case]:
    return [parse_case(p) for p in sorted((CORPUS / "cases").glob("*.txt"))]


def goal_text(goal: str, crlf: bool = False) -> str:
    text = (CORPUS / "goals" / f"{goal}.py.txt").read_text(encoding="utf-8")
    return _crlf(text) if crlf else text


def write_corpus_task(root: Path, task_id: str = TASK, crlf: bool = False) -> Path:
    """A complete task in our layout: one repository with the three goal files, one implementation each."""
    task = root / task_id
    pkg = task / "rank-repo" / "rankloss"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (task / "golden_files").mkdir()
    (task / "tests").mkdir()
    impls = []
    for goal, (index, targets) in GOALS.items():
        (pkg / f"{goal}.py").write_bytes(goal_text(goal, crlf).encode())
        (task / "golden_files" / f"{goal}_golden.py").write_text((CORPUS / "golden" / f"{goal}.py.txt").read_text())
        (task / "tests" / f"test_{goal}.py").write_text((CORPUS / "tests" / f"test_{goal}.py.txt").read_text())
        impls.append({"index": index, "instruction": f"Implement {', '.join(targets)} in rankloss/{goal}.py.",
                      "category": "Training Objectives & Optimization Techniques",
                      "goal_file": f"rankloss/{goal}.py", "goal_function": targets[0].split(".")[-1],
                      "targets": targets, "golden_file": f"golden_files/{goal}_golden.py",
                      "unit_test_file": f"tests/test_{goal}.py"})
    (task / "paper.md").write_text("# Ranking losses\n\nPairwise losses, rank budgets and streaming statistics.\n")
    info = {"format": "lmrbench/1", "task_id": task_id, "paper_name": "Synthetic ranking methods",
            "paper_url": "https://example.org/rank", "year": 2024, "publication_date": "2024-01-02",
            "repo_folder_name": "rank-repo", "timeout_s": 20, "requirements": [], "implementations": impls}
    (task / "info.json").write_text(json.dumps(info, indent=2))
    return task
