"""Probe for st-sparse/1: the sparse-embedding family of sentence-transformers (SPLADE pooling, the CSR sparse
autoencoder, the FLOPS/SPLADE/cached SPLADE/CSR losses, and the SparseEncoder around them), reached through the
package's public entry points: `SparseEncoder(...)` from a local folder or from modules, `encode`,
`encode_query`, `similarity`, `sparsity`, `intersection`, `decode`, `save`/reload, and the losses' forward
passes with optimizer steps. Tiny BERT models are built here in code (a vocabulary file written here, seeded
random weights saved with `save_pretrained`); no hub, no download.

The autoencoder's parameter names are the solver's choice, so its parameters are set and read by shape (the
encoder matrix h x d, the pre-bias d, the latent bias h). Loss-term names are the solver's choice too: loss
dicts are emitted as their sorted values (see check_sparse.py)."""

from __future__ import annotations

import json
import logging
import os
import tempfile
import warnings

import torch
from lmrbench_probe import case
from sentence_transformers import SentenceTransformer
from sentence_transformers.base.modules import Transformer
from sentence_transformers.sentence_transformer.modules import Pooling
from sentence_transformers.sparse_encoder import SparseEncoder
from sentence_transformers.sparse_encoder.losses import (
    CachedSpladeLoss,
    CSRLoss,
    FlopsLoss,
    SparseCosineSimilarityLoss,
    SparseMultipleNegativesRankingLoss,
    SpladeLoss,
)
from sentence_transformers.sparse_encoder.modules import SparseAutoEncoder, SpladePooling
from transformers import BertConfig, BertForMaskedLM, BertModel, BertTokenizerFast

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)
F64 = torch.float64

WORDS = ("the a cat dog sat on mat ran in park bird sang tree sun is warm cold rain fell city car drove fast "
         "slow road book read old new house big small red blue green river ran water fish swim").split()
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS)]
SENTS = ["the cat sat on the mat", "a dog ran in the park", "the bird sang", "sun is warm",
         "cold rain fell on the old city road", "a red car drove fast", "fish swim in the blue river water",
         "the big house"]
_DIRS: dict[str, str] = {}


def _tokenizer(folder: str) -> BertTokenizerFast:
    path = os.path.join(folder, "vocab.txt")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(VOCAB) + "\n")
    return BertTokenizerFast(vocab=path, do_lower_case=True)


def _bert_dir(kind: str, hidden: int = 16) -> str:
    """A tiny BERT saved to a temporary folder: kind 'mlm' (BertForMaskedLM) or 'base' (BertModel)."""
    key = f"{kind}-{hidden}"
    if key not in _DIRS:
        folder = tempfile.mkdtemp(prefix=f"st-sparse-{key}-")
        cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=hidden, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=32, max_position_embeddings=64, initializer_range=0.4,
                         hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        torch.manual_seed(1234 if kind == "mlm" else 4321)
        model = BertForMaskedLM(cfg) if kind == "mlm" else BertModel(cfg)
        model.save_pretrained(folder)
        _tokenizer(folder).save_pretrained(folder)
        _DIRS[key] = folder
    return _DIRS[key]


def _splade_model(**kw) -> SparseEncoder:
    return SparseEncoder(_bert_dir("mlm"), device="cpu", **kw).to(F64)


def _sae_params(sae):
    """The autoencoder's parameters by role, found by shape (names are the solver's choice)."""
    d, h = sae.input_dim, sae.hidden_dim
    roles = {}
    for _, p in sae.named_parameters():
        shape = tuple(p.shape)
        if shape == (h, d):
            roles["W"] = p
        elif shape == (d, h):
            roles["W_T"] = p
        elif shape == (d,):
            roles["b_pre"] = p
        elif shape == (h,):
            roles["b_lat"] = p
    return roles


