"""Trusted checks for peft-paca-unilora/1 (never enter the sandbox).

Most outputs are compared with the release's by the case specs in the probe. Here: consistency checks that hold
for any correct solution, stated once more by meaning so that a failure names the rule."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, expect


@check("paca_train[*]")
def paca_train_consistency(out, ref):
    close(out["merged"], out["out"], rtol=1e-9, atol=1e-11, what="merged = unmerged output")
    close(out["disabled"], out["base"], rtol=1e-12, atol=1e-12, what="disabled adapter gives the base model")
    close(out["after_unmerge"], out["out"], rtol=1e-9, atol=1e-11, what="unmerge gives the adapted output back")
    for key in ("frozen_after_training", "frozen_after_backward", "unmerge_restores"):
        expect(float(np.asarray(out[key])) < 1e-12, f"{key}: the frozen weight is unchanged")


@check("paca_gradients")
def paca_gradients(out, ref):
    close(out["loss"], out["loss_ref"], rtol=1e-12, atol=1e-14, what="loss = loss of the merged model")
    close(out["grad_x"], out["grad_x_ref"], rtol=1e-9, atol=1e-12, what="input gradient through the adapted weight")
    expect(float(np.asarray(out["update_grad_err"])) < 1e-10, "update gradient = s * (dL/dy) x_S^T")


@check("paca_two_adapters")
def paca_two_adapters(out, ref):
    close(out["both"], out["both_merged"], rtol=1e-9, atol=1e-11, what="both active = both merged")


@check("paca_compile")
def paca_compile(out, ref):
    close(out["out"], out["eager_out"], rtol=1e-10, atol=1e-12, what="compiled output = eager output")
    close(out["grad_x"], out["eager_grad_x"], rtol=1e-10, atol=1e-12, what="compiled input gradient")
    close(out["grads"], out["eager_grads"], rtol=1e-10, atol=1e-12, what="compiled update gradient")


def _projection(out, prefix=""):
    # paper 2.2: the columns of P are normalised (1/sqrt(n_j)) so that P^T P = I; the precision of the scales is
    # not decided (the release takes them in float32), hence 1e-5
    expect(float(np.asarray(out[prefix + "isometry_err"])) < 1e-5, "P^T P = I (isometric projection)")
    expect(float(np.asarray(out[prefix + "column_value_err"])) < 1e-5, "non-zero entries of column j are 1/sqrt(n_j)")


@check("unilora_projection[*]")
def unilora_projection(out, ref):
    _projection(out)
    expect(float(np.asarray(out["other_seed_P_diff"])) > 0, "another proj_seed gives another projection")


@check("unilora_conv1d")
def unilora_conv1d(out, ref):
    _projection(out)


@check("unilora_adapters")
def unilora_adapters(out, ref):
    _projection(out, "b_")


@check("paca_compile")
def paca_compile_two_adapters(out, ref):
    close(out["out_both"], out["eager_out_both"], rtol=1e-10, atol=1e-12, what="compiled = eager, two adapters")
    expect(float(np.asarray(out["frozen_both"])) < 1e-12, "the frozen weight is restored after a compiled pass")
