"""The second red team's attacks on the sandbox itself (issue 22, items 3, 4 and 7), on the cold and the template
path. Each test first shows the attack working with the defence loosened, then contained.

- disk and inodes: files written and unlinked while held open, and many empty files, against a workspace that is
  a size- and inode-capped tmpfs (sandbox/disk.py);
- template hygiene: a child's descriptors (stdin was the template's job pipe) and what it can see of /proc;
- the installed package: a real non-editable install puts the built-in tasks' hidden files in site-packages,
  which the sandbox mounts; the view masks them (sandbox/view.py `hidden_paths`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from lmrbench.sandbox import LocalSandbox, SandboxConfig, disk, view, watchdog
from lmrbench.sandbox import template as template_mod
from lmrbench.sandbox.template import TemplateSandbox

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = os.geteuid() == 0
PATHS = ["cold", "template"]

needs_root = pytest.mark.skipif(not IS_ROOT, reason="the capped tmpfs and the template path need root")


def _bwrap() -> bool:
    return LocalSandbox().isolation().filesystem == "bwrap"


needs_bwrap = pytest.mark.skipif(not _bwrap(), reason="bubblewrap is not usable here")


def _sandbox(path: str, config: SandboxConfig) -> LocalSandbox | TemplateSandbox:
    return LocalSandbox(config) if path == "cold" else TemplateSandbox(config, preload=())


def _run(sandbox, tmp_path: Path, code: str, timeout: float = 30):
    """Run `code` as a script (`python -P FILE`, so the template path can serve it) in a fresh workspace."""
    name = uuid.uuid4().hex[:8]
    scripts = tmp_path / f"scripts-{name}"
    scripts.mkdir()
    script = scripts / "candidate.py"
    script.write_text(code)
    ws = tmp_path / f"ws-{name}"
    ws.mkdir()
    log = tmp_path / f"log-{name}.txt"
    res = sandbox.exec([sys.executable, "-P", str(script)], ws, timeout, log, readonly=[scripts])
    return res, log.read_text(errors="replace") if log.exists() else "", ws


@contextlib.contextmanager
def _uncapped(roots, size_bytes, inodes) -> Iterator[None]:
    yield None  # the defence loosened: the writable places stay plain host folders


# ------------------------------------------------------------------ item 7: disk and inodes

UNLINKED = """
import os, time
held, total = [], 0
try:
    for i in range(6):
        fd = os.open(f"hidden{i}.bin", os.O_RDWR | os.O_CREAT, 0o600)
        os.unlink(f"hidden{i}.bin")        # gone from every folder walk, still taking disk
        held.append(fd)
        for _ in range(8):
            os.write(fd, b"x" * (1 << 20))
            total += 1 << 20
except OSError as exc:
    print("REFUSED", exc.errno, flush=True)
print("HELD_MB", total >> 20, flush=True)
time.sleep(3)                               # hold them while the watchdog looks
print("SURVIVED", flush=True)
"""


@needs_root
@needs_bwrap
@pytest.mark.parametrize("path", PATHS)
def test_unlinked_open_files_cannot_exceed_the_workspace_cap(tmp_path, monkeypatch, path):
    config = SandboxConfig(workspace_mb=20, max_file_mb=16)
    with monkeypatch.context() as loose:  # no tmpfs, and the watchdog as it was: a walk of the folders only
        loose.setattr(disk, "capped", _uncapped)
        loose.setattr(watchdog, "unlinked_bytes", lambda pid, roots: 0)
        res, log, _ = _run(_sandbox(path, config), tmp_path, UNLINKED)
    # 48 MB held in a 20 MB workspace, and nothing noticed: the attack works on plain folders
    assert "HELD_MB 48" in log and "SURVIVED" in log and res.limits_hit == [], (log, res)
    assert res.isolation.disk == "watchdog" and res.path == path

    res, log, ws = _run(_sandbox(path, config), tmp_path, UNLINKED)
    assert res.isolation.disk == "tmpfs" and res.path == path
    assert "REFUSED 28" in log, log  # ENOSPC: the kernel refused the byte past the cap
    held = int(log.split("HELD_MB ")[1].split()[0])
    assert held <= 20, log
    assert "SURVIVED" not in log and res.limits_hit == ["workspace"], (log, res)  # stopped, and recorded
    assert not any(ws.iterdir()) or {p.name for p in ws.iterdir()} <= {".home", ".tmp"}


MANY_FILES = """
import os, time
made = 0
try:
    for i in range(3000):
        open(f".tmp/f{i}", "w").close()
        made += 1
