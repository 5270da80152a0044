"""Probe for xtr-free-transformer/1: the Free Transformer of x_transformers (free_transformer.py), reached through
its public classes: `BinaryMapper` called on chosen logits (sampling, code order, straight-through gradient,
free-bits KL), and `FreeTransformer` built with a tiny float32 configuration (training loss, latent encoding,
generation with and without a key/value cache, a few training steps, a state-dict round trip).

The mapper's outputs are decided by the paper and compared with the release's. The model's weights are random
and their layout (module names, creation order) is the implementer's choice, so every model case emits
quantities judged by meaning (invariances and properties the paper states) with compare="none"; the checks in
check_free.py judge them. Runs in the sandbox and emits outputs only."""

from __future__ import annotations

import math
import warnings

import torch
import torch.nn.functional as F
from lmrbench_probe import case
from x_transformers.autoregressive_wrapper import top_k
from x_transformers.free_transformer import BinaryMapper, FreeTransformer, binary_entropy

warnings.filterwarnings("ignore")
try:  # the package logs a warning for small rotary dimensions; keep the probe's output quiet
    from loguru import logger

    logger.remove()
except Exception:
    pass

NUM_TOKENS = 23
CFG = dict(num_tokens=NUM_TOKENS, dim=16, dec_head_depth=1, dec_tail_depth=1, max_seq_len=32, heads=2,
           attn_dim_head=8, latent_bits=3)
EXACT = {"rtol": 1e-5, "atol": 1e-6}


def model(seed: int = 0, **overrides) -> FreeTransformer:
    torch.manual_seed(seed)
    return FreeTransformer(**{**CFG, **overrides})


def tokens(seed: int, shape: tuple[int, ...], low: int = 1) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(low, NUM_TOKENS, shape, generator=gen)


def scalar(x) -> float:
    return float(torch.as_tensor(x).detach().reshape(()))


def call_mapper(mapper, logits, **kw):
    """(codes, KL term) whether the mapper returns a pair or only the codes when no KL is asked for."""
    res = mapper(logits, **kw)
    if isinstance(res, (tuple, list)):
        return res[0], (res[1] if len(res) > 1 else None)
    return res, None


def rows(one_hot: torch.Tensor, codes: int) -> torch.Tensor:
    return one_hot.detach().reshape(-1, codes)


def summary(one_hot: torch.Tensor, codes: int) -> dict:
    """Whether every row of a (value-)one-hot tensor is a one-hot vector, and the indices it picks."""
    r = rows(one_hot, codes).double()
    binary = bool((torch.minimum(r.abs(), (r - 1).abs()) < 1e-5).all())   # straight-through values round
    return {"one_hot": binary and bool(((r.sum(-1) - 1).abs() < 1e-5).all()), "index": r.argmax(-1)}


# ----------------------------------------------------------------------------------------- binary mapper

@case(params=[1, 3, 5], ids=["bits1", "bits3", "bits5"], dtype=False, **EXACT)
def mapper_codes(bits):
    # logits far from zero: every bit is sampled with probability 1 - e^-40, whatever the sampler
    gen = torch.Generator().manual_seed(bits)
    signs = torch.randint(0, 2, (2, 5, bits), generator=gen) * 2 - 1
    logits = 40.0 * signs.float()
    mapper = BinaryMapper(bits)
    one_hot, aux = call_mapper(mapper, logits, straight_through=False, calc_aux_loss=False)
    aux_off = None if aux is None else float(torch.as_tensor(aux).detach().reshape(-1)[0])
    return {"logits": logits, **summary(one_hot, 2 ** bits), "aux_when_off_is_zero": aux_off in (None, 0.0)}


@case(params=[(2, 3), (3, 4)], ids=["b2t3", "b3t4"], dtype=False, **EXACT)
def mapper_code_value_straight_through(arg):
    # the straight-through output's value is the hard one-hot (paper: Y + G - stopgrad(G))
    bits, t = arg
    gen = torch.Generator().manual_seed(10 * bits + t)
    logits = 40.0 * (torch.randint(0, 2, (t, bits), generator=gen) * 2 - 1).float()
    mapper = BinaryMapper(bits)
    one_hot, _ = call_mapper(mapper, logits.requires_grad_(), straight_through=True, calc_aux_loss=False)
    return {"logits": logits.detach(), **summary(one_hot, 2 ** bits)}


