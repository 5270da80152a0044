"""Write the rows as a Hugging Face style dataset: DIR/data/<split>-00000-of-00001.parquet and DIR/README.md, a
dataset card whose YAML front matter declares the splits (`configs`) and the features (`dataset_info`), so
`datasets.load_dataset(DIR)` loads it as it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lmrbench.export.rows import DatasetRow

SOLUTION_COLUMNS = ("golden_file", "reference", "tests", "expected_outputs")
FILE_FIELDS = (("path", "string"), ("content", "string"), ("encoding", "string"))
# (column, feature): "string"/"int64" a value, ("list", x) a list of x, "files" a file map, "messages" a prompt.
COLUMNS: list[tuple[str, Any]] = [
    ("instance_id", "string"), ("task_id", "string"), ("index", "int64"), ("split", "string"),
    ("category", "string"), ("paper_title", "string"), ("paper_url", "string"), ("publication_date", "string"),
    ("year", "int64"), ("instruction", "string"), ("goal_file", "string"), ("targets", ("list", "string")),
    ("repository", "files"), ("method_description", "string"), ("description_source", "string"),
    ("prompt_version", "string"), ("prompt", "messages"),
]
SOLUTION_FEATURES: list[tuple[str, Any]] = [("golden_file", "files"), ("reference", "string"), ("tests", "files"),
                                            ("expected_outputs", "files")]


class ExportResult(BaseModel):
    out: Path
    files: list[Path]
    rows: dict[str, int] = Field(description="Rows per split.")
    with_solutions: bool


def _arrow_type(feature: Any) -> Any:
    import pyarrow as pa

    if feature == "files":
        return pa.list_(pa.struct([(n, pa.string()) for n, _ in FILE_FIELDS]))
    if feature == "messages":
        return pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
    if isinstance(feature, tuple):
        return pa.list_(_arrow_type(feature[1]))
    return {"string": pa.string(), "int64": pa.int64()}[feature]


def _columns(with_solutions: bool) -> list[tuple[str, Any]]:
    return COLUMNS + (SOLUTION_FEATURES if with_solutions else [])


def _record(row: DatasetRow) -> dict[str, Any]:
    data = row.model_dump(mode="json", exclude={"solutions"})
    if row.solutions is not None:
        data |= row.solutions.model_dump(mode="json")
    return data


def _yaml_feature(name: str, feature: Any) -> list[str]:
    head = f"  - name: {name}"
    if feature == "files":
        return [head, "    list:"] + [f"    - name: {n}\n      dtype: {t}" for n, t in FILE_FIELDS]
    if feature == "messages":
        return [head, "    list:", "    - name: role\n      dtype: string", "    - name: content\n      dtype: string"]
    if isinstance(feature, tuple):
        return [head, f"    list: {feature[1]}"]
    return [head, f"    dtype: {feature}"]


def card(counts: dict[str, int], with_solutions: bool, bytes_per_split: dict[str, int]) -> str:
    """The dataset card: YAML front matter (configs, features, splits), then what the columns hold."""
    lines = ["---", "configs:", "- config_name: default", "  data_files:"]
    lines += [f"  - split: {s}\n    path: data/{s}-*" for s in counts]
    lines += ["dataset_info:", "  features:"]
    for name, feature in _columns(with_solutions):
        lines += _yaml_feature(name, feature)
    lines += ["  splits:"] + [f"  - name: {s}\n    num_bytes: {bytes_per_split[s]}\n    num_examples: {n}"
                              for s, n in counts.items()]
    lines += ["task_categories:", "- text-generation", "tags:", "- code", "- lmrbench", "---", ""]
    total = sum(counts.values())
    body = [
        "# lmrbench", "",
        "Implementations masked out of the code of language-modeling papers: a model reads the paper's method "
        "description and the repository and writes the missing functions. Exported by `lmrbench export`; "
        f"{total} implementation(s): " + ", ".join(f"{n} in `{s}`" for s, n in counts.items()) + ".", "",
        "One row per implementation. `repository` is the masked repository as a solver gets it (a list of "
        "`{path, content, encoding}`; `encoding` is `base64` for a file that is not UTF-8 text). `prompt` is the "
        "exact message list of the prompt solver (`prompt_version`). `method_description` is the text that "
        "prompt uses (`description_source` says whether it is the paper's text or the task's description).", "",
        ("This export includes the solutions: `golden_file`, `reference` (the reference's target definitions), "
         "`tests` (the hidden tests) and `expected_outputs`. Do not show them to a model being evaluated."
         if with_solutions else
         "Golden files, hidden tests and expected outputs are not included (`lmrbench export --with-solutions` "
         "adds them); score predictions with `lmrbench evaluate`."), "",
        "```python", "import datasets", 'ds = datasets.load_dataset("path/to/this/folder")  # splits: '
        + ", ".join(counts), "```", "",
    ]
    return "\n".join(lines + body)


def write_dataset(rows: list[DatasetRow], out: Path, with_solutions: bool) -> ExportResult:
    """One parquet file per split under out/data, and out/README.md; raises ValueError for no rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not rows:
        raise ValueError("nothing to export: no implementation selected")
    schema = pa.schema([(name, _arrow_type(f)) for name, f in _columns(with_solutions)])
    by_split: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_split.setdefault(row.split, []).append(_record(row))
    (out / "data").mkdir(parents=True, exist_ok=True)
    for old in (out / "data").glob("*-00000-of-00001.parquet"):
        old.unlink()  # a split from an earlier export (perhaps with solutions) must not linger beside this one
    files, sizes = [], {}
    for split, recs in by_split.items():
        path = out / "data" / f"{split}-00000-of-00001.parquet"
        table = pa.Table.from_pylist(recs, schema=schema)
        pq.write_table(table, path, compression="zstd")
        files.append(path)
        sizes[split] = table.nbytes
    counts = {s: len(r) for s, r in by_split.items()}
    (out / "README.md").write_text(card(counts, with_solutions, sizes), encoding="utf-8")
    return ExportResult(out=out, files=[*files, out / "README.md"], rows=counts, with_solutions=with_solutions)