except OSError as exc:
    print("REFUSED", exc.errno, flush=True)
print("MADE", made, flush=True)
time.sleep(2)
print("SURVIVED", flush=True)
"""


@needs_root
@needs_bwrap
@pytest.mark.parametrize("path", PATHS)
def test_many_empty_files_hit_the_inode_cap(tmp_path, monkeypatch, path):
    loose_config = SandboxConfig(workspace_mb=20, workspace_inodes=10**9)  # as before: no inode limit at all
    with monkeypatch.context() as loose:
        loose.setattr(disk, "capped", _uncapped)
        res, log, ws = _run(_sandbox(path, loose_config), tmp_path, MANY_FILES)
    assert "MADE 3000" in log and "SURVIVED" in log and res.limits_hit == [], (log, res)
    assert len(list((ws / ".tmp").iterdir())) == 3000  # every one of them landed on the host

    res, log, ws = _run(_sandbox(path, SandboxConfig(workspace_mb=20, workspace_inodes=1000)), tmp_path,
                        MANY_FILES)
    assert res.isolation.disk == "tmpfs" and res.isolation.workspace_inodes == 1000
    assert "REFUSED 28" in log and "MADE 3000" not in log, log
    assert "SURVIVED" not in log and res.limits_hit == ["inodes"], (log, res)
    assert len(list((ws / ".tmp").iterdir())) < 1000  # what it made is back on the host, and no more


@needs_bwrap
def test_without_the_tmpfs_the_watchdog_still_counts_inodes(tmp_path, monkeypatch):
    # Where no tmpfs can be mounted (the harness not root), the watchdog's walk counts entries.
    monkeypatch.setattr(disk, "capped", _uncapped)
    res, log, _ = _run(LocalSandbox(SandboxConfig(workspace_inodes=1000)), tmp_path, MANY_FILES)
    assert res.isolation.disk == "watchdog"
    assert "SURVIVED" not in log and res.limits_hit == ["inodes"], (log, res)


@needs_root
@needs_bwrap
@pytest.mark.parametrize("path", PATHS)
def test_workspace_contents_come_back_whatever_the_candidate_made(tmp_path, path):
    # The copy back: files, folders, links (never followed), hard links kept as one file, holes kept, FIFOs
    # skipped, and whatever the candidate deleted stays deleted.
    code = """
import os
os.makedirs("d/e")
open("d/e/f.txt", "w").write("written inside")
os.symlink("/etc/passwd", "link")
os.link("d/e/f.txt", "hard")
with open("sparse", "wb") as fh:
    fh.truncate(15 << 20)                  # 15 MB apparent, no data: more than the cap if copied as zeros
os.mkfifo("fifo")
os.unlink("gone.txt")
st = os.stat("same-size.txt")
open("same-size.txt", "w").write("CHANGED!")           # same size, old mtime put back: still copied
os.utime("same-size.txt", ns=(st.st_atime_ns, st.st_mtime_ns))
for i in range(50):
    os.link("big.bin", f"hl{i}")                      # 50 names, one inode: 1 MB back, not 50 MB