def _set_sae(sae, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    d, h = sae.input_dim, sae.hidden_dim
    w = torch.randn(h, d, generator=g, dtype=F64) / d ** 0.5
    b_pre = 0.2 * torch.randn(d, generator=g, dtype=F64)
    b_lat = 0.1 * torch.randn(h, generator=g, dtype=F64)
    with torch.no_grad():
        for role, p in _sae_params(sae).items():
            p.copy_({"W": w, "W_T": w.T, "b_pre": b_pre, "b_lat": b_lat}[role])


def _sae_grads(sae) -> dict:
    out = {}
    for role, p in _sae_params(sae).items():
        g = p.grad if p.grad is not None else torch.zeros_like(p)
        out[role] = (g.T if role == "W_T" else g).detach().clone()
    if "W_T" in out and "W" in out:
        out["W"] = out["W"] + out.pop("W_T")
    elif "W_T" in out:
        out["W"] = out.pop("W_T")
    return out


def _csr_model(d: int = 16, h: int = 48, k: int = 4, k_aux: int = 8, normalize: bool = False,
               dead_threshold: int = 30, seed: int = 5) -> SparseEncoder:
    tr = Transformer(_bert_dir("base", d))
    pool = Pooling(d, pooling_mode="mean")
    sae = SparseAutoEncoder(input_dim=d, hidden_dim=h, k=k, k_aux=k_aux, normalize=normalize,
                            dead_threshold=dead_threshold)
    model = SparseEncoder(modules=[tr, pool, sae], device="cpu").to(F64)
    _set_sae(sae, seed)
    return model


def _sae_of(model):
    return next(m for m in model if isinstance(m, SparseAutoEncoder))


def _loss_values(losses: dict) -> list[float]:
    """The non-zero loss terms by value, sorted (a zero term may be reported or left out)."""
    return sorted(v for v in (float(t.detach()) for t in losses.values()) if v != 0.0)


def _dense(x):
    x = x.to_dense() if x.is_sparse else x
    return x.detach().to(F64)


def _transformer_grad_norm(model) -> torch.Tensor:
    tr = model[0]
    sq = [p.grad.detach().pow(2).sum() for p in tr.parameters() if p.grad is not None]
    return torch.stack(sq).sum().sqrt() if sq else torch.zeros((), dtype=F64)


# ---------------------------------------------------------------------------------------------- SpladePooling

_POOL = [("max", "relu", False, None), ("sum", "relu", False, 2), ("max", "log1p_relu", True, 3),
         ("sum", "log1p_relu", True, None), ("max", "relu", True, 1), ("sum", "relu", True, 4)]


def _logits(seed=3):
    g = torch.Generator().manual_seed(seed)
    logits = 1.5 * torch.randn(3, 5, 11, generator=g, dtype=F64)
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]])
    return logits, mask


@case(params=_POOL, rtol=1e-12, atol=1e-12)
def splade_pooling(p):
    strategy, act, training, chunk = p
    logits, mask = _logits()
    logits.requires_grad_(training)
    pool = SpladePooling(pooling_strategy=strategy, activation_function=act, chunk_size=chunk)
    pool.train(training)
    out = pool({"token_embeddings": logits, "attention_mask": mask})
    emb = out["sentence_embedding"]
    res = {"emb": emb.detach().clone(), "dim": pool.get_embedding_dimension()}
    if training:
        w = torch.arange(emb.numel(), dtype=F64).reshape(emb.shape) / 10
        (emb * w).sum().backward()
        res["grad"] = logits.grad
    return res


@case(params=["max", "sum"], rtol=1e-12, atol=1e-12)
def splade_pooling_flattened(strategy):
    """Unpadded (flattened) input: the three sequences laid end to end, with cumulative lengths."""
    logits, mask = _logits()
    lens = mask.sum(1).tolist()
    flat = torch.cat([logits[i, :n] for i, n in enumerate(lens)]).unsqueeze(0)
    cu = torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32)
    pool = SpladePooling(pooling_strategy=strategy).eval()
    out = pool({"token_embeddings": flat, "cu_seq_lens_q": cu, "max_length_q": max(lens)})
    return {"emb": out["sentence_embedding"].detach().clone(), "dim": pool.get_embedding_dimension()}


def _attempt(fn) -> str:
    try:
        fn()
    except Exception as exc:
        return "raised:" + type(exc).__name__
    return "ok"


@case(compare="none")
def splade_pooling_refusals():
    logits, mask = _logits()

    def run(**kw):
        SpladePooling(**kw)({"token_embeddings": logits.clone(), "attention_mask": mask})

    return {"mean": _attempt(lambda: run(pooling_strategy="mean")),
            "gelu": _attempt(lambda: run(activation_function="gelu")),
            "valid": _attempt(lambda: run(pooling_strategy="sum", activation_function="log1p_relu"))}


# --------------------------------------------------------------------------------------- SparseAutoEncoder

