"""One set of CPU kernels for every sandboxed run, whatever the host's instruction set.

torch, numpy and OpenBLAS each pick their vector kernels at start-up from the host CPU: the same float32
computation gives last-bit differences on an AVX2 and an AVX-512 machine (softmax, exp, reductions, matmul in
numpy), which is enough to change a regenerated fixture and, where a tolerance is at the limit of the format, a
verdict. On x86-64 hosts with AVX2 every sandboxed process is pinned to the AVX2 kernels, the widest set that
every such host has: torch's own kernels and numpy's then compute the same bits on an AVX2 and an AVX-512
machine. Hosts without AVX2 (and
other architectures) run their own kernels; the tasks' tolerances cover float rounding, so verdicts agree there
too, but fixtures regenerated on them may differ in the last bits.

Intel MKL (torch's BLAS and LAPACK on x86-64) cannot be pinned this way: it picks its kernels by CPU model and
vendor, and its conditional-reproducibility switch promises nothing on non-Intel CPUs. Matrix products may so
differ in the last bits between hosts; 'other-blas' (`lmrbench validate --kernels other-blas`) proves that the
tasks' tolerances cover that.
"""

from __future__ import annotations

import functools
import platform
from pathlib import Path

from lmrbench.sandbox.base import Kernels


def _cpu_flags(cpuinfo: str) -> set[str]:
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def numerics_env(machine: str, cpuinfo: str) -> dict[str, str]:
    """The environment that pins kernels on a host of this architecture and /proc/cpuinfo (pure, for tests)."""
    if machine not in ("x86_64", "AMD64") or not {"avx2", "fma"} <= _cpu_flags(cpuinfo):
        return {}
    return {
        "ATEN_CPU_CAPABILITY": "avx2",  # torch's own kernels (softmax, exp, reductions, optimizers)
        "NPY_DISABLE_CPU_FEATURES": "X86_V4",  # numpy's dispatched ufuncs: no AVX-512 variants
        "OPENBLAS_CORETYPE": "Haswell",  # numpy/scipy BLAS: the AVX2 kernels
    }


# The pinned set with another BLAS: MKL's compatibility branch and OpenBLAS's oldest x86-64 kernels. torch's
# own kernels (random numbers included) stay pinned, so inputs are the same bits; the matrix products, which
# differ between hosts even when everything else is pinned (MKL picks its kernels by CPU model and vendor), are
# summed in another order. A reference that passes here has tolerances that cover that difference.
OTHER_BLAS_ENV = {"MKL_CBWR": "COMPATIBLE", "OPENBLAS_CORETYPE": "Prescott"}


@functools.cache
def pinned_numerics_env() -> dict[str, str]:
    """numerics_env for this host (read once per process)."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        cpuinfo = ""
    return numerics_env(platform.machine(), cpuinfo)


# MKL's code branches, one at a time: an x86-64 host runs one of them, chosen by MKL from the CPU's model and vendor.
MKL_BRANCH_ENV = {"mkl-avx2": "AVX2", "mkl-avx512": "AVX512", "mkl-sse4_2": "SSE4_2"}


def kernels_env(kernels: Kernels) -> dict[str, str]:
    """The environment a sandboxed process gets for SandboxConfig.kernels."""
    if kernels == "host":
        return {}
    if kernels in MKL_BRANCH_ENV:
        on_x86 = platform.machine() in ("x86_64", "AMD64")
        return pinned_numerics_env() | ({"MKL_CBWR": MKL_BRANCH_ENV[kernels]} if on_x86 else {})
    if kernels == "other-blas":
        return pinned_numerics_env() | (OTHER_BLAS_ENV if platform.machine() in ("x86_64", "AMD64") else {})
    return dict(pinned_numerics_env())
