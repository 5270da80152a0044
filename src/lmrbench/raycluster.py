"""Joining a Ray cluster, shared by the Ray executor (evaluations) and RayModel (generation requests)."""

from __future__ import annotations

import os
from typing import Any


def connect(address: str | None, num_cpus: int | None = None) -> tuple[Any, bool]:
    """The ray module, connected, and whether this call connected it (the caller then shuts it down).
    `address` None starts a private one-node Ray on this machine (with `num_cpus` if given)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no telemetry: nothing leaves this machine
    import ray

    if ray.is_initialized():
        return ray, False
    if address is None:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, log_to_driver=False)
    return ray, True


def cpu_node_strategies(ray: Any) -> list[Any]:
    """One hard node-affinity scheduling strategy per alive node that has a CPU; raises if there is none."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) > 0]
    if not nodes:
        raise RuntimeError("the Ray cluster has no alive node with a CPU")
    return [NodeAffinitySchedulingStrategy(n["NodeID"], soft=False) for n in nodes]
