"""Requirement inputs of a task's environment, read from synthetic original-layout folders."""

from lmrbench.envs.spec import dockerfile_installs, env_spec, requirement_name
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import make_original

DOCKERFILE = """ARG UID
ARG DIR=repo
FROM pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime
WORKDIR /workspace
COPY . .
RUN pip install --upgrade pip setuptools wheel \\
    && pip install --no-cache-dir -r ${DIR}/requirements.txt && pip install peft==0.10.0
RUN pip install --upgrade pip setuptools wheel \\
    && cd ${DIR} \\
    && pip install -e loralib/
RUN pip install "tokenizers>=0.11.1,!=0.11.3,<0.14" --no-deps
RUN mkdir -p /workspace/${DIR}/unit_test/logs
"""

REQUIREMENTS = """# pinned by pip freeze
torch==2.0.1
numpy
nvidia-cublas-cu11==11.11.3.6
einops==0.6.1  # used by the model
transformers>=4.0
pytest
"""


def test_dockerfile_pip_steps(tmp_path):
    (tmp_path / "repo" / "loralib").mkdir(parents=True)
    reqs, files, local = dockerfile_installs(DOCKERFILE, tmp_path, "repo")
    assert reqs == ["peft==0.10.0", "tokenizers>=0.11.1,!=0.11.3,<0.14"]
    assert files == ["repo/requirements.txt"]
    assert local == ["repo/loralib"]


def test_spec_leaves_out_what_the_harness_provides(tmp_path):
    make_original(tmp_path, "25-Ada", {}, {"Dockerfile": DOCKERFILE, "repo/requirements.txt": REQUIREMENTS,
                                          "repo/loralib/setup.py": "from setuptools import setup\nsetup()\n"})
    task = load_tasks(tmp_path).task("25-ada")
    spec = env_spec(task)
    # torch and numpy: provided; the CUDA library: a torch companion; pytest: the harness already satisfies it
    assert spec.requirements == ["einops==0.6.1", "transformers>=4.0", "peft==0.10.0",
                                 "tokenizers>=0.11.1,!=0.11.3,<0.14"]
    assert {"torch==2.0.1", "numpy", "nvidia-cublas-cu11==11.11.3.6", "pytest"} <= set(spec.provided)
    assert spec.local == ["loralib"]
    assert {"torch", "numpy", "scipy", "pandas", "nvidia-cublas-cu11"} <= set(spec.excluded())
    assert spec.sys_path(task.repo_dir) == ["loralib"]


def test_key_follows_the_inputs(tmp_path):
    make_original(tmp_path / "a", "01-A", {}, {"repo/requirements.txt": "einops==0.6.1\n"})
    make_original(tmp_path / "b", "01-A", {}, {"repo/requirements.txt": "einops==0.6.1\n"})
    make_original(tmp_path / "c", "01-A", {}, {"repo/requirements.txt": "einops==0.7.0\n"})
    keys = [env_spec(load_tasks(tmp_path / d).task("01-a")).key() for d in "abc"]
    assert keys[0] == keys[1] != keys[2]


def test_requirement_names_are_normalised():
    assert requirement_name("Sentence_Transformers[train]>=3.4") == "sentence-transformers"
    assert requirement_name("baukit @ git+https://github.com/x/baukit") == "baukit"
    assert requirement_name("not a requirement!") == ""


def test_our_exact_pin_of_a_build_tool_is_installed_a_third_party_one_is_not(tmp_path):
    # alpaca-eval 0.6.6 imports pkg_resources, which the harness's setuptools no longer ships: its info.json pins
    # the setuptools it needs, and that pin must reach the environment; a third-party file's tooling pins do not.
    import json

    from tests.conftest import write_task

    task_dir = write_task(tmp_path / "ours", "toy")
    info = json.loads((task_dir / "info.json").read_text())
    info["requirements"] = ["setuptools==80.9.0", "wheel>=0.40", "einops==0.8.1"]
    (task_dir / "info.json").write_text(json.dumps(info))
    spec = env_spec(load_tasks(tmp_path / "ours").task("toy"))
    assert spec.requirements == ["setuptools==80.9.0", "einops==0.8.1"]
    assert spec.provided == ["wheel>=0.40"]
    make_original(tmp_path / "theirs", "01-A", {}, {"repo/requirements.txt": "setuptools==80.9.0\neinops==0.8.1\n"})
    theirs = env_spec(load_tasks(tmp_path / "theirs").task("01-a"))
    assert theirs.requirements == ["einops==0.8.1"] and theirs.provided == ["setuptools==80.9.0"]