@case(params=[(3, 1.0), (4, 1.5), (2, 3.0)], ids=["bits3", "bits4", "bits2_wide"], **EXACT)
def mapper_gradient(arg):
    # d/dlogits of sum(W * Z): the sample does not enter it, only the code probabilities G
    bits, spread = arg
    gen = torch.Generator().manual_seed(bits)
    logits = (torch.randn(2, 3, bits, generator=gen) * spread).requires_grad_()
    weights = torch.randn(2 ** bits, generator=gen)
    mapper = BinaryMapper(bits)
    one_hot, _ = call_mapper(mapper, logits, straight_through=True, calc_aux_loss=False)
    (one_hot * weights).sum().backward()
    return {"logits": logits.detach(), "weights": weights, "grad": logits.grad}


@case(params=["above", "above_small_budget", "below", "zero"], ids=["above", "above_small_budget", "below", "zero"],
      **EXACT)
def mapper_kl(regime):
    # every token's KL on the same side of the budget, so the per-token and the averaged readings agree
    bits = 4
    gen = torch.Generator().manual_seed(7)
    signs = (torch.randint(0, 2, (2, 3, bits), generator=gen) * 2 - 1).float()
    jitter = torch.rand(2, 3, bits, generator=gen)
    if regime.startswith("above"):
        logits = signs * (3.0 + jitter)
    elif regime == "below":
        logits = signs * 0.2 * jitter
    else:
        logits = torch.zeros(2, 3, bits)
    threshold = 0.25 if regime == "above_small_budget" else math.log(2)
    mapper = BinaryMapper(bits, threshold)
    logits.requires_grad_()
    _, aux = call_mapper(mapper, logits, straight_through=False, calc_aux_loss=True)
    aux = torch.as_tensor(aux).float().reshape(())
    grad = torch.autograd.grad(aux, logits, allow_unused=True)[0] if aux.requires_grad else None
    return {"logits": logits.detach(), "threshold": threshold, "aux": aux.detach(),
            "grad": grad if grad is not None else torch.zeros_like(logits)}


@case(compare="none")
def binary_entropy_values():
    logits = torch.tensor([[0.0, 1.0, -2.0], [5.0, -0.5, 0.25]])
    return {"entropy": binary_entropy(logits)}


@case(dtype=False, **EXACT)
def mapper_temperature():
    # near-zero temperature: each bit is 1 exactly where its logit is positive
    gen = torch.Generator().manual_seed(3)
    logits = (torch.rand(4, 6, 3, generator=gen) - 0.5) * 0.6
    mapper = BinaryMapper(3)
    one_hot, _ = call_mapper(mapper, logits, temperature=1e-4, straight_through=False, calc_aux_loss=False)
    return {"logits": logits, **summary(one_hot, 8)}


@case(compare="none")
def mapper_statistics():
    # bits with probabilities 0.75, 0.25, 0.5: code frequencies over many samples
    n = 20000
    logits = torch.tensor([math.log(3.0), -math.log(3.0), 0.0]).expand(n, 3).contiguous()
    mapper = BinaryMapper(3)
    torch.manual_seed(11)
    one_hot, _ = call_mapper(mapper, logits, straight_through=False, calc_aux_loss=False)
    s = summary(one_hot, 8)
    freq = torch.bincount(s["index"], minlength=8).double() / n
    return {"one_hot": s["one_hot"], "freq": freq}


# ----------------------------------------------------------------------------------------- the model

def loss_parts(m: FreeTransformer, seq: torch.Tensor, seed: int, **kw) -> torch.Tensor:
    torch.manual_seed(seed)
    return torch.as_tensor(m(seq, **kw)).reshape(())


