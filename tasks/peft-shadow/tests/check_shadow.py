"""Trusted checks for peft-shadow/1 (never enter the sandbox).

The probe compares every output with the release's; here the same outputs are checked once more by meaning
against the probe's independent hook reference of paper.md's equations, so that a failure names the rule."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, expect


@check("zero_init[*]")
def zero_init(out, ref):
    close(out["out"], out["base"], rtol=1e-12, atol=1e-12, what="W_up = 0: adapted model = base model (paper 3)")
    expect(int(out["base_trainable"]) == 0, "every base parameter stays frozen (paper 1)")
    expect(float(np.asarray(out["up_absmax"])) == 0.0, "W_up starts at zero (paper 3)")


@check("equations[*]")
def equations(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="logits = Eq. 1-7 applied by the hook reference")
    close(out["out_mask"], out["ref_mask"], rtol=1e-9, atol=1e-11, what="with a padding mask (same mask for B)")


@check("subset_blocks")
def subset_blocks(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="s^(0) enters at the first adapted block")


@check("aux_loss[*]")
def aux_loss(out, ref):
    # transformers computes the task cross-entropy in float32: 1e-6
    close(out["loss"], out["ref_loss"], rtol=1e-6, atol=1e-8, what="L = L_task + lambda CE(head(s^(0))) (Eq. 8-9)")


@check("train_steps")
def train_steps(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="trained logits = Eq. 1-7 with the trained values")
    expect(float(np.asarray(out["frozen"])) == 0.0, "training leaves every base parameter unchanged")


@check("disable_and_refusals")
def disable_and_refusals(out, ref):
    close(out["disabled"], out["base"], rtol=1e-12, atol=1e-12, what="disabled adapter = base model")
    close(out["unloaded"], out["base"], rtol=1e-12, atol=1e-12, what="unload gives the base model back")
    close(out["again"], out["out"], rtol=1e-12, atol=1e-12, what="re-enabled after disable_adapter")
    expect(bool(out["merge_refused"]) and bool(out["merge_and_unload_refused"]), "merging is refused (paper 6)")


@check("save_load")
def save_load(out, ref):
    close(out["logits_loaded"], out["logits"], rtol=1e-12, atol=1e-12, what="logits after save/load")


@check("two_adapters")
def two_adapters(out, ref):
    close(out["out_a"], out["ref_a"], rtol=1e-9, atol=1e-11, what="first adapter active: its blocks and backbone")
    close(out["out_b"], out["ref_b"], rtol=1e-9, atol=1e-11, what="second adapter active: its blocks and backbone")
    close(out["out_after_delete"], out["out_a"], rtol=1e-12, atol=1e-12, what="deleting the other adapter")


@check("cached_decoding")
def cached_decoding(out, ref):
    close(out["incremental"], out["full"], rtol=1e-9, atol=1e-11, what="cached decoding = full forward (paper 7)")


@check("detached_shadow")
def detached_shadow(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="detached model = head(P(B(x))) (paper 6)")
    close(out["out_copy"], out["ref"], rtol=1e-9, atol=1e-11, what="detached copy")
    close(out["unchanged_after_copy_edit"], out["ref"], rtol=1e-9, atol=1e-11, what="copy=True is independent")
    close(out["narrow_out"], out["narrow_ref"], rtol=1e-9, atol=1e-11, what="narrow backbone: own embeddings + P")


@check("seq_cls_aux_loss")
def seq_cls_aux_loss(out, ref):
    close(out["loss"], out["ref_loss"], rtol=1e-6, atol=1e-8, what="classification: pooled last non-pad s^(0)")


@check("gpt2_equations")
def gpt2_equations(out, ref):
    close(out["zero"], out["base"], rtol=1e-12, atol=1e-12, what="GPT-2: W_up = 0 gives the base model")
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="GPT-2: logits = Eq. 1-7")


@check("generate_cache")
def generate_cache(out, ref):
    expect(int(out["token_diff"]) == 0, "generate with cache = without cache (adapted model, paper 7)")
    expect(float(out["score_diff"]) < 1e-9, "cached scores = uncached scores (adapted model)")
    expect(int(out["det_token_diff"]) == 0, "detached model: generate with cache = without cache")
    expect(float(out["det_score_diff"]) < 1e-9, "detached model: cached scores = uncached scores")
    # generate() hands the scores over in float32
    expect(float(out["det_first_diff"]) < 1e-5, "detached model's first step = lm_head(P(B(x))) (paper 6)")


@check("api_paths")
def api_paths(out, ref):
    close(out["pos_out"], out["kw_out"], rtol=1e-12, atol=1e-12, what="positional input_ids = keyword input_ids")
    expect(int(out["n_after_add"]) == int(out["n_before"]), "an added, inactive adapter is not trainable")
    expect(int(out["beam_token_diff"]) == 0, "beam search with cache = without cache (paper 7)")
    expect(float(out["beam_score_diff"]) < 1e-6, "beam scores with cache = without cache")
    expect(bool(out["detached_embeddings_shared"]), "detached model reads the base input embeddings (paper 2, 6)")


@check("seq_cls_kinds[*]")
def seq_cls_kinds(out, ref):
    close(out["loss"], out["ref_loss"], rtol=1e-6, atol=1e-8, what="classification auxiliary loss (paper 5)")
    close(out["det_logits"], out["det_ref"], rtol=1e-9, atol=1e-11, what="detached classifier = head(s^(0)[last])")


@check("cache_api")
def cache_api(out, ref):
    expect(int(out["seq_len"]) == int(out["base_seq_len"]), "cache length = the base model's own cache")
    expect(bool(out["initialized"]) == bool(out["base_initialized"]), "is_initialized as the base cache")
    expect(int(out["max_length"]) == int(out["base_max_length"]), "get_max_length delegates to the base cache")
    expect(list(out["mask_sizes"]) == list(out["base_mask_sizes"]), "get_mask_sizes delegates to the base cache")
    for key in ("cropped", "selected", "repeated", "reordered"):
        close(out[key], out[key + "_ref"], rtol=1e-9, atol=1e-11, what=f"{key} cache: next step = full forward")


@check("pretrained_backbone[*]")
def pretrained_backbone(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="pretrained backbone: logits = Eq. 1-7")
    expect(not bool(out["embedding_trainable"]),
           "a pretrained backbone's embeddings stay frozen (model.py `_freeze_backbone_embeddings` docstring)")
    expect(bool(out["others_trainable"]), "the rest of the shadow backbone is trained")
    expect(float(np.asarray(out["loaded_diff"])) == 0.0, "the backbone holds the checkpoint's weights")


@check("block_ranges")
def block_ranges(out, ref):
    expect(int(out["n_after_add"]) == int(out["n_before"]), "an added adapter on new blocks is not trainable")
    expect(bool(out["adapted"]), "the active adapter over blocks 0-1 changes the output (paper 4)")
    expect(float(np.asarray(out["positional_diff"])) < 1e-11, "positional call of the tuned model = keyword call")


@check("qwen2_layer_types")
def qwen2_layer_types(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="Qwen2 (layer_types): logits = Eq. 1-7")


@check("tuple_blocks")
def tuple_blocks(out, ref):
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="BLOOM (tuple blocks): logits = Eq. 1-7")


@check("detached_embeddings")
def detached_embeddings(out, ref):
    expect(bool(out["reads_new_table"]), "set_input_embeddings then get_input_embeddings returns the new table")
    close(out["out"], out["ref"], rtol=1e-9, atol=1e-11, what="detached model reads the new table")
