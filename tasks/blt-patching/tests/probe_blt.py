"""Probe for blt-patching/1: entropy patching, hash n-gram embeddings and the local encoder in
blt/local_encoder.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_blt.py add hand-checked values and the properties the method description states."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from blt.config import EncoderConfig, ModelConfig, PatchingConfig
from blt.data import batches
from blt.entropy_model import ByteLM
from blt.local_encoder import (HashNgramEmbedding, LocalEncoder, PatchCrossAttention, byte_entropies,
                               compute_patches, entropy_patch_starts, ngram_hash_ids, patches_from_starts,
                               pool_patches)
from blt.patches import Patches
from lmrbench_probe import case
from train import train

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "cases.pt", weights_only=True)
ENTROPY_STATE = torch.load(FIXTURES / "entropy_model.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=1e-4, atol=1e-4)}


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


def dtype_of(name: str) -> torch.dtype:
    return getattr(torch, name.split(".")[-1])


def patches_of(c: dict) -> Patches:
    return Patches(patch_ids=c["patch_ids"], n_patches=c["n_patches"], lengths=c["lengths"])


def layout_outputs(p: Patches) -> dict:
    return {"patch_ids": p.patch_ids, "n_patches": p.n_patches, "lengths": p.lengths}


def param_grads(module: torch.nn.Module, p: str) -> dict:
    return {f"{p}grad.{name}": (param.grad if param.grad is not None else torch.zeros_like(param))
            for name, param in module.named_parameters()}


def entropy_model() -> ByteLM:
    model = ByteLM(**{"d": 32, "n_layers": 2, "n_heads": 2}).to(F64)
    model.load_state_dict(ENTROPY_STATE)
    return model.eval()


# ---------------------------------------------------------------- entropies and patch boundaries


@case(params=range(len(CASES["entropy"])), **TOL64, outputs=TOL32)
def entropy_matches_reference(i):
    c = CASES["entropy"][i]
    logits = c["logits"].clone().requires_grad_(True)
    h = byte_entropies(logits)
    (grad,) = torch.autograd.grad((h * c["cotangent"]).sum(), logits)
    p = prefix(logits.dtype)
    return {f"{p}entropy": h, f"{p}grad": grad}


@case(rtol=1e-12, atol=1e-12)
def entropy_hand_values():
    uniform = byte_entropies(torch.zeros(1, 1, 256, dtype=F64))
    two = byte_entropies(torch.tensor([[[0.0, math.log(3.0)]]], dtype=F64))
    peaked = byte_entropies(torch.tensor([[[0.0, -1e4, -1e4], [500.0, 0.0, -500.0]]], dtype=F64))
    return {"uniform": uniform, "two": two, "peaked": peaked}


@case(params=range(len(CASES["starts"])), compare="exact")
def starts_matches_reference(i):
    c = CASES["starts"][i]
    return {"starts": entropy_patch_starts(c["entropies"], PatchingConfig(c["method"], c["threshold"]))}


@case(compare="exact")
def starts_hand_values():
    h_global = torch.tensor([[3.0, 1.0, 2.5, 2.0, 0.5, 4.0], [1.0, 2.25, 1.5, 1.75, 3.0, 0.0]], dtype=F64)
    h_mono = torch.tensor([[1.0, 3.0, 3.5, 1.0, 2.5, 3.5], [4.0, 0.5, 2.0, 2.0, 3.25, 0.0]], dtype=F64)
    return {"global": entropy_patch_starts(h_global, PatchingConfig("global", 2.0)),
            "monotonic": entropy_patch_starts(h_mono, PatchingConfig("monotonic", 1.0))}


@case(compare="exact")
def starts_monotonic_ignores_the_level():
    h = torch.randint(0, 40, (3, 15), generator=torch.Generator().manual_seed(5)).to(F64) / 8
    cfg = PatchingConfig("monotonic", 0.3)
    return {"base": entropy_patch_starts(h, cfg), "shifted": entropy_patch_starts(h + 2.0, cfg)}


@case
def starts_bad_shape_raises():
    return {"starts": entropy_patch_starts(torch.zeros(2, 3, 4, dtype=F64), PatchingConfig())}


@case(params=range(len(CASES["layouts"])), compare="exact")
def layout_matches_reference(i):
    return layout_outputs(patches_from_starts(CASES["layouts"][i]))


@case(compare="exact")
def layout_hand_values():
    starts = torch.tensor([[1, 0, 0, 1, 1, 0], [1, 1, 0, 0, 0, 0]], dtype=torch.bool)
    return layout_outputs(patches_from_starts(starts))


@case
def layout_without_first_start_raises():
    return layout_outputs(patches_from_starts(torch.tensor([[True, False], [False, True]])))


@case(params=["global", "monotonic"], compare="exact")
def compute_patches_matches_reference(method):
    tokens = next(batches(3, 40, seed=11))
    threshold = 3.3 if method == "global" else 1.0
    full = compute_patches(tokens, entropy_model(), PatchingConfig(method, threshold))
    head = compute_patches(tokens[:, :17], entropy_model(), PatchingConfig(method, threshold))
    return {**layout_outputs(full), **{f"prefix.{k}": v for k, v in layout_outputs(head).items()}, "cut": 17}


@case
def starts_no_positions_raises():
    return {"starts": entropy_patch_starts(torch.zeros(2, 0, dtype=F64), PatchingConfig())}


@case
def layout_not_bool_raises():
    return layout_outputs(patches_from_starts(torch.ones(2, 3, dtype=torch.long)))


@case
def layout_no_positions_raises():
    return layout_outputs(patches_from_starts(torch.zeros(2, 0, dtype=torch.bool)))


@case
def embedding_negative_token_raises():
    return {"embedding": HashNgramEmbedding(EncoderConfig())(torch.tensor([[3, -1]]))}


@case
def encoder_mismatched_patches_raises():
    patches = Patches(patch_ids=torch.zeros(1, 4, dtype=torch.long), n_patches=torch.tensor([1]),
                      lengths=torch.tensor([[4]]))
    reps, states = LocalEncoder(EncoderConfig())(torch.zeros(1, 5, dtype=torch.long), patches)
    return {"reps": reps, "states": states}

# ---------------------------------------------------------------- hash n-gram embeddings


@case(params=range(len(CASES["ngrams"])), compare="exact")
def ngram_ids_match_reference(i):
    c = CASES["ngrams"][i]
    return {"ids": ngram_hash_ids(c["tokens"], c["n"], c["table_size"], c["pad"])}


@case(compare="exact")
def ngram_ids_hand_values():
    return {"unigram": ngram_hash_ids(torch.tensor([[3, 200, 17]]), 1, 13, 0),
            "bigram": ngram_hash_ids(torch.tensor([[1, 2]]), 2, 2**31, 0),
            "padded_trigram": ngram_hash_ids(torch.tensor([[5]]), 3, 1000, 7),
            "trigram": ngram_hash_ids(torch.tensor([[4, 2, 9, 1]]), 3, 100, 0)}


@case
def ngram_ids_bad_size_raises():
    return {"ids": ngram_hash_ids(torch.tensor([[1, 2]]), 0, 97, 0)}


def build(module_cls, c: dict, dtype: torch.dtype) -> torch.nn.Module:
    module = module_cls(EncoderConfig(**c["config"])).to(dtype)
    module.load_state_dict(c["state"])
    return module


@case(params=range(len(CASES["embed"])), **TOL64, outputs=TOL32)
def embedding_matches_reference(i):
    c = CASES["embed"][i]
    dtype = dtype_of(c["dtype"])
    module = build(HashNgramEmbedding, c, dtype)
    e = module(c["tokens"])
    (e * c["cotangent"].to(dtype)).sum().backward()
    p = prefix(dtype)
    return {f"{p}embedding": e, **param_grads(module, p)}


@case(rtol=1e-12, atol=1e-12)
def embedding_hand_values():
    module = HashNgramEmbedding(EncoderConfig(d_local=2, ngram_sizes=(1, 2), hash_table_size=1000)).to(F64)
    with torch.no_grad():
        rows = torch.arange(256, dtype=F64)
        module.byte_embed.weight.copy_(torch.stack([0.5 * rows, -rows], dim=1))
        table = torch.arange(1000, dtype=F64)
        module.hash_embeds[0].weight.copy_(torch.stack([table, torch.zeros_like(table)], dim=1))
        module.hash_embeds[1].weight.copy_(torch.stack([torch.zeros_like(table), table], dim=1))
        return {"embedding": module(torch.tensor([[3, 7]]))}


@case
def embedding_bad_token_raises():
    return {"embedding": HashNgramEmbedding(EncoderConfig())(torch.tensor([[1, 256]]))}


# ---------------------------------------------------------------- pooling and cross-attention


@case(params=range(len(CASES["pool"])), **TOL64, outputs=TOL32)
def pool_matches_reference(i):
    c = CASES["pool"][i]
    states = c["states"].clone().requires_grad_(True)
    pooled = pool_patches(states, patches_of(c), c["mode"])
    (grad,) = torch.autograd.grad((pooled * c["cotangent"]).sum(), states)
    p = prefix(states.dtype)
    return {f"{p}pooled": pooled, f"{p}grad": grad}


@case(params=["max", "mean"], rtol=1e-12, atol=1e-12)
def pool_hand_values(mode):
    states = torch.tensor([[1.0, 5.0, 2.0, -3.0, 4.0], [-2.0, -1.0, 6.0, 0.5, 0.0]], dtype=F64).unsqueeze(-1)
    starts = torch.tensor([[1, 0, 1, 1, 0], [1, 0, 0, 0, 0]], dtype=torch.bool)
    patches = Patches(patch_ids=starts.long().cumsum(1) - 1, n_patches=torch.tensor([3, 1]),
                      lengths=torch.tensor([[2, 1, 2], [5, 0, 0]]))
    return {"pooled": pool_patches(states, patches, mode)}


@case(params=range(len(CASES["cross"])), **TOL64, outputs=TOL32)
def cross_attention_matches_reference(i):
    c = CASES["cross"][i]
    dtype = c["patch_states"].dtype
    module = build(PatchCrossAttention, c, dtype)
    ps, bs = c["patch_states"].clone().requires_grad_(True), c["byte_states"].clone().requires_grad_(True)
    out = module(ps, bs, patches_of(c))
    (out * c["cotangent"]).sum().backward()
    p = prefix(dtype)
    return {f"{p}out": out, f"{p}grad_patch_states": ps.grad, f"{p}grad_byte_states": bs.grad,
            **param_grads(module, p)}


def cross_setup(seed: int, starts: list[list[int]]) -> tuple[PatchCrossAttention, torch.Tensor, torch.Tensor,
                                                                 Patches]:
    cfg = EncoderConfig(d_local=4, cross_heads=2)
    torch.manual_seed(seed)
    module = PatchCrossAttention(cfg).to(F64)
    with torch.no_grad():
        for param in module.parameters():
            param.add_(0.3 * torch.randn_like(param))
    s = torch.tensor(starts, dtype=torch.bool)
    ids = s.long().cumsum(1) - 1
    n = s.long().sum(1)
    lengths = torch.stack([torch.bincount(row, minlength=int(n.max())) for row in ids])
    patches = Patches(patch_ids=ids, n_patches=n, lengths=lengths)
    gen = torch.Generator().manual_seed(seed)
    ps = torch.randn(s.shape[0], int(n.max()), cfg.d_patch, generator=gen, dtype=F64)
    bs = torch.randn(s.shape[0], s.shape[1], cfg.d_local, generator=gen, dtype=F64)
    return module, ps, bs, patches


@case(**TOL64)
def cross_attention_sees_only_its_patch():
    module, ps, bs, patches = cross_setup(21, [[1, 0, 0, 1, 0, 1, 0, 0], [1, 0, 1, 0, 0, 0, 0, 0]])
    changed = bs.clone()
    changed[0, 3:5] = -2.0 * changed[0, 3:5] + torch.arange(4, dtype=F64)  # the bytes of patch 1 of sequence 0
    permuted = bs.clone()
    permuted[0, [5, 6, 7]] = bs[0, [7, 5, 6]]  # reorder the bytes inside patch 2 of sequence 0
    return {"base": module(ps, bs, patches), "changed": module(ps, changed, patches),
            "permuted": module(ps, permuted, patches)}


@case(**TOL64)
def cross_attention_single_byte_patches():
    module, ps, bs, patches = cross_setup(22, [[1, 1, 1, 1, 1]])
    with torch.no_grad():
        direct = ps + module.o_proj(module.v_proj(module.v_norm(bs)))
        return {"out": module(ps, bs, patches), "direct": direct}


# ---------------------------------------------------------------- the local encoder and the model


@case(params=range(len(CASES["encoder"])), **TOL64, outputs=TOL32)
def encoder_matches_reference(i):
    c = CASES["encoder"][i]
    dtype = dtype_of(c["dtype"])
    module = build(LocalEncoder, c, dtype)
    reps, states = module(c["tokens"], patches_of(c))
    ((reps * c["cot_p"].to(dtype)).sum() + (states * c["cot_h"].to(dtype)).sum()).backward()
    p = prefix(dtype)
    return {f"{p}patch_reps": reps, f"{p}byte_states": states, **param_grads(module, p)}


@case(**TOL64)
def encoder_byte_path_and_causality():
    c = CASES["encoder"][0]
    module = build(LocalEncoder, c, F64)
    patches = patches_of(c)
    tokens = c["tokens"]
    with torch.no_grad():
        reps, states = module(tokens, patches)
        h = module.embed(tokens)
        for layer in module.layers:
            h = layer(h)
        last_of_patch0 = int(patches.lengths[0, 0]) - 1
        later = tokens.clone()
        later[0, last_of_patch0 + 1:] = (later[0, last_of_patch0 + 1:] + 1) % 256
        reps_later, _ = module(later, patches)
    return {"states": states, "layers_only": h, "reps": reps, "reps_later": reps_later}


@case(params=["global-max", "monotonic-mean"], **TOL64)
def model_end_to_end(variant):
    method, pooling = variant.split("-")
    threshold = 3.3 if method == "global" else 0.8
    cfg = ModelConfig(patching=PatchingConfig(method, threshold),
                      encoder=EncoderConfig(d_local=8, n_layers=2, window=4, cross_heads=2, pooling=pooling),
                      global_layers=1, global_heads=2)
    losses = train(cfg, entropy_model(), steps=3, batch_size=2, seq_len=24, dtype=F64)
    return {"losses": torch.tensor(losses, dtype=F64)}
