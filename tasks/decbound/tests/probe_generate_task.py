"""Probe for decbound/1: `generate_task` in boundary/tasks.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_generate_task.py add the hand-checked layouts and the properties of the generator."""
import json
from pathlib import Path

from boundary.tasks import TASK_KINDS, ClassificationTask, generate_task, task_family
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "task_cases.json").read_text())
# the old tests' tolerance for coordinates (hand values: atol 1e-12, rtol 0); labels exactly
TOL = dict(rtol=1e-12, atol=1e-12, outputs={"*y": {"compare": "exact"}})
HAND = dict(rtol=0.0, atol=1e-12, outputs={"*y": {"compare": "exact"}})
DIFFERENTIAL = [k for k, c in enumerate(CASES) if not c.get("defaults")]
DEFAULTS = [k for k, c in enumerate(CASES) if c.get("defaults")]


def emit(t) -> dict:
    return {"is_task": isinstance(t, ClassificationTask), "kind": t.kind, "seed": t.seed, "X": t.X, "y": t.y}


# ---------------------------------------------------------------- hand-checked values (check file)


@case(**HAND)
def hand_checked_moons():
    return emit(generate_task("moons", n_samples=4, seed=0, noise=0.0, shuffle=False))


@case(**HAND)
def hand_checked_circles():
    return emit(generate_task("circles", n_samples=8, seed=0, noise=0.0, factor=0.5, shuffle=False))


@case(**HAND)
def odd_size_gives_the_extra_point_to_class_one():
    return emit(generate_task("moons", n_samples=5, seed=0, noise=0.0, shuffle=False))


@case(**HAND)
def linear_geometry_without_noise():
    return emit(generate_task("linear", n_samples=10, seed=3, noise=0.0, shuffle=False))


# ---------------------------------------------------------------- differential (the reference's outputs)


@case(params=DIFFERENTIAL, ids=[str(k) for k in DIFFERENTIAL], **TOL)
def matches_reference(k):
    c = CASES[k]
    return emit(generate_task(c["kind"], n_samples=c["n_samples"], seed=c["seed"], noise=c["noise"],
                              factor=c["factor"], shuffle=c["shuffle"]))


@case(params=DEFAULTS, ids=[str(k) for k in DEFAULTS], **TOL)
def matches_reference_with_default_arguments(k):
    return emit(generate_task(CASES[k]["kind"]))


# ---------------------------------------------------------------- properties (check file)


@case(params=TASK_KINDS, ids=TASK_KINDS, **TOL)
def deterministic_per_seed(kind):
    a = generate_task(kind, n_samples=40, seed=11)
    b = generate_task(kind, n_samples=40, seed=11)
    c = generate_task(kind, n_samples=40, seed=12)
    return {"a.X": a.X, "a.y": a.y, "b.X": b.X, "b.y": b.y, "c.X": c.X}


@case(params=TASK_KINDS, ids=TASK_KINDS, **TOL)
def noise_is_gaussian_with_the_given_scale(kind):
    clean = generate_task(kind, n_samples=4000, seed=5, noise=0.0, shuffle=False)
    noisy = generate_task(kind, n_samples=4000, seed=5, noise=0.2, shuffle=False)
    return {"clean.X": clean.X, "clean.y": clean.y, "noisy.X": noisy.X, "noisy.y": noisy.y}


@case(params=TASK_KINDS, ids=TASK_KINDS, **TOL)
def shuffle_permutes_points_with_their_labels(kind):
    ordered = generate_task(kind, n_samples=30, seed=2, noise=0.1, shuffle=False)
    shuffled = generate_task(kind, n_samples=30, seed=2, noise=0.1, shuffle=True)
    return {"ordered.X": ordered.X, "ordered.y": ordered.y, "shuffled.X": shuffled.X, "shuffled.y": shuffled.y}


@case(**TOL)
def circles_radii_and_factor():
    return emit(generate_task("circles", n_samples=21, seed=0, noise=0.0, factor=0.3))


@case(**TOL)
def moons_shapes():
    return emit(generate_task("moons", n_samples=50, seed=1, noise=0.0))


@case(**TOL)
def family_uses_per_task_seeds():
    fam = task_family(2, base_seed=5, n_samples=12)
    return {"kinds": [t.kind for t in fam], "seeds": [t.seed for t in fam],
            "X": [t.X for t in fam], "again": [generate_task(t.kind, 12, t.seed, 0.1).X for t in fam]}


@case
def rejects_unknown_kind():
    return {"result": generate_task("spirals", n_samples=10)}


@case
def rejects_fewer_than_two_samples():
    return {"result": generate_task("moons", n_samples=1)}
