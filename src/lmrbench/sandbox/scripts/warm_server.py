"""Fork server for batches of *trusted* evaluations (reference, stub, wrong variants, mutants).

Standalone on purpose: it runs inside the sandbox, which cannot import lmrbench. It imports the heavy
third-party libraries once (torch costs ~2.5 s of CPU per interpreter), then forks one child per job. Each
child is a fresh copy of that warm process: it changes to its own workspace, redirects its output to its own
log and runs the job's command line (the one a cold sandbox runs: `python -P SCRIPT ARGS`) in-process.
The parent enforces each job's wall-clock timeout by killing the child's process group and writes one JSON
line per job. A job with a `stop_file` is also killed as soon as that file appears: the harness, watching the
job's probe data from outside, creates it at the first case that differs from the reference (validation's
expected-failing jobs stop at their first failure).

Usage: python -P warm_server.py JOBS_JSON RESULTS_JSONL PRELOAD[,PRELOAD...]
"""

import atexit
import gc
import importlib
import json
import os
import runpy
import select
import signal
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def _preload(names):
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # a library the task does not have is simply not preloaded
            pass
    # Move everything imported so far out of the garbage collector's sight: a forked child's first collection
    # would otherwise walk (and so copy, page by page) every object torch created, ~0.3 s per child.
    gc.collect()
    gc.freeze()


def _child(job):
    fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.chdir(job["cwd"])
    os.environ.update(job["env"])
    argv = job["argv"]
    script = argv[argv.index("-P") + 1]
    sys.argv = argv[argv.index(script):]
    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    _shutdown()
    return code


def _shutdown():
    """What a normal interpreter exit does before the process ends: join threads, run atexit callbacks."""
    threading._shutdown()
    atexit._run_exitfuncs()


def _kill(pid):
    for kill in (os.killpg, os.kill):  # the group, or the child itself if it had no time to setsid
        try:
            kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.waitpid(pid, 0)


def _wait(pid, timeout, stop_file):
    """(exit code, timed out, stopped): the child's end, its timeout, or the harness's stop (a file appearing).
    Sleeps on a pidfd (woken the moment the child ends); a job with a stop file is also checked every 10 ms."""
    deadline = time.monotonic() + timeout
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (old kernel): poll
        pidfd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status), False, False
            if stop_file and os.path.exists(stop_file):
                _kill(pid)
                return -signal.SIGKILL, False, True
            left = deadline - time.monotonic()
            if left <= 0:
                _kill(pid)
                return None, True, False
            pause = min(left, 0.01 if stop_file or pidfd is None else 1.0)
            if pidfd is None:
                time.sleep(pause)
            else:
                select.select([pidfd], [], [], pause)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def main():
    jobs_path, out_path, preload = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(jobs_path) as fh:
        jobs = json.load(fh)
    _preload([p for p in preload.split(",") if p] + ["pytest"])
    with open(out_path, "w") as out:
        for job in jobs:
            start = time.monotonic()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                code = 70
                try:
                    os.setsid()
                    code = _child(job)
                except BaseException:  # the child must always end with os._exit
                    traceback.print_exc()
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            code, timed_out, stopped = _wait(pid, job["timeout"], job.get("stop_file"))
            out.write(json.dumps({"id": job["id"], "exit_code": code, "timed_out": timed_out, "stopped": stopped,
                                  "duration_s": round(time.monotonic() - start, 3)}) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
