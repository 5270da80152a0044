"""Pre-warmed template: imports a task environment's heavy libraries once, never runs candidate code, and forks
one child per evaluation; each child isolates itself before it runs anything the candidate wrote.

Standalone on purpose (no lmrbench import). The harness starts it as root with a scrubbed environment, in a
network namespace of its own, and talks to it over stdin/stdout: each job is a line with its length in bytes,
then that JSON object; each reply is one JSON object a line.

    harness -> template  {"id": N, "argv": [...], "env": {...}, "cwd": DIR, "log": FILE, "timeout": S,
                          "policy": {"binds": [[SRC, MODE], ...], "tmpfs": [[DIR, MB], ...], "devices": [...],
                                     "uid": U, "gid": G, "rlimits": {NAME: N}, "cgroups": [DIR, ...],
                                     "root_mb": MB}}
    (MODE: "ro", "rw", or "mask": an empty read-only tmpfs over SRC, a folder inside an earlier bind)
    template -> harness  {"id": N, "pid": P}    (the child is started)
    template -> harness  {"id": N, "exit_code": C, "timed_out": B, "duration_s": S, "error": "..."}

A child: fork -> stdin from /dev/null, stdout and stderr to its log, every other descriptor closed ->
unshare(mount, pid, network, IPC, UTS namespaces) -> fork the namespace's init (killed when its parent dies) ->
join the job's cgroups -> build a new root on a size-capped tmpfs holding only the policy's binds (system and
Python read-only, the workspace and output folders writable) -> pivot_root, detach the old root -> mount /proc ->
rlimits -> drop every group, the gid and the uid to the job's unprivileged ids -> a user namespace of its own whose
limit forbids nested ones -> no capabilities -> no_new_privs -> scrubbed environment -> run the command line
(`python -P SCRIPT ARGS`) in-process with `runpy`. The template process itself is never touched: each job runs in a
copy-on-write copy of it, and the harness replaces the template after a number of forks.

Usage: python -P template_server.py PRELOAD[,PRELOAD...]
"""

import atexit
import ctypes
import gc
import importlib
import json
import os
import resource
import runpy
import select
import signal
import sys
import threading
import time
import traceback

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWUSER = 0x20000000, 0x40000000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
SYS_PIVOT_ROOT = 155  # x86_64
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
SYS_CAPSET, CAP_VERSION_3 = 126, 0x20080522
SETUP_FAILED = 125  # the child could not isolate itself: the harness falls back to a cold sandbox
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _enc(text):
    return text.encode() if text is not None else None


def _mount(src, dst, fstype, flags, data=None):
    _check(_libc.mount(_enc(src), _enc(dst), _enc(fstype), ctypes.c_ulong(flags), _enc(data)), f"mount {dst}")


def _bind(src, dst, writable):
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            open(dst, "w").close()
    _mount(src, dst, None, MS_BIND | MS_REC)
    flags = MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | (0 if writable else MS_RDONLY)
    _mount(None, dst, None, flags)


def _new_root(policy):
    """A fresh root holding only what the policy lists; the old root is detached."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = f"/tmp/.lmrbench-root-{os.getpid()}"
    os.makedirs(root, exist_ok=True)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={policy.get('root_mb', 16)}m,mode=755")
    for path, mb in policy.get("tmpfs", []):
        os.makedirs(root + path, exist_ok=True)
        _mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={mb}m,mode=1777")
    masked = []
    for src, mode in policy.get("binds", []):  # in order: a later bind may sit inside an earlier tmpfs
        if mode == "mask":  # an empty tmpfs over a folder of an earlier bind; read-only once all are in place
            _mount("tmpfs", root + src, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k,mode=555")
            masked.append(root + src)
        elif os.path.exists(src):
            _bind(src, root + src, mode == "rw")
    for path in masked:
        _mount(None, path, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    for dev in policy.get("devices", []):
        if os.path.exists(dev):
            os.makedirs(root + "/dev", exist_ok=True)
            open(root + dev, "w").close()
            _mount(dev, root + dev, None, MS_BIND)
    os.makedirs(root + "/proc", exist_ok=True)
    os.makedirs(root + "/.old", exist_ok=True)
    os.chdir(root)
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b".old"), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "detach old root")
    os.rmdir("/.old")
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def _limits(policy):
    for name, value in policy.get("rlimits", {}).items():
        resource.setrlimit(getattr(resource, name), (value, value))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _write(path, text):
    with open(path, "w") as fh:
        fh.write(text)


def _drop(policy):
    """Root -> the job's uid; then a user namespace of its own that may not create another; no capabilities."""
    gid, uid = policy["gid"], policy["uid"]
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)  # from root to a non-zero uid: the permitted and effective capabilities go too
    if os.getuid() == 0 or os.geteuid() == 0:
        raise OSError("still root after dropping privileges")
    _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")  # /proc/self/*_map belong to us again
    _check(_libc.unshare(CLONE_NEWUSER), "unshare user namespace")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _write("/proc/sys/user/max_user_namespaces", "0")  # no nested user namespaces from here on
    caps = (_CapData * 2)()
    _check(_libc.syscall(SYS_CAPSET, ctypes.byref(_CapHeader(CAP_VERSION_3, 0)), caps), "drop capabilities")
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def _isolate(job):
    """In the forked child: namespaces, cgroups, root, limits, identity. Returns in the namespace's init."""
    policy = job["policy"]
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
    init = os.fork()  # the new PID namespace starts with this child
    if init:
        _, status = os.waitpid(init, 0)
        os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    for group in policy.get("cgroups", []):
        with open(os.path.join(group, "cgroup.procs"), "w") as fh:
            fh.write(str(os.getpid()))
    _new_root(policy)
    _limits(policy)
    _drop(policy)
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")  # cleared by the uid change