# normalize, k, max_active_dims override, k_aux (512, the default, exceeds h = 24: no auxiliary code at inference)
_SAE = [(False, 3, None, 6), (True, 3, None, 6), (False, 5, 2, 6), (True, 4, 7, 6), (True, 5, None, 512)]


@case(params=_SAE, rtol=1e-10, atol=1e-12)
def sae_inference(p):
    normalize, k, override, k_aux = p
    sae = SparseAutoEncoder(input_dim=6, hidden_dim=24, k=k, k_aux=k_aux, normalize=normalize).to(F64)
    _set_sae(sae, 11)
    g = torch.Generator().manual_seed(12)
    x = torch.randn(5, 6, generator=g, dtype=F64) * 2 + 0.5
    sae.eval()
    with torch.inference_mode():
        kw = {} if override is None else {"max_active_dims": override}
        out = sae({"sentence_embedding": x.clone()}, **kw)
    return {"codes": out["sentence_embedding"].clone(), "dim": sae.get_embedding_dimension()}


@case(rtol=1e-12, atol=1e-12)
def sae_fresh_init():
    """A new autoencoder: zero biases, the tied decoder, and the counters (a buffer) saved with it."""
    torch.manual_seed(0)
    sae = SparseAutoEncoder(input_dim=5, hidden_dim=20, k=2, k_aux=3)
    roles = _sae_params(sae)
    return {"b_pre": roles["b_pre"].detach().clone(), "b_lat": roles["b_lat"].detach().clone(),
            "n_matrices": sum(1 for r in roles if r in ("W", "W_T")), "n_params": len(list(sae.parameters()))}


# ------------------------------------------------------------------------------------------------- CSR losses

_CSR = [
    # normalize, k, k_aux, dead_threshold, beta, gamma, columns, base, train_transformer
    # With beta > 0 the transformer is frozen: whether the residual target of L_aux carries a gradient into the
    # backbone is not decided by what a solver sees (paper.md: "e is treated as a constant"), so the auxiliary term
    # is tested on the autoencoder's gradients only; the backbone's gradient is tested with beta = 0.
    (False, 4, 8, 30, 0.1, 1.0, 2, "mnrl", False),
    (True, 4, 8, 30, 0.3, 0.5, 3, "mnrl", False),
    (False, 3, 6, 1, 0.1, 1.0, 3, "mnrl", False),
    (True, 2, 5, 2, 0.5, 2.0, 2, "cos", False),
    (False, 4, 0, 30, 0.1, 1.0, 2, "mnrl", True),
    (False, 4, 8, 30, 0.0, 1.0, 2, "mnrl", True),
    (True, 3, 6, 1, 0.0, 1.0, 3, "mnrl", True),
]


def _columns(n_cols: int, n: int = 4):
    cols = [SENTS[i:i + n] for i in (0, 2, 4)][:n_cols]
    return cols


@case(params=_CSR, rtol=1e-8, atol=1e-11)
def csr_training(p):
    """Three optimizer steps of CSRLoss on a transformer + mean pooling + autoencoder model."""
    normalize, k, k_aux, dead, beta, gamma, n_cols, base, train_tr = p
    model = _csr_model(k=k, k_aux=k_aux, normalize=normalize, dead_threshold=dead)
    sae = _sae_of(model)
    if not train_tr:
        model[0].requires_grad_(False)
    if base == "mnrl":
        loss = CSRLoss(model, beta=beta, gamma=gamma)
    else:
        loss = CSRLoss(model, loss=SparseCosineSimilarityLoss(model), beta=beta, gamma=gamma)
    cols = _columns(n_cols)
    labels = torch.tensor([0.9, 0.1, 0.5, 0.3], dtype=F64) if base == "cos" else None
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    model.train()
    steps = []
    for step in range(3):
        feats = [model.preprocess(c) for c in cols]
        opt.zero_grad()
        losses = loss(feats, labels)
        total = sum(losses.values())
        total.backward()
        if step == 0:
            first = {"grads": _sae_grads(sae), "tr_grad": _transformer_grad_norm(model)}
        steps.append({"values": _loss_values(losses), "total": total.detach()})
        opt.step()
    model.eval()
    codes = model.encode(SENTS[:3], convert_to_sparse_tensor=False)
    return {"steps": steps, "first": first, "codes": _dense(codes)}