def n_params(m: torch.nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


@case(compare="none")
def head_depth_params():
    # the head holds dec_head_depth blocks: more head blocks, more parameters
    return {f"depth{d}": n_params(model(0, dec_head_depth=d)) for d in (0, 1, 2)}


@case(params=["default", "no_head", "deeper"], compare="none")
def forward_loss(name):
    over = {"default": {}, "no_head": {"dec_head_depth": 0}, "deeper": {"dec_head_depth": 2, "enc_depth": 2}}[name]
    m = model(1, **over)
    m.train()
    seq = tokens(2, (2, 10))
    loss = loss_parts(m, seq, 3)
    loss.backward()
    grads = [p.grad for p in m.parameters() if p.requires_grad]
    with_grad = [g for g in grads if g is not None and bool(g.abs().sum() > 0)]
    emb = [mod for mod in m.modules() if isinstance(mod, torch.nn.Embedding)]
    emb_grad = emb[0].weight.grad if emb and emb[0].weight.grad is not None else None
    return {"loss": scalar(loss), "finite": bool(torch.isfinite(loss)), "requires_grad": loss.requires_grad,
            "frac_params_with_grad": len(with_grad) / max(1, len(grads)),
            "grads_finite": all(bool(torch.isfinite(g).all()) for g in grads if g is not None),
            "emb_grad_rows": int((emb_grad.abs().sum(-1) > 0).sum()) if emb_grad is not None else -1,
            "seq": seq}


@case(compare="none")
def kl_weight_linear():
    # loss(w) = AR + w * KL: same weights, same seed, three weights; a zero budget makes the KL term positive
    base = model(4, kl_loss_weight=0.0, kl_loss_threshold=0.0)
    sd = base.state_dict()
    seq = tokens(5, (2, 9))
    out = {}
    for w in (0.0, 1.0, 2.5):
        m = model(6, kl_loss_weight=w, kl_loss_threshold=0.0)
        m.load_state_dict(sd)
        m.train()
        out[f"w{w}"] = scalar(loss_parts(m, seq, 8))
    for w in (0.0, 3.0):
        m = model(6, kl_loss_weight=w, kl_loss_threshold=1e6)
        m.load_state_dict(sd)
        m.train()
        out[f"free_w{w}"] = scalar(loss_parts(m, seq, 8))
    return out


@case(params=[True, False], ids=["per_token", "per_sequence"], compare="none")
def encode_latents(per_token):
    m = model(12, per_token_latents=per_token, kl_loss_threshold=0.0)
    m.train()
    gen = torch.Generator().manual_seed(13)
    embeds = torch.randn(2, 7, 16, generator=gen)
    mask = torch.ones(2, 7, dtype=torch.bool)
    mask[0, 5:] = False
    mask[1, 6:] = False
    torch.manual_seed(14)
    lat, kl = m.encode_to_latents(embeds, mask=mask, return_kl_loss=True)
    # the same call with the masked positions' embeddings replaced: nothing may change
    noisy = embeds.clone()
    noisy[~mask] = torch.randn(int((~mask).sum()), 16, generator=gen) * 3
    torch.manual_seed(14)
    lat2, kl2 = m.encode_to_latents(noisy, mask=mask, return_kl_loss=True)
    # without the KL: the latents only
    torch.manual_seed(14)
    lat3 = m.encode_to_latents(embeds, mask=mask)
    lat3 = lat3[0] if isinstance(lat3, (tuple, list)) else lat3
    s = summary(lat, 8)
    return {"one_hot": s["one_hot"], "rows_per_item": int(rows(lat, 8).shape[0] // 2),
            "codes": int(lat.shape[-1]), "kl": scalar(kl), "kl_masked_noise": scalar(kl2),
            "latent_masked_noise_diff": float((lat.detach() - lat2.detach()).abs().max()),
            "latent_no_kl_diff": float((lat.detach() - torch.as_tensor(lat3).detach()).abs().max())}


@case(compare="none")
def encoder_sees_future():
    # the latent of the FIRST position, through the straight-through gradient, depends on the LAST position
    m = model(15)
    m.train()
    gen = torch.Generator().manual_seed(16)
    embeds = torch.randn(1, 6, 16, generator=gen).requires_grad_()
    weights = torch.randn(8, generator=gen)
    torch.manual_seed(17)
    lat = m.encode_to_latents(embeds, mask=torch.ones(1, 6, dtype=torch.bool))
    lat = lat[0] if isinstance(lat, (tuple, list)) else lat
    (lat[0, 0] * weights).sum().backward()
    g = embeds.grad[0]
    return {"grad_last": float(g[-1].abs().sum()), "grad_first": float(g[0].abs().sum())}


@case(compare="none")
def pad_and_shift():
    # one latent for the sequence, taken from a fixed seq_for_latents: a trailing padding token adds nothing
    m = model(18, per_token_latents=False, pad_id=0)
    m.train()
    seq = tokens(19, (2, 8))
    lat_seq = tokens(20, (2, 6))
    padded = torch.cat((seq, torch.zeros(2, 1, dtype=torch.long)), dim=-1)
    a = scalar(loss_parts(m, seq, 21, seq_for_latents=lat_seq))
    b = scalar(loss_parts(m, padded, 21, seq_for_latents=lat_seq))
    # changing the last (target-only) token changes the loss; changing the first changes it too
    c = scalar(loss_parts(m, torch.cat((seq[:, :-1], (seq[:, -1:] % (NUM_TOKENS - 1)) + 1), -1), 21,
                          seq_for_latents=lat_seq))
    return {"loss": a, "loss_trailing_pad": b, "loss_changed_last": c}


@case(compare="none")
def generation():
    m = model(22)
    m.eval()
    prompts = tokens(23, (2, 3))
    kw = dict(filter_logits_fn=top_k, logit_filter_kwargs=dict(k=1))
    out = {}
    torch.manual_seed(0)
    out["cached"] = m.generate(prompts, 9, latents=torch.tensor([1, 5]), **kw)
    torch.manual_seed(0)
    out["uncached"] = m.generate(prompts, 9, latents=torch.tensor([1, 5]), use_kv_cache=False, **kw)
    torch.manual_seed(0)
    out["one_hot_latents"] = m.generate(prompts, 9, latents=F.one_hot(torch.tensor([1, 5]), 8).float(), **kw)
    gens = []
    for code in range(8):
        torch.manual_seed(0)
        gens.append(m.generate(prompts, 9, latents=torch.tensor([code, code]), use_kv_cache=False, **kw))
    out["distinct_over_codes"] = len({tuple(g.reshape(-1).tolist()) for g in gens})
    # each batch item is conditioned on its own code: row 1 alone with code 5 gives the same tokens
    torch.manual_seed(0)
    out["row1_alone"] = m.generate(prompts[1:2], 9, latents=torch.tensor([5]), **kw)
    # no code given: generation still runs (shape only)
    torch.manual_seed(0)
    out["no_code_shape"] = torch.tensor(list(m.generate(prompts, 9, **kw).shape))
    out["prompts"] = prompts
    return {k: (v.long() if torch.is_tensor(v) else v) for k, v in out.items()}


@case(compare="none")
def generation_no_head():
    m = model(30, dec_head_depth=0)
    m.eval()
    prompts = tokens(31, (2, 4))
    kw = dict(filter_logits_fn=top_k, logit_filter_kwargs=dict(k=1))
    torch.manual_seed(0)
    a = m.generate(prompts, 8, latents=torch.tensor([2, 6]), **kw)
    torch.manual_seed(0)
    b = m.generate(prompts, 8, latents=torch.tensor([2, 6]), use_kv_cache=False, **kw)
    return {"cached": a.long(), "uncached": b.long(), "prompts": prompts}


@case(compare="none")
def seq_for_latents_default():
    # one latent per sequence: giving the decoder's own input as seq_for_latents changes nothing
    m = model(32, per_token_latents=False, kl_loss_threshold=0.0)
    m.train()
    seq = tokens(33, (2, 9))
    a = scalar(loss_parts(m, seq, 34))
    b = scalar(loss_parts(m, seq, 34, seq_for_latents=seq[:, :-1]))
    return {"default": a, "explicit": b}


@case(compare="none")
def latent_dropout_all():
    # latent dropout with probability 1 removes the code: the loss no longer depends on which code was drawn
    m = model(35, per_token_latents=False, latent_dropout_prob=1.0, kl_loss_weight=0.0)
    m.train()
    seq = tokens(36, (2, 9))
    a = scalar(loss_parts(m, seq, 37, seq_for_latents=tokens(38, (2, 5))))
    b = scalar(loss_parts(m, seq, 37, seq_for_latents=tokens(39, (2, 7))))
    m2 = model(35, per_token_latents=False, latent_dropout_prob=0.0, kl_loss_weight=0.0)
    m2.load_state_dict(m.state_dict())
    m2.train()
    c = scalar(loss_parts(m2, seq, 37, seq_for_latents=tokens(38, (2, 5))))
    d = scalar(loss_parts(m2, seq, 37, seq_for_latents=tokens(39, (2, 7))))
    return {"dropped_a": a, "dropped_b": b, "kept_a": c, "kept_b": d}


@case(compare="none")
def all_losses():
    # return_all_losses: the total first, then the parts (AR and KL); scalars collected in order, NaN-padded
    m = model(40, kl_loss_threshold=0.0, kl_loss_weight=1.5)
    m.train()
    seq = tokens(41, (2, 9))
    total = scalar(loss_parts(m, seq, 42))
    torch.manual_seed(42)
    res = m(seq, return_all_losses=True)
    found = []

    def walk(x):
        if torch.is_tensor(x) and x.numel() == 1:
            found.append(float(x.detach()))
        elif isinstance(x, (tuple, list)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)

    walk(res)
    found = (found + [float("nan")] * 4)[:4]
    return {"total": total, "scalars": torch.tensor(found, dtype=torch.float64), "weight": 1.5}


@case(compare="none")
def training_steps():
    m = model(24, kl_loss_threshold=0.0)
    m.train()
    seq = tokens(25, (4, 10))
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    losses = []
    for step in range(25):
        opt.zero_grad()
        loss = loss_parts(m, seq, 100 + step)
        loss.backward()
        opt.step()
        losses.append(scalar(loss))
    return {"first": sum(losses[:3]) / 3, "last": sum(losses[-3:]) / 3}


@case(compare="none")
def state_dict_round_trip():
    m = model(26)
    m2 = model(27)
    m2.load_state_dict(m.state_dict())
    m.train()
    m2.train()
    seq = tokens(28, (2, 8))
    return {"a": scalar(loss_parts(m, seq, 29)), "b": scalar(loss_parts(m2, seq, 29))}
