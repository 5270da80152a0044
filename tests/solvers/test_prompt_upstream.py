"""Standard prompting on an upstream task: targets in several files, one answer block per file."""

from __future__ import annotations

import pytest

from lmrbench.solvers.extract import ExtractionError
from lmrbench.solvers.prompt import extract_files, file_sections
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.upstream import FetchConfig, ensure_task
from tests.upstream_fake import build_wheel, write_recipe

ANSWER = '''Here is my solution.

### `lmrfake/model.py`
```python
def forward(self, values):
    return values, values
```

### `lmrfake/ops.py`
```python
import math

def running_mean(values, decay):
    return [math.fsum(values)]
```
'''


@pytest.fixture
def task(tmp_path):
    wheel = build_wheel(tmp_path / "dist")
    task = load_tasks(write_recipe(tmp_path / "tasks", wheel)).tasks[0]
    repo = ensure_task(task, FetchConfig(cache_dir=tmp_path / "cache", find_links=tmp_path / "dist"))
    return task.model_copy(update={"repo_dir": repo})


def test_each_file_gets_its_own_block(task):
    functions = extract_files(ANSWER, task, task.implementations[0])
    assert set(functions) == {"lmrfake/ops.py", "lmrfake/model.py"}
    assert "math.fsum" in functions["lmrfake/ops.py"]["running_mean"]
    assert "import math" in functions["lmrfake/ops.py"]["<module>"]
    assert "return values, values" in functions["lmrfake/model.py"]["Smoother.forward"]


def test_a_missing_file_names_it(task):
    only_ops = ANSWER.split("### `lmrfake/ops.py`")[1]
    with pytest.raises(ExtractionError, match=r"lmrfake/model\.py"):
        extract_files(only_ops, task, task.implementations[0])


def test_sections_without_headings_are_the_whole_answer():
    assert file_sections("code", ["a.py", "b.py"]) == {"a.py": "code", "b.py": "code"}