@case(params=[1.5e-5, 5e-6], rtol=1e-8, atol=1e-11)
def csr_fired_threshold(value):
    """A latent selected with a tiny value: it fired if the value is above 1e-5 (paper.md, dead latents).

    The autoencoder alone (d = 2, h = 4, k = 1, k_aux = 2, dead threshold 1) on embeddings given directly, two
    columns, two CSRLoss forward passes. Pre-activations are (s x0, x1, -x0, -x1): each latent is the top-1 of one
    row; the first row's winner, latent 0, has the given value (and is above 1e-5 in no other row). Whether it
    counts as fired decides whether it is dead at the later selections, hence the auxiliary code and L_aux."""
    s = 1e4
    sae = SparseAutoEncoder(input_dim=2, hidden_dim=4, k=1, k_aux=2, dead_threshold=1)
    model = SparseEncoder(modules=[sae], device="cpu").to(F64)
    w = torch.tensor([[s, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]], dtype=F64)
    with torch.no_grad():
        for role, p_ in _sae_params(sae).items():
            p_.copy_({"W": w, "W_T": w.T}.get(role, torch.zeros_like(p_)))
    x = torch.tensor([[value / s, 0.0], [0.0, 2.0], [0.0, -3.0], [-1.0, 0.5]], dtype=F64)
    loss = CSRLoss(model)
    model.train()
    steps = []
    for _ in range(2):
        losses = loss([{"sentence_embedding": x.clone()}, {"sentence_embedding": x.clone()}], None)
        steps.append({"values": _loss_values(losses), "total": sum(losses.values()).detach()})
    return {"steps": steps}


# -------------------------------------------------------------------------------------------- SPLADE losses

_SPL = [
    # doc weight, query weight, doc threshold, query threshold, doc-only, columns
    (0.3, 0.5, None, None, False, 3),
    (0.2, None, None, None, False, 2),
    (0.4, 0.1, 6, 4, False, 3),
    (0.3, None, None, None, True, 3),
    (0.25, 0.6, 5, None, True, 2),
]


@case(params=_SPL, rtol=1e-8, atol=1e-11)
def splade_training(p):
    dw, qw, dt, qt, doc_only, n_cols = p
    model = _splade_model()
    loss = SpladeLoss(model, loss=SparseMultipleNegativesRankingLoss(model), document_regularizer_weight=dw,
                      query_regularizer_weight=qw, document_regularizer_threshold=dt,
                      query_regularizer_threshold=qt, use_document_regularizer_only=doc_only)
    cols = _columns(n_cols)
    opt = torch.optim.SGD(model.parameters(), lr=0.02)
    model.train()
    steps = []
    for step in range(2):
        feats = [model.preprocess(c) for c in cols]
        opt.zero_grad()
        losses = loss(feats)
        total = sum(losses.values())
        total.backward()
        if step == 0:
            first_grad = _transformer_grad_norm(model)
        steps.append({"values": _loss_values(losses), "total": total.detach()})
        opt.step()
    model.eval()
    emb = model.encode(SENTS[:4], convert_to_sparse_tensor=False)
    return {"steps": steps, "first_grad": first_grad, "emb": _dense(emb)}


@case(params=[(None, False), (7, False), (None, True)], rtol=1e-10, atol=1e-12)
def flops_regularizer(p):
    threshold, grad = p
    g = torch.Generator().manual_seed(21)
    emb = torch.relu(torch.randn(5, 12, generator=g, dtype=F64))
    emb[1, :9] = 0.0  # a sparse row: 3 active dims (0 < 7), masked out when the threshold is 7
    emb.requires_grad_(grad)
    reg = FlopsLoss(_splade_model(), threshold=threshold)
    val = reg.compute_loss_from_embeddings(emb)
    res = {"value": val.detach()}
    if grad:
        val.backward()
        res["grad"] = emb.grad
    return res


