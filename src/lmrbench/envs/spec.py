"""What a task's environment must hold, read from its requirement inputs: the repository's requirements.txt, the
`pip install` steps of its Dockerfile (packages, `-r` files, local folders), and our layout's `requirements`.

torch, numpy, scipy and pandas are provided by the harness (its CPU builds; a task env never downloads them), and
a requirement the harness's own environment already satisfies is not installed again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import shlex
import sys
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from pydantic import BaseModel, Field

from lmrbench.tasks.schema import Layout, Task

PROVIDED = ("torch", "numpy", "scipy", "pandas")
# The CUDA libraries and compilers that come with a GPU build of torch: useless beside the harness's CPU torch, and
# gigabytes to download; pip-freeze style requirement files pin them.
TORCH_COMPANIONS = re.compile(r"^(nvidia-.+|triton|pytorch-triton|cuda-python|cuda-bindings)$")
TOOLING = {"pip", "setuptools", "wheel"}
SPEC_VERSION = "4"  # 2: requirements that conflict with the harness are substituted; 3: versions held to that
# resolution (envs/compat.py); 4: a requirement naming the repository's own package is not installed
OPTIONS_WITH_VALUE = {"-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
                      "--target", "-t", "--prefix", "--root", "--cache-dir", "--trusted-host", "--platform"}
PIP_INSTALL = re.compile(r"^(?:python3?\s+-m\s+)?pip3?\s+install\s+(.*)$")
VAR = re.compile(r"\$\{(\w+)\}|\$(\w+)")


class EnvSpec(BaseModel):
    """The inputs of one task's environment; `key()` names its cached folder."""

    task_id: str
    requirements: list[str] = Field(description="Requirement strings to install, in the order first met.")
    provided: list[str] = Field(default_factory=list, description="Requirements left out: the harness provides them.")
    local: list[str] = Field(default_factory=list, description="Local package folders (relative to the "
                             "repository) that the Dockerfile pip-installs.")
    unreadable: list[str] = Field(default_factory=list, description="Requirement text that does not parse.")
    own: list[str] = Field(default_factory=list, description="Requirements that name a package the repository "
                           "itself holds (its src/ or top folder): imported from the workspace, where the prediction "
                           "is, never installed from the index (whose release would shadow it).")
    local_digest: str = Field(default="", description="Hash of the local packages' build files.")
    python: str = Field(default=f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}")
    harness: dict[str, str] = Field(default_factory=dict, description="Versions of the provided packages.")

    def key(self) -> str:
        body = self.model_dump(exclude={"task_id"}) | {"v": SPEC_VERSION}
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()

    def excluded(self) -> list[str]:
        """Project names no resolution may install: the provided packages and the torch companions named."""
        named = [requirement_name(r) for r in self.provided]
        return list(dict.fromkeys([*PROVIDED, *(n for n in named if TORCH_COMPANIONS.match(n))]))

    def sys_path(self, repo: Path) -> list[str]:
        """Repository folders to put first on sys.path, so that local packages (and the repository's own package
        that a requirement names) come from the workspace."""
        local = [f"{p}/src" if (repo / p / "src").is_dir() else p for p in self.local]
        own = [f for f in (own_folder(repo, r) for r in self.own) if f and f != "."]
        return list(dict.fromkeys([*local, *own]))


def requirement_name(text: str) -> str:
    """Normalised project name of a requirement string ('' when it has none, e.g. a URL)."""
    try:
        return re.sub(r"[-_.]+", "-", Requirement(text).name).lower()
    except InvalidRequirement:
        return ""


def own_folder(repo: Path, text: str) -> str | None:
    """The repository folder ('src' or '.') holding the package a requirement names, when the repository has it."""
    name = requirement_name(text).replace("-", "_")
    for base in ("src", "."):
        if name and (repo / base / name / "__init__.py").is_file():
            return base
    return None


def _exact_pin(text: str) -> bool:
    """`name==version`: a task's own info.json pins a build tool (setuptools, say) only when its package needs that
    release at run time (a release importing `pkg_resources`, which newer setuptools no longer ship)."""
    try:
        spec = list(Requirement(text).specifier)
    except InvalidRequirement:
        return False
    return len(spec) == 1 and spec[0].operator == "=="


def _harness_satisfies(text: str) -> bool:
    try:
        req = Requirement(text)
        version = importlib.metadata.version(req.name)
    except (InvalidRequirement, importlib.metadata.PackageNotFoundError):
        return False
    return not req.url and req.specifier.contains(version, prereleases=True)


def read_requirements(path: Path, seen: set[Path] | None = None) -> tuple[list[str], list[str]]:
    """(requirements, local folders relative to the file's folder) of a requirements file; `-r` is followed
    within the file's folder tree only."""
    seen = seen or set()
    if path in seen or not path.is_file() or path.is_symlink():
        return [], []
    seen.add(path)
    reqs, local = [], []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ")):
            sub = (path.parent / line.split(None, 1)[1].strip()).resolve()
            if sub.is_relative_to(path.parent.resolve()):
                more, more_local = read_requirements(sub, seen)
                reqs += more
                local += more_local
        elif line.startswith(("-e ", "--editable ")):
            local.append(line.split(None, 1)[1].strip())
        elif not line.startswith("-"):
            reqs.append(line)
    return reqs, local


