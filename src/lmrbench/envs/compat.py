"""Requirements that do not fit the harness's torch, numpy, scipy or pandas, replaced by a release that does.

A task environment is layered over the harness's own packages and never installs torch, numpy, scipy or pandas
(`--excludes`), so the installer does not see that `torchvision==0.15.2` wants torch 2.0.1: it installs it, and
the tests then fail at import (`incompatible_package`). Here each requirement set is first resolved *with* the
harness's versions as constraints (`uv pip compile`, metadata only, nothing installed): a requirement whose pin
conflicts with them is relaxed to its project name, and the release the resolver then picks (the torchvision
built for the harness's torch, say) is installed instead. After the install, every requirement is imported once;
one that fails to import (a binary built against NumPy 1.x, an API the harness's SciPy removed) is replaced the
same way when its newest compatible release imports. Each substitution is recorded: in the environment's record
and in every result graded in it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from pydantic import BaseModel, Field

from lmrbench.envs.spec import PROVIDED, EnvSpec, requirement_name

Uv = Callable[[list[str], float], subprocess.CompletedProcess[str]]  # uv with these arguments, within this many s
Installer = Callable[[list[str]], subprocess.CompletedProcess[str]]
MAX_ROUNDS = 12  # resolutions tried per environment: each relaxes or leaves out one requirement
RESOLVED = "lmrbench-resolved.txt"  # the resolution made with the harness's versions: the install's constraints
SKIP_MODULES = {"tests", "test", "docs", "examples", "benchmarks", "__pycache__"}
IMPORT_CHECK = """import importlib, json, sys
bad = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException as exc:
        bad[name] = f"{type(exc).__name__}: {exc}"[:300]
print("LMRBENCH-IMPORTS " + json.dumps(bad))
"""


class Substitution(BaseModel):
    """A requirement replaced by a release that fits the harness."""

    requirement: str = Field(description="As the task asks for it, e.g. 'torchvision==0.15.2'.")
    installed: str = Field(description="What was installed instead, e.g. 'torchvision==0.28.0'.")
    reason: str = Field(description="The resolver's conflict with the harness, or the import failure.")

    def line(self) -> str:
        return f"{self.requirement} -> {self.installed}"


def harness_constraints(spec: EnvSpec) -> str:
    """The harness's provided packages as exact pins (a local build tag such as '+cpu' dropped)."""
    return "".join(f"{name}=={version.split('+')[0]}\n" for name, version in spec.harness.items() if version)


def _relaxed(text: str) -> str | None:
    """The requirement without its version specifier (extras and marker kept); None when it has none."""
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    if not req.specifier or req.url:
        return None
    return _with_version(req, None)


def _with_version(req: Requirement, version: str | None) -> str:
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    pin = f"=={version}" if version else ""
    return f"{req.name}{extras}{pin}" + (f"; {req.marker}" if req.marker else "")


def _pins(output: str) -> dict[str, str]:
    out = {}
    for line in output.splitlines():
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line.strip())
        if m:
            out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
    return out


def _compile(reqs: list[str], tmp: Path, uv: Uv, timeout_s: float) -> subprocess.CompletedProcess[str]:
    (tmp / "lmrbench-compat.in").write_text("".join(f"{r}\n" for r in reqs), encoding="utf-8")
    return uv(["pip", "compile", str(tmp / "lmrbench-compat.in"), "--python", sys.executable, "--constraints",
               str(tmp / "lmrbench-harness.txt"), "--no-header", "--no-annotate", "--quiet"], max(1.0, timeout_s))


def _harness_conflict(stderr: str) -> bool:
    """The resolver's error involves a harness package's pinned version."""
    return any(re.search(rf"(?<![\w-]){p}==", stderr.lower()) for p in PROVIDED)


def _named(stderr: str, reqs: list[str]) -> int | None:
    """Index of the requirement the resolver's error names first."""
    text = stderr.lower()
    found = []
    for i, req in enumerate(reqs):
        name = requirement_name(req)
        for form in {name, name.replace("-", "_")} if name else set():
            m = re.search(rf"(?<![\w.-]){re.escape(form)}(?![\w-])", text)
            if m:
                found.append((m.start(), i))
    return min(found)[1] if found else None


