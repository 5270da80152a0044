"""Trusted checks for peft-road-delora/1 (never enter the sandbox).

Almost everything is compared with the release's outputs by the default comparison (see the case specs in the
probe). Here: the readings the package leaves open, and consistency checks that hold for any correct solution."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect


@check("registration")
def registration(out, ref):
    # register_peft_method's docstring: "If not provided, the name of the PEFT method is used as the prefix";
    # every model class spells it with a trailing underscore. Accept both readings.
    for key, name in (("ROAD.2", "road"), ("DELORA.2", "delora")):
        expect(out.get(key) in (name, name + "_"), f"{key}: prefix is {out.get(key)!r}")


@check("road_train_merge[*]")
def road_merge_consistency(out, ref):
    # the merge may be taken in float32 (nothing decides its precision): merged = unmerged to float32 precision
    close(out["merged"], out["out"], rtol=1e-5, atol=1e-6, what="merged = unmerged output")
    # after an unmerge (R^-1 may be taken in float32): merge_and_unload agrees to float32 precision
    close(out["unloaded"], out["out"], rtol=1e-5, atol=1e-6, what="merge_and_unload output")
    expect(float(np.asarray(out["unmerge_restores"])) < 1e-5, "unmerge restores the base weight and bias")
    close(out["disabled_merged"], out["disabled"], rtol=1e-5, atol=1e-6, what="disabling a merged adapter")


@check("road_mixed_batch[*]")
def road_mixed(out, ref):
    a, b, base, mixed = (np.asarray(out[k], dtype=np.float64) for k in ("a", "b", "base", "mixed"))
    want = np.stack([a[0], b[1], base[2], b[3], a[4]])
    close(mixed, want, rtol=1e-10, atol=1e-12, what="each example uses its own adapter")
    close(out["after_mixed"], b, rtol=1e-10, atol=1e-12, what="no adapter_names left behind after a mixed batch")


@check("delora_forward_merge[*]")
def delora_merge_consistency(out, ref):
    close(out["merged"], out["out"], rtol=1e-9, atol=1e-10, what="merged = unmerged output")
    expect(float(np.asarray(out["unmerge_restores"])) < 1e-10, "unmerge restores the base weight")
    close(out["disabled_merged"], out["disabled"], rtol=1e-9, atol=1e-10, what="disabling a merged adapter")


@check("glora_mixed_batch")
def glora_mixed(out, ref):
    a, b, base, mixed = (np.asarray(out[k], dtype=np.float64) for k in ("a", "b", "base", "mixed"))
    close(mixed, np.stack([b[0], base[1], a[2], b[3]]), rtol=1e-10, atol=1e-12, what="GLoRA mixed batch")
    equal(bool(out["errors.unknown"]), True, what="unknown adapter refused")