@case(params=[(1, False), (3, True)], rtol=1e-8, atol=1e-11, outputs={"components*": {"compare": "none"}})
def cached_splade(p):
    """CachedSpladeLoss against the un-cached SpladeLoss on the same model: same total, same gradients."""
    mini, doc_only = p
    cols = _columns(3)
    res = {}
    for name in ("plain", "cached"):
        model = _splade_model()
        kw = dict(loss=SparseMultipleNegativesRankingLoss(model), document_regularizer_weight=0.3,
                  query_regularizer_weight=None if doc_only else 0.5, use_document_regularizer_only=doc_only)
        loss = SpladeLoss(model, **kw) if name == "plain" else CachedSpladeLoss(model, mini_batch_size=mini, **kw)
        model.train()
        feats = [model.preprocess(c) for c in cols]
        losses = loss(feats)
        total = sum(losses.values())
        total.backward()
        grads = [p_.grad.detach().clone() for p_ in model[0].parameters() if p_.grad is not None]
        res[name] = {"total": total.detach(), "grad_norm": torch.stack([g_.pow(2).sum() for g_ in grads]).sum().sqrt(),
                     "grad_emb": model[0].auto_model.get_input_embeddings().weight.grad.detach().clone()}
        if name == "cached":
            res["components"] = {"n": len(losses), "sum": float(sum(float(v.detach()) for v in losses.values()))}
    return res


@case(compare="none")
def splade_loss_refusal():
    model = _splade_model()

    class NoEmbeddingLoss(torch.nn.Module):
        def forward(self, features, labels):
            return torch.zeros(())

    def run():
        loss = SpladeLoss(model, loss=NoEmbeddingLoss(), document_regularizer_weight=0.1, query_regularizer_weight=0.1)
        loss([model.preprocess(SENTS[:2]), model.preprocess(SENTS[2:4])])

    return {"no_embedding_method": _attempt(run)}


@case(rtol=1e-12, atol=1e-12)
def hand_values():
    """Tiny inputs whose results are worked out by hand in check_sparse.py."""
    from sentence_transformers.sparse_encoder.losses.csr import normalized_mean_squared_error

    model = _splade_model()
    emb = torch.tensor([[1.0, 0.0, 2.0], [0.0, 0.0, 1.0]], dtype=F64)
    logits = torch.tensor([[[1.0, -1.0], [torch.e - 1.0, 0.5]]], dtype=F64)
    mask = torch.tensor([[1, 1]])
    pools = {s_: SpladePooling(pooling_strategy=s_).eval()({"token_embeddings": logits.clone(),
                                                          "attention_mask": mask})["sentence_embedding"]
             for s_ in ("max", "sum")}
    sae = SparseAutoEncoder(input_dim=2, hidden_dim=3, k=1, k_aux=1).to(F64)
    with torch.no_grad():
        for role, p_ in _sae_params(sae).items():
            w = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=F64)
            p_.copy_({"W": w, "W_T": w.T}.get(role, torch.zeros_like(p_)))
    sae.eval()
    with torch.inference_mode():
        z = sae({"sentence_embedding": torch.tensor([[2.0, 1.0]], dtype=F64)})["sentence_embedding"].clone()
    t = torch.tensor([[0.0, 0.0], [2.0, 4.0]], dtype=F64)
    p = torch.tensor([[0.0, 1.0], [2.0, 2.0]], dtype=F64)
    const = torch.ones(2, 2, dtype=F64)
    pc = torch.tensor([[0.0, 1.0], [1.0, 3.0]], dtype=F64)
    return {"flops": FlopsLoss(model).compute_loss_from_embeddings(emb),
            "flops_t1": FlopsLoss(model, threshold=1).compute_loss_from_embeddings(emb),
            "pool_max": pools["max"], "pool_sum": pools["sum"], "sae": z,
            "nmse": normalized_mean_squared_error(p, t), "nmse_const": normalized_mean_squared_error(pc, const)}


# ------------------------------------------------------------------------------ SparseEncoder: encode & friends


@case(rtol=1e-10, atol=1e-12)
def splade_default_stack():
    """A masked-LM folder loads as a transformer + SPLADE max pooling; encode in input order, any batch size."""
    model = _splade_model()
    mods = [type(m).__name__ for m in model]
    pool = model[1]
    e_sparse = model.encode(SENTS, batch_size=3)
    e_dense = model.encode(SENTS, batch_size=8, convert_to_sparse_tensor=False)
    one = model.encode(SENTS[4])
    q = model.encode_query(SENTS[:2], convert_to_sparse_tensor=False)
    listed = model.encode(SENTS[:3], convert_to_tensor=False)
    return {"modules": mods, "strategy": getattr(pool, "pooling_strategy", None),
            "activation": getattr(pool, "activation_function", None),
            "sparse": bool(e_sparse.is_sparse), "emb": _dense(e_sparse), "emb_dense": _dense(e_dense),
            "one_shape": list(one.shape), "one": _dense(one), "query": _dense(q),
            "listed": [_dense(t) for t in listed], "dim": model.get_embedding_dimension(),
            "max_active_dims": model.max_active_dims, "similarity_fn_name": model.similarity_fn_name}


