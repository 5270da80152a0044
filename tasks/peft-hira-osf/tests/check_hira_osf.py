"""Trusted checks for peft-hira-osf/1 (never enter the sandbox).

Most outputs are compared with the release's by the case specs in the probe. Here: the checks by meaning against
the probe's own float64 references (paper.md), which hold for any correct solution."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, expect


def _v(out, key):
    return float(np.asarray(out[key]))


def _small(out, key, bound, what):
    expect(_v(out, key) <= bound, f"{key} = {_v(out, key):.3g} > {bound:g}: {what}")


# ---------------------------------------------------------------- HiRA (paper.md Part 1)


@check("hira_init[*]")
def hira_init(out, ref):
    close(out["out"], out["base"], rtol=1e-12, atol=1e-12, what="no-op at the start (B = 0)")


@check("hira_train[*]")
def hira_train(out, ref):
    close(out["losses"], out["losses_ref"], rtol=1e-9, atol=1e-12, what="losses = W0 * (1 + B A) reference")
    close(out["out"], out["out_ref"], rtol=1e-9, atol=1e-11, what="output = W0 * (1 + B A) reference")
    _small(out, "modulation_err", 1e-12, "get_delta_weight = B A")
    _small(out, "merged_w_err", 1e-12, "merged weight = W0 * (1 + B A)")
    _small(out, "frozen", 0.0, "W0 does not move in training")
    _small(out, "unmerge_restores", 1e-12, "unmerge restores W0")
    close(out["merged"], out["out"], rtol=1e-9, atol=1e-11, what="merged = unmerged output")
    close(out["after_unmerge"], out["out"], rtol=1e-9, atol=1e-11, what="unmerge gives the adapted output back")
    close(out["out_unloaded"], out["out"], rtol=1e-9, atol=1e-11, what="merge_and_unload = adapted output")
    close(out["disabled"], out["base"], rtol=1e-12, atol=1e-12, what="disabled adapter gives the base model")
    close(out["disabled_merged"], out["base"], rtol=1e-9, atol=1e-11, what="disabled after a merge = base model")


@check("hira_gradients")
def hira_gradients(out, ref):
    close(out["loss"], out["loss_ref"], rtol=1e-12, atol=1e-14, what="loss of the W0 * (1 + B A) model")
    close(out["grad_x"], out["grad_x_ref"], rtol=1e-9, atol=1e-12, what="input gradient")
    _small(out, "grad_a_err", 1e-12, "dL/dA = B^T (G * W0)")
    _small(out, "grad_b_err", 1e-12, "dL/dB = (G * W0) A^T")


@check("hira_two_adapters")
def hira_two_adapters(out, ref):
    close(out["out_default"], out["ref_default"], rtol=1e-9, atol=1e-11, what="first adapter alone")
    close(out["out_other"], out["ref_other"], rtol=1e-9, atol=1e-11, what="second adapter alone")
    close(out["both"], out["both_merged"], rtol=1e-9, atol=1e-11, what="both active = both merged")
    both = np.asarray(out["both"])
    sums = np.allclose(both, np.asarray(out["both_sum"]), rtol=1e-9, atol=1e-11)
    prod = np.allclose(both, np.asarray(out["both_product"]), rtol=1e-9, atol=1e-11)
    expect(sums or prod, "both active: the two modulations of W0 summed (or applied one after the other)")
    _small(out, "unmerge_restores", 1e-12, "unmerging two adapters restores W0")
    close(out["after_delete"], out["ref_default"], rtol=1e-9, atol=1e-11, what="after deleting the second")


@check("hira_dropout")
def hira_dropout(out, ref):
    close(out["out_eval"], out["ref_eval"], rtol=1e-9, atol=1e-11, what="eval: no dropout")


@check("hira_embedding")
def hira_embedding(out, ref):
    close(out["init_out"], out["base"], rtol=1e-12, atol=1e-12, what="no-op at the start")
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="embedding of W0 * (1 + M)")
    close(out["merged"], out["out"], rtol=1e-9, atol=1e-11, what="merged = unmerged output")
    close(out["out_unloaded"], out["out"], rtol=1e-9, atol=1e-11, what="merge_and_unload = adapted output")
    expect(_v(out, "loss2") < _v(out, "loss1"), "the embedding adapter trains")


@check("hira_conv")
def hira_conv(out, ref):
    close(out["init_out"], out["base"], rtol=1e-12, atol=1e-12, what="no-op at the start")
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="convolution with W0 * (1 + M)")
    close(out["merged"], out["out"], rtol=1e-9, atol=1e-11, what="merged = unmerged output")
    close(out["out_unloaded"], out["out"], rtol=1e-9, atol=1e-11, what="merge_and_unload = adapted output")
    close(out["disabled_merged"], out["base"], rtol=1e-9, atol=1e-11, what="disabled after a merge = base model")


@check("hira_conv1d_gpt2")
def hira_conv1d(out, ref):
    close(out["losses"], out["losses_ref"], rtol=1e-9, atol=1e-12, what="losses = reference (linear-map layout)")
    close(out["out"], out["out_ref"], rtol=1e-9, atol=1e-11, what="output = reference (linear-map layout)")
    close(out["merged"], out["out"], rtol=1e-9, atol=1e-11, what="merged = unmerged output")


@check("hira_save_load[*]")
def hira_save_load(out, ref):
    close(out["out_loaded"], out["out"], rtol=1e-12, atol=1e-12, what="reloaded adapter = trained adapter")


@check("safe_merge_nan")
def safe_merge_nan(out, ref):
    close(out["hira_w"], out["hira_w0"], rtol=0, atol=0, what="a refused HiRA safe merge leaves the weight as it was")
    close(out["osf_w"], out["osf_w0"], rtol=0, atol=0, what="a refused OSF safe merge leaves the weight as it was")


# ---------------------------------------------------------------- OSF (paper.md Part 2); the release decomposes
# in float32, so OSF values are relative to the size of the adapter's effect and compared at 1e-4


@check("osf_init[*]")
def osf_init(out, ref):
    close(out["out"], out["base"], rtol=1e-5, atol=1e-6, what="the pretrained model at the start")
    expect(int(np.asarray(out["n_trainable"])) == int(np.asarray(out["n_trainable_paper"])),
           "(p - k)(m + n + 1) trainable numbers per matrix")


@check("osf_train[*]")
def osf_train(out, ref):
    _small(out, "out_err", 1e-4, "output = float64 reference with projected gradients")
    _small(out, "loss_err", 1e-4, "losses = float64 reference")
    _small(out, "hi_left_err", 1e-4, "U_high^T dW = 0 (SGD)")
    _small(out, "hi_right_err", 1e-4, "dW V_high = 0 (SGD)")
    _small(out, "merged_err", 1e-6, "merged = unmerged output")
    _small(out, "unloaded_err", 1e-6, "merge_and_unload = adapted output")
    _small(out, "frozen", 0.0, "the base weight does not move before a merge")
    close(out["disabled"], out["base"], rtol=1e-12, atol=1e-12, what="disabled adapter gives the base model")


@check("osf_save_load[*]")
def osf_save_load(out, ref):
    _small(out, "loaded_err", 1e-6, "reloaded adapter = trained adapter")
    _small(out, "cont_err", 1e-4, "training after a reload = reference continued")


@check("osf_two_adapters")
def osf_two_adapters(out, ref):
    close(out["after_add"], out["out_default"], rtol=1e-12, atol=1e-12, what="adding an adapter changes nothing")
    close(out["other_init"], out["base"], rtol=1e-5, atol=1e-6, what="a new adapter starts at the pretrained model")
    _small(out, "other_err", 1e-4, "second adapter trained = reference with its own retained rank")
    _small(out, "default_err", 1e-9, "the first adapter is untouched")