print("OK")
"""
    name = uuid.uuid4().hex[:8]
    sandbox = _sandbox(path, SandboxConfig(workspace_mb=8))
    scripts = tmp_path / f"scripts-{name}"
    scripts.mkdir()
    (scripts / "c.py").write_text(code)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "gone.txt").write_text("the harness put this here")
    (ws / "kept.txt").write_text("and this")
    (ws / "same-size.txt").write_text("original")
    (ws / "big.bin").write_bytes(os.urandom(1 << 20))
    kept_inode = (ws / "kept.txt").stat().st_ino
    res = sandbox.exec([sys.executable, "-P", str(scripts / "c.py")], ws, 30, tmp_path / "log.txt",
                       readonly=[scripts])
    assert "OK" in (tmp_path / "log.txt").read_text() and res.exit_code == 0 and res.isolation.disk == "tmpfs"
    assert (ws / "d/e/f.txt").read_text() == "written inside" and (ws / "kept.txt").read_text() == "and this"
    assert not (ws / "gone.txt").exists() and not (ws / "fifo").exists()
    assert os.readlink(ws / "link") == "/etc/passwd" and (ws / "link").is_symlink()
    assert os.stat(ws / "hard").st_ino == os.stat(ws / "d/e/f.txt").st_ino
    assert (ws / "sparse").stat().st_size == 15 << 20 and (ws / "sparse").stat().st_blocks == 0
    assert (ws / "same-size.txt").read_text() == "CHANGED!"
    assert (ws / "kept.txt").stat().st_ino == kept_inode  # unchanged: left alone on the host
    inodes = {(ws / f"hl{i}").stat().st_ino for i in range(50)} | {(ws / "big.bin").stat().st_ino}
    assert len(inodes) <= 2 and (ws / "hl7").read_bytes() == (ws / "big.bin").read_bytes()
    assert not os.path.ismount(ws)  # the tmpfs is gone


# ------------------------------------------------------------------ item 4: template hygiene

def _loosened_server(tmp_path: Path) -> Path:
    """A copy of the template server without the descriptor hygiene (the child keeps the template's fds)."""
    text = template_mod.SERVER.read_text()
    hygiene = ('    null = os.open("/dev/null", os.O_RDONLY)\n    os.dup2(null, 0)\n    os.close(null)\n'
               '    os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[1])\n')
    assert text.count(hygiene) == 1
    loose = tmp_path / "loose_template_server.py"
    loose.write_text(text.replace(hygiene, ""))
    return loose


INSPECT = """
import json, os, select
fds = {}
for name in os.listdir("/proc/self/fd"):
    fd = int(name)
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        continue  # the listing's own descriptor, closed by now
    data = None
    if fd != 1 and fd != 2:
        try:
            if select.select([fd], [], [], 0.2)[0]:
                data = os.read(fd, 1 << 16).decode(errors="replace")
        except OSError as exc:
            data = "error " + type(exc).__name__
    fds[fd] = [target, data]
def read(path):
    try:
        return open(path, "rb").read().decode(errors="replace")
    except OSError as exc:
        return "error " + type(exc).__name__
proc = {what: read(f"/proc/self/{what}") for what in ("environ", "cmdline", "maps", "status")}
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
print("INSPECT", json.dumps({"fds": fds, "env": dict(os.environ), "proc": proc, "pids": pids,
                             "self": os.getpid()}))
"""


def _inspect(log: str) -> dict:
    return json.loads(log.split("INSPECT ", 1)[1].splitlines()[0])


@needs_root
@needs_bwrap
def test_template_child_reaches_no_pipe_socket_or_other_job(tmp_path, monkeypatch):
    with monkeypatch.context() as loose:
        loose.setattr(template_mod, "SERVER", _loosened_server(tmp_path))
        res, log, _ = _run(TemplateSandbox(SandboxConfig(), preload=()), tmp_path, INSPECT)
    seen = _inspect(log)
    assert res.path == "template"
    assert seen["fds"]["0"][0].startswith("pipe:"), seen  # loosened: stdin is the template's job pipe

    res, log, _ = _run(TemplateSandbox(SandboxConfig(), preload=()), tmp_path, INSPECT)
    seen = _inspect(log)
    assert res.path == "template" and res.exit_code == 0, log
    logfile = seen["fds"]["1"][0]
    assert seen["fds"] == {"0": ["/dev/null", ""], "1": [logfile, None], "2": [logfile, None]}, seen
    assert "/log-" in logfile and logfile.endswith(".txt")
    assert set(seen["env"]) == set(LocalSandbox()._env(tmp_path, None)), seen["env"]  # the scrubbed environment
    for what, text in seen["proc"].items():  # /proc/self: the template's command line and maps, no job of another
        assert '"argv"' not in text and '"policy"' not in text, (what, text)
    assert seen["proc"]["environ"] == "error PermissionError"  # not dumpable: not even its own raw environ
    assert seen["pids"] == [seen["self"]], seen  # its own PID namespace: no other process to inspect


STEALER = """
import os, signal

def stop(*_):
    raise TimeoutError

signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, 4.0)  # read for 4 s (a blocking read the template raced it to is cut short)
got = b""
try:
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        got += chunk
except TimeoutError:
    pass
signal.setitimer(signal.ITIMER_REAL, 0)
print("STOLE", len(got), got.decode(errors="replace").count('"argv"'), flush=True)
"""

VICTIM = "print('VICTIM RAN', flush=True)\n"


def _steal(tmp_path: Path, victims: int, loosened: bool) -> tuple[str, list]:
    """One stealer, then `victims` evaluations submitted while it reads stdin; returns its log and their results."""
    sandbox = TemplateSandbox(SandboxConfig(), preload=())
    results: list = [None] * victims
    stealer: list = []
    thief = threading.Thread(target=lambda: stealer.append(_run(sandbox, tmp_path, STEALER, timeout=20)))
    thief.start()
    time.sleep(1.0)  # the stealer is reading

    def victim(i: int) -> None:
        results[i] = _run(sandbox, tmp_path, VICTIM, timeout=6)

    threads = [threading.Thread(target=victim, args=(i,)) for i in range(victims)]
    for t in threads:
        t.start()
        time.sleep(0.1)
    thief.join()
    if loosened:  # stolen jobs never start and would wait for their template: end it
        time.sleep(0.5)
        for template in sandbox._templates.values():
            template.proc.kill()
    for t in threads:
        t.join()
    return stealer[0][1], results


@needs_root
@needs_bwrap
def test_a_child_cannot_steal_other_jobs_from_the_template(tmp_path, monkeypatch):
    logs = []
    with monkeypatch.context() as loose:
        loose.setattr(template_mod, "SERVER", _loosened_server(tmp_path))
        for _ in range(3):  # it races the template for each line: it wins some, in practice 2-6 of 6
            logs.append(_steal(tmp_path, 6, loosened=True)[0])
            if int(logs[-1].split("STOLE ")[1].split()[1]) >= 1:
                break
    # loosened: the stealer read other evaluations' jobs (argv, env, policy), which then never ran there
    assert int(logs[-1].split("STOLE ")[1].split()[1]) >= 1, logs

    started = time.monotonic()
    log, results = _steal(tmp_path, 6, loosened=False)
    assert log.split("STOLE ")[1].split()[:2] == ["0", "0"], log  # stdin is /dev/null: nothing to read
    for res, vlog, _ in results:  # each ran on the template and well inside its 6 s timeout
        assert res.path == "template" and res.exit_code == 0 and not res.timed_out and "VICTIM RAN" in vlog, (
            res, vlog)
    assert time.monotonic() - started < 30


# ------------------------------------------------------------------ item 3: a non-editable install

CANDIDATE_READS_INSTALL = """
import glob, importlib.util, os, sys
found = set()
for base in set(sys.path + [sys.prefix, sys.base_prefix]):
    for pattern in ("lmrbench/builtin_tasks/**", "lib/python3*/site-packages/lmrbench/builtin_tasks/**"):
        for path in glob.glob(os.path.join(base, pattern), recursive=True):
            try:
                with open(path, "rb") as fh:
                    fh.read()
                found.add(os.path.realpath(path))
            except OSError:
                pass
golden = [p for p in found if "/golden_files/" in p or "/expected/" in p]
hashes = 0  # the installed RECORD: every hidden file's size and sha256
for record in glob.glob(os.path.join(sys.prefix, "lib/python3*/site-packages/lmrbench-*.dist-info/RECORD")):
    try:
        hashes += sum("builtin_tasks/" in line for line in open(record))
    except OSError:
        pass
try:  # an empty folder imports as a namespace package: ask for a module inside it
    importable = importlib.util.find_spec("lmrbench.sandbox") is not None
except ImportError:
    importable = False
print("LEAKED", len(found), "GOLDEN", len(golden), "HASHES", hashes, "IMPORTABLE", importable, flush=True)
"""

HARNESS = """
import json, sys, tempfile, uuid
from pathlib import Path
import lmrbench
from lmrbench.sandbox import LocalSandbox, SandboxConfig, view
from lmrbench.sandbox.template import TemplateSandbox

loosen, out, code = sys.argv[1] == "loose", Path(sys.argv[2]), sys.argv[3]
if loosen:
    view.hidden_paths = lambda: []
result = {"package": lmrbench.__file__}
for path, sandbox in (("cold", LocalSandbox()), ("template", TemplateSandbox(preload=()))):
    d = out / f"{path}-{sys.argv[1]}"
    (d / "ws").mkdir(parents=True)
    (d / "s").mkdir()
    (d / "s" / "c.py").write_text(code)
    res = sandbox.exec([sys.executable, "-P", str(d / "s" / "c.py")], d / "ws", 60, d / "log.txt",
                       readonly=[d / "s"])
    result[path] = [res.path, (d / "log.txt").read_text()]
print("RESULT", json.dumps(result))
"""


def _source_tree(dest: Path) -> Path:
    """The project as `pip install .` sees it, with one built-in task (dpo) to keep the build small."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md"):
        (dest / name).write_bytes((ROOT / name).read_bytes())
    subprocess.run(["cp", "-a", str(ROOT / "src"), str(dest / "src")], check=True)
    for junk in dest.glob("src/*.egg-info"):
        subprocess.run(["rm", "-rf", str(junk)], check=True)
    (dest / "tasks").mkdir()
    subprocess.run(["cp", "-a", str(ROOT / "tasks" / "dpo"), str(dest / "tasks" / "dpo")], check=True)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv holding a real non-editable install of lmrbench (its dependencies from ours, through a .pth)."""
    tmp = tmp_path_factory.mktemp("install")
    src = _source_tree(tmp / "src-tree")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "harness_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    str(src)], check=True, capture_output=True)
    golden = list(Path(purelib, "lmrbench", "builtin_tasks", "dpo").glob("golden_files/*"))
    assert golden and golden[0].is_file() and not golden[0].is_symlink()  # really copied into site-packages
    return py


def _harness(py: Path, mode: str, out: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed copy, not a source tree
    run = subprocess.run([str(py), "-c", HARNESS, mode, str(out), CANDIDATE_READS_INSTALL], capture_output=True,
                         text=True, timeout=240, cwd=out, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.split("RESULT ", 1)[1])


@needs_root
@needs_bwrap
def test_a_non_editable_install_shows_no_hidden_file_in_the_sandbox(installed, tmp_path):
    loose = _harness(installed, "loose", tmp_path)
    assert "site-packages" in loose["package"] and str(installed.parents[1]) in loose["package"]
    for path in PATHS:
        ran, log = loose[path]
        assert ran == path, loose
        words = log.split()
        leaked, golden, hashes = (int(words[words.index(w) + 1]) for w in ("LEAKED", "GOLDEN", "HASHES"))
        assert leaked >= 10 and golden >= 2 and hashes >= leaked and "IMPORTABLE True" in log, log  # loosened

    tight = _harness(installed, "tight", tmp_path)
    for path in PATHS:
        ran, log = tight[path]
        assert ran == path and "LEAKED 0 GOLDEN 0 HASHES 0 IMPORTABLE False" in log, tight


def test_every_installed_copy_and_the_cache_are_hidden_paths(tmp_path, monkeypatch):
    prefix = tmp_path / "prefix"
    copies = [prefix / "lib/python3.11/site-packages/lmrbench", prefix / "local/lib/python3.11/dist-packages/lmrbench",
              prefix / "lib/python3.11/site-packages/lmrbench-0.1.dist-info"]
    for copy in copies:
        (copy / "builtin_tasks/dpo/golden_files").mkdir(parents=True)
    (prefix / "lib/python3.11/site-packages/other").mkdir()
    monkeypatch.setattr(view, "python_roots", lambda: [prefix])
    monkeypatch.setenv("LMRBENCH_CACHE", str(prefix / "cache"))
    (prefix / "cache").mkdir()
    found = set(view.hidden_paths())
    assert {*copies, prefix / "cache", view.PACKAGE} <= found
    assert prefix / "lib/python3.11/site-packages/other" not in found
    # only what a view would show is masked, never a folder holding the Python installation itself
    assert set(view.masks([prefix])) == {*copies, prefix / "cache"}
    assert view.masks([tmp_path / "elsewhere"]) == []
    monkeypatch.setattr(view, "python_roots", lambda: [prefix / "cache" / "venv"])
    assert prefix / "cache" not in view.masks([prefix])


@needs_bwrap
@pytest.mark.parametrize("path", PATHS)
def test_the_harness_cache_inside_the_python_installation_is_masked(tmp_path, monkeypatch, path):
    if path == "template" and not IS_ROOT:
        pytest.skip("the template path needs root")
    cache = Path(sys.prefix) / f".lmrbench-cache-test-{uuid.uuid4().hex[:8]}"  # inside the mounted venv
    answer = cache / "responses" / "ab" / "answer.json"
    answer.parent.mkdir(parents=True)
    answer.write_text('{"content": "the reference, as a model answered it"}')
    monkeypatch.setenv("LMRBENCH_CACHE", str(cache))
    code = f"""
try:
    print("GOT", open({str(answer)!r}).read())
except OSError as exc:
    print("DENIED", type(exc).__name__)
"""
    try:
        with monkeypatch.context() as loose:
            loose.setattr(view, "hidden_paths", lambda: [])
            res, log, _ = _run(_sandbox(path, SandboxConfig()), tmp_path, code)
        assert res.path == path and "GOT" in log and "the reference" in log, log  # loosened: readable
        res, log, _ = _run(_sandbox(path, SandboxConfig()), tmp_path, code)
        assert res.path == path and "DENIED FileNotFoundError" in log and "GOT" not in log, log
    finally:
        shutil.rmtree(cache)


@needs_root
@needs_bwrap
def test_folders_nested_thousands_deep_do_not_break_the_copy_back(tmp_path):
    code = """
import os
for _ in range(3000):                      # 6,000 characters of path: past PATH_MAX and any recursion limit
    os.mkdir("a")
    os.chdir("a")
open("leaf", "w").write("deep")
print("NESTED", flush=True)
"""
    res, log, ws = _run(LocalSandbox(SandboxConfig()), tmp_path, code)
    assert "NESTED" in log and res.exit_code == 0 and res.isolation.disk == "tmpfs", log
    depth, here = 0, ws / "a"
    while here.is_dir():
        depth, here = depth + 1, here / "a"
    assert 0 < depth <= disk.MAX_DEPTH + 1  # what fits came back, the rest was left out
    shutil.rmtree(ws)  # and the harness can still delete it


@needs_root
@needs_bwrap
def test_without_the_tmpfs_the_watchdog_still_sees_unlinked_open_files(tmp_path, monkeypatch):
    # The fallback (no tmpfs, the harness not root) polls: it adds what the tree holds open after unlinking.
    monkeypatch.setattr(disk, "capped", _uncapped)
    config = SandboxConfig(workspace_mb=20, max_file_mb=16)
    with monkeypatch.context() as loose:
        loose.setattr(watchdog, "unlinked_bytes", lambda pid, roots: 0)
        res, log, _ = _run(LocalSandbox(config), tmp_path, UNLINKED)
    assert "HELD_MB 48" in log and "SURVIVED" in log and res.limits_hit == [], (log, res)
    res, log, _ = _run(LocalSandbox(config), tmp_path, UNLINKED)
    assert res.isolation.disk == "watchdog"
    assert "SURVIVED" not in log and res.limits_hit == ["workspace"], (log, res)


READ_AHEAD = '''def _next_job(fd):
    """Loosened: a buffered reader, which reads whatever the pipe holds, jobs behind this one included."""
    global _AHEAD
    _AHEAD = globals().get("_AHEAD", b"")
    while True:
        if b"\\n" in _AHEAD:
            header, rest = _AHEAD.split(b"\\n", 1)
            if len(rest) >= int(header):
                _AHEAD = rest[int(header):]
                return json.loads(rest[:int(header)])
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return None
        _AHEAD += chunk


'''

SCAN = """
import gc, sys


def scan():
    marker = "-".join(["MARKER", "OF", "JOB", "B"])  # only here: never whole in a constant, global or scanned frame
    hits = []
    for o in gc.get_objects():
        if type(o) in (dict, list, tuple, bytearray) and o is not hits:
            try:
                if marker in repr(o)[:1000000]:
                    hits.append("gc:" + type(o).__name__)
            except Exception:
                pass
    frame = sys._getframe().f_back
    while frame:
        for name, value in list(frame.f_locals.items()):
            if marker in repr(value)[:1000000]:
                hits.append("frame:" + frame.f_code.co_name + ":" + name)
        frame = frame.f_back
    return hits


print("HITS", sorted(set(scan())), flush=True)
"""


def _two_jobs_in_one_write(tmp_path: Path, sandbox: TemplateSandbox, loosened: bool) -> str:
    """Job A (scans its memory for job B) and job B, written to the template in one write; A's log."""
    scripts = tmp_path / f"s-{uuid.uuid4().hex[:6]}"
    scripts.mkdir(mode=0o755)
    (scripts / "a.py").write_text(SCAN)
    (scripts / "b.py").write_text("print('B')\n")
    ws = tmp_path / f"ws-{uuid.uuid4().hex[:6]}"
    ws.mkdir(mode=0o777)
    template = sandbox._template(sys.executable)
    policy = sandbox._policy(ws, [scripts], [], sandbox.config.uid_base + sandbox.config.uid_slots - 1, [])
    jobs = []
    with template._lock:
        data = b""
        for name, marker in (("a", "nothing"), ("b", "MARKER-OF-JOB-B")):
            job_id, template._next = template._next, template._next + 1
            jobs.append(template_mod._Job())
            template._jobs[job_id] = jobs[-1]
            data += template_mod.message({"id": job_id, "argv": [sys.executable, "-P", str(scripts / f"{name}.py")],
                                          "env": {"PATH": "/usr/bin:/bin", "SECRET_OF_B": marker}, "cwd": str(ws),
                                          "log": str(tmp_path / f"{name}.log"), "timeout": 30, "policy": policy})
        assert template.proc.stdin is not None
        template.proc.stdin.write(data)
        template.proc.stdin.flush()
    jobs[0].done.result(timeout=60)
    if loosened:  # the read-ahead server holds B until more input comes: end it
        template.proc.kill()
    else:
        jobs[1].done.result(timeout=60)
        assert (tmp_path / "b.log").read_text() == "B\n"
    return (tmp_path / "a.log").read_text()


@needs_root
@needs_bwrap
def test_a_child_holds_no_job_queued_behind_its_own(tmp_path, monkeypatch):
    text = template_mod.SERVER.read_text()
    start = text.index("def _next_job(fd):")
    end = text.index("def main():")
    loose = tmp_path / "read_ahead_template_server.py"
    loose.write_text(text[:start] + READ_AHEAD + text[end:])
    with monkeypatch.context() as patch:
        patch.setattr(template_mod, "SERVER", loose)
        log = _two_jobs_in_one_write(tmp_path, TemplateSandbox(SandboxConfig(), preload=()), loosened=True)
    assert "HITS [" in log and "HITS []" not in log, log  # loosened: B's job (env, argv, policy) is in A's memory

    log = _two_jobs_in_one_write(tmp_path, TemplateSandbox(SandboxConfig(), preload=()), loosened=False)
    assert "HITS []" in log, log