@case(params=[2, 5, 40], rtol=1e-10, atol=1e-12)
def splade_max_active_dims(m):
    """max_active_dims at encode time and from the constructor."""
    model = _splade_model()
    a = model.encode(SENTS[:4], max_active_dims=m, convert_to_sparse_tensor=False)
    model2 = _splade_model(max_active_dims=m)
    b = model2.encode(SENTS[:4], convert_to_sparse_tensor=False)
    c = model2.encode(SENTS[:4], convert_to_sparse_tensor=False, max_active_dims=3)
    return {"a": _dense(a), "b": _dense(b), "c": _dense(c), "stored": model2.max_active_dims}


@case(compare="none")
def max_active_dims_refusals():
    def run(m):
        SparseEncoder(_bert_dir("mlm"), device="cpu", max_active_dims=m).encode(SENTS[:2])

    return {"negative": _attempt(lambda: run(-3)), "valid": _attempt(lambda: run(4))}


@case(params=[None, "cosine", "euclidean"], rtol=1e-5, atol=1e-7, dtype=False)
def similarity(fn):
    model = _splade_model() if fn is None else _splade_model(similarity_fn_name=fn)
    e = model.encode(SENTS[:4], convert_to_sparse_tensor=False)
    f = model.encode(SENTS[4:7], convert_to_sparse_tensor=False)
    es, fs = model.encode(SENTS[:4]), model.encode(SENTS[4:7])
    return {"sim": model.similarity(e, f), "sim_sparse": _dense(model.similarity(es, fs)),
            "pair": model.similarity_pairwise(e[:3], f), "name": model.similarity_fn_name}


@case(rtol=1e-6, atol=1e-9, dtype=False, outputs={"bad*": {"compare": "none"}})
def sparsity_stats():
    model = _splade_model()
    e = model.encode(SENTS[:5], max_active_dims=6, convert_to_sparse_tensor=False)
    e[2] = 0.0
    s2 = model.sparsity(e)
    s1 = model.sparsity(e[0])
    ss = model.sparsity(e.to_sparse())
    return {"batch": s2, "single": s1, "sparse": ss,
            "bad_dim": _attempt(lambda: model.sparsity(torch.zeros(2, 2, 2)))}


@case(rtol=1e-10, atol=1e-12,
      outputs={"bad*": {"compare": "none"}, "dec*_w*": {"rtol": 1e-6, "atol": 1e-9, "dtype": False}})
def intersection_and_decode():
    model = _splade_model()
    q = model.encode_query(SENTS[0], max_active_dims=8)
    d = model.encode(SENTS[:3], max_active_dims=10)
    inter1 = model.intersection(q, d[1])
    inter2 = model.intersection(q.to_dense(), d)
    dec1 = model.decode(d[0], top_k=4)
    dec_all = model.decode(d.to_dense())
    dec_inter = model.decode(inter2, top_k=3)
    return {"inter1": _dense(inter1), "inter1_sparse": bool(inter1.is_sparse), "inter2": _dense(inter2),
            "inter2_nnz": int(_dense(inter2).ne(0).sum()),
            "dec1_tokens": [t for t, _ in dec1], "dec1_w": [w for _, w in dec1],
            "dec_all_tokens": [[t for t, _ in row] for row in dec_all],
            "dec_all_w": [[w for _, w in row] for row in dec_all],
            "dec_inter_tokens": [[t for t, _ in row] for row in dec_inter],
            "bad_topk": _attempt(lambda: model.decode(d[0], top_k=0)),
            "dec_zero_rows": len(model.decode(torch.zeros(2, len(VOCAB)))),
            "dec_zero_pairs": sum(len(r) for r in model.decode(torch.zeros(2, len(VOCAB)))),
            "dec_zero_single": len(model.decode(torch.zeros(len(VOCAB))))}


@case(rtol=1e-10, atol=1e-12,
      outputs={"max_active_dims": {"compare": "none"}, "loaded_max_active_dims": {"compare": "none"}})