def _cause(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    said = [ln for ln in lines if "depends on" in ln] or lines
    return (said[0] if said else "conflicts with the harness's packages")[:300]


def resolve_compatible(spec: EnvSpec, tmp: Path, uv: Uv, budget_s: float = 900
                       ) -> tuple[list[str], list[Substitution]]:
    """The requirements to install: each one whose pin conflicts with the harness's provided packages replaced by
    the release the resolver picks with them. A requirement that cannot be resolved at all is left out of the
    resolution (and installed as asked); no network, an error that names nothing, more than MAX_ROUNDS rounds or
    `budget_s` seconds leave the requirements as they are."""
    reqs = list(spec.requirements)
    if not reqs:
        return reqs, []
    (tmp / "lmrbench-harness.txt").write_text(harness_constraints(spec), encoding="utf-8")
    relaxed: dict[int, str] = {}
    active = list(range(len(reqs)))  # the requirements resolved together; one that cannot be had at all is left out
    deadline = time.monotonic() + budget_s
    for _ in range(MAX_ROUNDS):
        if time.monotonic() >= deadline or not active:
            break
        proc = _compile([reqs[i] for i in active], tmp, uv, deadline - time.monotonic())
        if proc.returncode == 0:
            (tmp / RESOLVED).write_text(proc.stdout, encoding="utf-8")
            return _pin_relaxed(reqs, relaxed, spec, proc.stdout)
        pos = _named(proc.stderr, [reqs[i] for i in active])
        if pos is None:  # no network, or an error that names nothing: install as asked
            break
        bad = active[pos]
        loose = _relaxed(reqs[bad]) if _harness_conflict(proc.stderr) and bad not in relaxed else None
        if loose is None:
            active.remove(bad)  # installed as asked; the installer records it when it fails
            continue
        relaxed[bad] = _cause(proc.stderr)
        reqs[bad] = loose
    return list(spec.requirements), []


def _pin_relaxed(reqs: list[str], relaxed: dict[int, str], spec: EnvSpec, output: str
                 ) -> tuple[list[str], list[Substitution]]:
    pins = _pins(output)
    subs = []
    for i, why in relaxed.items():
        req = Requirement(reqs[i])
        version = pins.get(requirement_name(reqs[i]))
        if version is None:  # left out of the resolution in the end: installed as asked
            reqs[i] = spec.requirements[i]
            continue
        reqs[i] = _with_version(req, version)
        subs.append(Substitution(requirement=spec.requirements[i], installed=reqs[i],
                                 reason=f"conflicts with the harness: {why}"))
    return reqs, subs


def module_names(site: Path, requirement: str) -> list[str]:
    """The top-level modules an installed requirement provides (from its dist-info)."""
    name = requirement_name(requirement).replace("-", "_")
    infos = [p for p in site.glob("*.dist-info") if p.name.split("-")[0].lower().replace(".", "_") == name]
    if not infos:
        return []
    top = infos[0] / "top_level.txt"
    if top.is_file():
        names = top.read_text(encoding="utf-8", errors="replace").split()
    else:
        record = infos[0] / "RECORD"
        rows = record.read_text(encoding="utf-8", errors="replace").splitlines() if record.is_file() else []
        names = [r.split(",")[0].split("/")[0].removesuffix(".py") for r in rows if r]
    keep = [n for n in dict.fromkeys(names) if n.isidentifier() and not n.startswith("_") and n not in SKIP_MODULES]
    return keep


def import_failures(python: Path, modules: list[str], timeout_s: int = 600) -> dict[str, str]:
    """Modules that fail to import in an environment, with the error (one process imports them all)."""
    if not modules:
        return {}
    try:
        proc = subprocess.run([str(python), "-c", IMPORT_CHECK, *modules], capture_output=True, text=True,
                              timeout=timeout_s, cwd=python.parent)
    except subprocess.TimeoutExpired:
        return {}
    for line in proc.stdout.splitlines():
        if line.startswith("LMRBENCH-IMPORTS "):
            found = json.loads(line.removeprefix("LMRBENCH-IMPORTS "))
            return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    return {}


def installed_version(site: Path, requirement: str) -> str | None:
    name = requirement_name(requirement).replace("-", "_")
    for info in site.glob("*.dist-info"):
        dist, _, rest = info.name.removesuffix(".dist-info").partition("-")
        if dist.lower().replace(".", "_") == name:
            return rest
    return None


def repair_imports(reqs: list[str], tmp: Path, uv: Uv, install: Installer) -> list[Substitution]:
    """Replace each installed requirement that fails to import in the environment `tmp` by the newest release that
    resolves with the harness (when that is another release and it imports); a replacement that does not import
    is undone."""
    python, site = tmp / "bin" / "python", next((tmp / "lib").glob("python*/site-packages"))
    modules = {r: module_names(site, r) for r in reqs}
    failures = import_failures(python, [m for ms in modules.values() for m in ms])
    subs = []
    for req in reqs:
        broken = [failures[m] for m in modules[req] if m in failures]
        if not broken:
            continue
        sub = _replace_broken(req, broken[0], tmp, uv, install, modules[req])
        if sub is not None:
            subs.append(sub)
    return subs


def _replace_broken(req: str, error: str, tmp: Path, uv: Uv, install: Installer, modules: list[str]
                    ) -> Substitution | None:
    try:
        parsed = Requirement(req)
    except InvalidRequirement:
        return None
    python, site = tmp / "bin" / "python", next((tmp / "lib").glob("python*/site-packages"))
    before = installed_version(site, req)
    proc = _compile([_with_version(parsed, None)], tmp, uv, 300)
    version = _pins(proc.stdout).get(requirement_name(req)) if proc.returncode == 0 else None
    if version is None or version == before:
        return None
    new = _with_version(parsed, version)
    if install([new]).returncode == 0 and not import_failures(python, modules):
        return Substitution(requirement=req, installed=new, reason=f"does not import here: {error}")
    if before:
        install([_with_version(parsed, before)])  # put back what the task asked for
    return None