def _dockerfile_lines(text: str) -> list[str]:
    return [ln.strip() for ln in re.sub(r"\\\s*\n", " ", text).splitlines() if ln.strip()]


def _args(lines: list[str], repo_name: str) -> dict[str, str]:
    out = {"DIR": repo_name}
    for ln in lines:
        m = re.match(r"ARG\s+(\w+)=(\S+)", ln)
        if m:
            out[m.group(1)] = m.group(2).strip("\"'")
    return out


def _pip_tokens(tokens: list[str], cwd: str, task_root: Path) -> tuple[list[str], list[str], list[str]]:
    """(requirements, -r files, local folders) of one `pip install` (paths relative to the task folder)."""
    reqs, files, local = [], [], []
    it = iter(tokens)
    for tok in it:
        if tok in ("-r", "--requirement"):
            files.append(str(Path(cwd) / next(it, "")))
        elif tok in ("-e", "--editable"):
            local.append(str(Path(cwd) / next(it, "")))
        elif tok in OPTIONS_WITH_VALUE:
            next(it, None)
        elif tok.startswith("-"):
            continue
        elif tok.startswith((".", "/")) or (task_root / cwd / tok).is_dir():
            local.append(str(Path(cwd) / tok))
        else:
            reqs.append(tok)
    return reqs, files, local


def dockerfile_installs(text: str, task_root: Path, repo_name: str) -> tuple[list[str], list[str], list[str]]:
    """(requirements, -r files, local folders) of a Dockerfile's RUN pip steps; paths relative to the task folder
    (the original images COPY the task folder to their WORKDIR)."""
    lines = _dockerfile_lines(text)
    args = _args(lines, repo_name)
    reqs, files, local = [], [], []
    for ln in lines:
        if not ln.upper().startswith("RUN "):
            continue
        body = VAR.sub(lambda m: args.get(m.group(1) or m.group(2), ""), ln[4:])
        cwd = "."
        for step in re.split(r"&&|;|\|\|", body):
            step = step.strip()
            if step.startswith("cd "):
                cwd = str(Path(cwd) / step[3:].strip())
                continue
            m = PIP_INSTALL.match(step)
            if not m:
                continue
            try:
                tokens = shlex.split(m.group(1))
            except ValueError:
                continue
            r, f, loc = _pip_tokens(tokens, cwd, task_root)
            reqs += [x for x in r if requirement_name(x) not in TOOLING]
            files += f
            local += loc
    return reqs, files, local


def _under_repo(task: Task, rel_to_task: str) -> str | None:
    """A path relative to the task folder, as a path relative to the repository (None when outside it)."""
    path = (task.root / rel_to_task).resolve()
    repo = task.repo_dir.resolve()
    return str(path.relative_to(repo)) if path.is_relative_to(repo) else None


def _local_digest(task: Task, local: list[str]) -> str:
    h = hashlib.sha256()
    for rel in local:
        for name in ("setup.py", "setup.cfg", "pyproject.toml", "requirements.txt"):
            path = task.repo_dir / rel / name
            if path.is_file():
                h.update(f"{rel}/{name}".encode() + path.read_bytes())
    return h.hexdigest()


def _inputs(task: Task) -> tuple[list[str], list[str]]:
    """All requirement strings and local folders (relative to the repository) a task names."""
    if task.layout is Layout.LMRBENCH:
        return list(task.requirements), []
    reqs, repo_local = read_requirements(task.repo_dir / "requirements.txt")
    local = [str(Path(task.repo_dir.name) / m) for m in repo_local]
    docker = task.root / "Dockerfile"
    if docker.is_file():
        d_reqs, d_files, d_local = dockerfile_installs(docker.read_text(encoding="utf-8", errors="replace"),
                                                       task.root, task.repo_dir.name)
        reqs += d_reqs
        for f in d_files:
            more, more_local = read_requirements((task.root / f).resolve())
            reqs += more
            local += [str(Path(f).parent / m) for m in more_local]
        local += d_local
    rel_local = [r for r in (_under_repo(task, p) for p in local) if r is not None]
    return reqs, list(dict.fromkeys(rel_local))


def env_spec(task: Task) -> EnvSpec:
    """The environment spec of one task."""
    raw, local = _inputs(task)
    wanted, provided, unreadable, own = [], [], [], []
    for text in dict.fromkeys(raw):
        name = requirement_name(text)
        if not name and "://" not in text:
            unreadable.append(text)
        elif task.layout is Layout.ORIGINAL and own_folder(task.repo_dir, text) is not None:
            own.append(text)
        elif name in PROVIDED or TORCH_COMPANIONS.match(name) or _harness_satisfies(text):
            provided.append(text)
        elif name in TOOLING and not (task.layout is Layout.LMRBENCH and _exact_pin(text)):
            provided.append(text)  # build tooling a third-party file names; our info.json may pin it exactly
        else:
            wanted.append(text)
    harness = {}
    for name in PROVIDED:
        try:
            harness[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            harness[name] = ""
    return EnvSpec(task_id=task.task_id, requirements=wanted, provided=provided, local=local, own=own,
                   unreadable=unreadable, local_digest=_local_digest(task, local), harness=harness)