def csr_default_stack():
    """A plain (non-MLM) transformer folder loads as transformer + mean pooling + autoencoder (CSR)."""
    model = SparseEncoder(_bert_dir("base", 256), device="cpu")
    sae = _sae_of(model)
    mods = [type(m).__name__ for m in model]
    pool = model[1]
    return {"modules": mods, "pooling_mean": bool(getattr(pool, "pooling_mode_mean_tokens", False)),
            "input_dim": sae.input_dim, "hidden_dim": sae.hidden_dim, "k": sae.k, "k_aux": sae.k_aux,
            "max_active_dims": model.max_active_dims, "dim": model.get_embedding_dimension(),
            "active": model.sparsity(model.encode(SENTS[:3]))["active_dims"]}


@case(rtol=1e-10, atol=1e-12,
      outputs={"max_active_dims": {"compare": "none"}, "loaded_max_active_dims": {"compare": "none"}})
def csr_converted_from_sentence_transformer():
    """A saved dense SentenceTransformer folder gets an autoencoder appended on top."""
    folder = tempfile.mkdtemp(prefix="st-sparse-dense-")
    dense = SentenceTransformer(modules=[Transformer(_bert_dir("base", 32)), Pooling(32, pooling_mode="mean")],
                                device="cpu")
    dense.save(folder)
    model = SparseEncoder(folder, device="cpu")
    sae = _sae_of(model)
    return {"modules": [type(m).__name__ for m in model], "input_dim": sae.input_dim,
            "hidden_dim": sae.hidden_dim, "k": sae.k, "k_aux": sae.k_aux, "max_active_dims": model.max_active_dims,
            "dim": model.get_embedding_dimension()}


@case(params=[False, True], rtol=1e-10, atol=1e-12,
      outputs={"max_active_dims": {"compare": "none"}, "loaded_max_active_dims": {"compare": "none"}})
def csr_encode_and_roundtrip(normalize):
    """CSR inference through encode (k from the autoencoder, a smaller max_active_dims), then save and reload."""
    model = _csr_model(k=5, k_aux=8, normalize=normalize, seed=17)
    model.similarity_fn_name = "cosine" if normalize else None
    e = model.encode(SENTS, convert_to_sparse_tensor=False)
    e3 = model.encode(SENTS, max_active_dims=3, convert_to_sparse_tensor=False)
    folder = tempfile.mkdtemp(prefix="st-sparse-csr-")
    model.save(folder)
    with open(os.path.join(folder, "modules.json"), encoding="utf-8") as fh:
        kinds = [m["type"].rsplit(".", 1)[-1] for m in json.load(fh)]
    loaded = SparseEncoder(folder, device="cpu").to(F64)
    sae2 = _sae_of(loaded)
    loaded.set_pooling_include_prompt(False)
    include_prompt = bool(loaded[1].include_prompt)
    e_loaded = loaded.encode(SENTS, convert_to_sparse_tensor=False)
    return {"emb": _dense(e), "emb3": _dense(e3), "max_active_dims": model.max_active_dims, "kinds": kinds,
            "loaded_emb": _dense(e_loaded), "loaded_k": sae2.k, "loaded_k_aux": sae2.k_aux,
            "loaded_normalize": bool(sae2.normalize), "loaded_dead": sae2.dead_threshold,
            "loaded_max_active_dims": loaded.max_active_dims, "loaded_sim": loaded.similarity_fn_name,
            "sim": loaded.similarity(e_loaded[:2], e_loaded[2:5]), "include_prompt": include_prompt,
            "n_empty": len(model.encode([]))}


@case(rtol=1e-10, atol=1e-12)
def splade_roundtrip():
    model = _splade_model(max_active_dims=7, similarity_fn_name="cosine")
    model[1].pooling_strategy = "sum"
    e = model.encode(SENTS[:4], convert_to_sparse_tensor=False)
    folder = tempfile.mkdtemp(prefix="st-sparse-splade-")
    model.save(folder)
    loaded = SparseEncoder(folder, device="cpu").to(F64)
    e2 = loaded.encode(SENTS[:4], convert_to_sparse_tensor=False)
    return {"emb": _dense(e), "loaded": _dense(e2), "strategy": loaded[1].pooling_strategy,
            "max_active_dims": loaded.max_active_dims, "sim": loaded.similarity_fn_name,
            "dim": loaded.get_embedding_dimension()}