def _run(job):
    os.environ.clear()
    os.environ.update(job["env"])
    os.chdir(job["cwd"])
    argv = job["argv"]
    script = argv[argv.index("-P") + 1]
    sys.argv = argv[argv.index(script):]
    extra = [p for p in job["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:] = extra + [p for p in sys.path if p and os.path.isdir(p)]  # as a new interpreter would have it
    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # as an interpreter does: print it, then exit 1 after the usual shutdown
        traceback.print_exc()
        code = 1
    _shutdown()
    return code


def _shutdown():
    """What a normal interpreter exit does before the process ends: join threads, run atexit callbacks."""
    threading._shutdown()
    atexit._run_exitfuncs()


def _descriptors(log):
    """The child's only descriptors: stdin from /dev/null (fd 0 was the template's job pipe: reading it would steal
    other evaluations' jobs), stdout and stderr to the job's log, and nothing else inherited (the template's reply
    pipe and anything a preloaded library opened are closed)."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[1])


def _child(job):
    code = SETUP_FAILED
    try:
        _descriptors(job["log"])
        os.setsid()
        try:
            _isolate(job)
        except BaseException:
            traceback.print_exc()
            print("lmrbench-template: isolation failed", flush=True)
            os._exit(SETUP_FAILED)
        code = 1
        code = _run(job)
    except BaseException:  # the child always ends with os._exit
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) and 0 <= code < 256 else 1)


def _preload(names):
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # a library the environment lacks is simply not preloaded
            pass
    # Move everything imported so far out of the garbage collector's sight: a forked child's first collection
    # would otherwise walk (and so copy, page by page) every object torch created, ~0.3 s per child.
    gc.collect()
    gc.freeze()


def _kill(pid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _reply(job_id, **fields):
    sys.stdout.write(json.dumps({"id": job_id, **fields}) + "\n")
    sys.stdout.flush()


def _reap(running):
    """Report finished children and kill those past their deadline."""
    now = time.monotonic()
    for pid, (job_id, start, deadline) in list(running.items()):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            del running[pid]
            _reply(job_id, exit_code=os.waitstatus_to_exitcode(status), timed_out=False,
                   duration_s=round(now - start, 4))
        elif now > deadline:
            _kill(pid)
            os.waitpid(pid, 0)
            del running[pid]
            _reply(job_id, exit_code=None, timed_out=True, duration_s=round(now - start, 4))


def _start(job, running):
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _child(job)
    running[pid] = (job["id"], start, start + float(job["timeout"]))
    _reply(job["id"], pid=pid)


def _read_exact(fd, n):
    """`n` bytes (fewer only at the end of input), and never more."""
    data = bytearray()
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _next_job(fd):
    """The next job, or None at the end of input. Read exactly (its length line a byte at a time, then its JSON):
    the jobs behind it stay in the pipe, out of the memory the child about to be forked copies."""
    header = bytearray()
    while not header.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            return None
        header += byte
    raw = _read_exact(fd, int(header))
    try:
        return json.loads(raw)
    finally:
        raw[:] = bytes(len(raw))


def main():
    _preload([p for p in sys.argv[1].split(",") if p] if len(sys.argv) > 1 else [])
    _reply(-1, ready=True, preloaded=sorted(m for m in ("numpy", "scipy", "torch", "pandas") if m in sys.modules))
    running = {}
    stdin = sys.stdin.buffer.raw
    open_input = True
    while open_input or running:
        readable, _, _ = select.select([stdin] if open_input else [], [], [], 0.005 if running else 0.5)
        if readable:
            job = _next_job(stdin.fileno())
            if job is None:
                open_input = False
            else:
                try:
                    _start(job, running)
                except OSError as exc:
                    _reply(job["id"], exit_code=None, timed_out=False, duration_s=0.0, error=str(exc))
        _reap(running)


if __name__ == "__main__":
    main()
