"""Probe for flagembedding-m3/1: M3-Embedding reached through FlagEmbedding's public entry points (M3Embedder
encode / encode_queries / encode_corpus / compute_score / compute_lexical_matching_score / colbert_score, the
training model's forward with and without self-distillation, save and reload, EncoderOnlyEmbedderM3Runner.get_model)
on a tiny BERT and a word-level tokenizer built here and saved to a temporary folder (no hub, no download).

Two conventions are not decided by the paper or by what the masked package shows: which special tokens (if any)
are left out of the lexical weights, and whether the [CLS] vector takes part in the multi-vector score. For the
outputs they touch, this probe also emits every reading computed in plain torch from the encoder's own hidden
states and the two heads (compare="none"); check_m3.py accepts any one reading, used consistently."""

from __future__ import annotations

import itertools
import os
import tempfile
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from lmrbench_probe import case

warnings.filterwarnings("ignore")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from transformers import AutoModel, BertConfig, BertModel, BertTokenizerFast  # noqa: E402
from transformers.utils import logging as hf_logging  # noqa: E402

hf_logging.set_verbosity_error()
hf_logging.disable_progress_bar()

from FlagEmbedding import BGEM3FlagModel  # noqa: E402
from FlagEmbedding.abc.finetune.embedder import AbsEmbedderModel  # noqa: E402
from FlagEmbedding.finetune.embedder.encoder_only.m3 import (  # noqa: E402
    EncoderOnlyEmbedderM3Model,
    EncoderOnlyEmbedderM3Runner,
)

WORDS = ("the cat sat on mat dog ran in park a big small red blue house tree bird sky river stone green fast "
         "slow old new").split()
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIAL + WORDS
V = len(VOCAB)
HID = 16
CDIM = 8

_STATE: dict = {}


def _setup():
    if _STATE:
        return _STATE
    root = tempfile.mkdtemp(prefix="m3probe_")
    d = os.path.join(root, "model")
    os.makedirs(d)
    with open(os.path.join(d, "vocab.txt"), "w") as fh:
        fh.write("\n".join(VOCAB) + "\n")
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(VOCAB)}, do_lower_case=True, eos_token="[SEP]")
    tok.save_pretrained(d)
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=V, hidden_size=HID, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, hidden_dropout_prob=0.0,
                     attention_probs_dropout_prob=0.0, initializer_range=0.4)
    BertModel(cfg).save_pretrained(d)
    g = torch.Generator().manual_seed(1)
    colbert = torch.nn.Linear(HID, CDIM)
    sparse = torch.nn.Linear(HID, 1)
    with torch.no_grad():
        colbert.weight.copy_(torch.randn(CDIM, HID, generator=g) * 0.5)
        colbert.bias.copy_(torch.randn(CDIM, generator=g) * 0.1)
        sparse.weight.copy_(torch.randn(1, HID, generator=g))
        sparse.bias.fill_(1.0)
    torch.save(colbert.state_dict(), os.path.join(d, "colbert_linear.pt"))
    torch.save(sparse.state_dict(), os.path.join(d, "sparse_linear.pt"))
    bare = os.path.join(root, "bare")
    os.makedirs(bare)
    BertModel(cfg).save_pretrained(bare)
    tok.save_pretrained(bare)
    _STATE.update(root=root, d=d, bare=bare, tok=tok, colbert=colbert, sparse=sparse)
    return _STATE


def _ids(tok, name):
    return tok.convert_tokens_to_ids(name)


def _special_sets(tok):
    """Every subset of {[CLS], [SEP], [PAD]} (the special tokens that occur in the probe's inputs)."""
    ids = [_ids(tok, "[CLS]"), _ids(tok, "[SEP]"), _ids(tok, "[PAD]")]
    out = []
    for r in range(4):
        out.extend(itertools.combinations(ids, r))
    return [set(s) for s in out]


def _plain(model, colbert, sparse, feats):
    """Plain torch: hidden states, token weights (ReLU of the sparse head) and projected token vectors."""
    with torch.no_grad():
        h = model(input_ids=feats["input_ids"], attention_mask=feats["attention_mask"]).last_hidden_state
        w = torch.relu(sparse(h)).squeeze(-1)
        c = colbert(h)
    return h, w, c


def _lex_vectors(ids, w, excluded):
    """Vocabulary vectors: max weight per term over positions, terms in `excluded` left out."""
    out = torch.zeros(ids.shape[0], V, dtype=w.dtype)
    for b in range(ids.shape[0]):
        for t in range(ids.shape[1]):
            i = int(ids[b, t])
            if i in excluded:
                continue
            out[b, i] = max(out[b, i], w[b, t])
    return out


def _colbert_scores(cq, qmask, cp, pmask, skip_cls):
    """s_mul for every (query, passage) pair; vectors normalised; padding of the query never counted."""
    s = 1 if skip_cls else 0
    Eq = F.normalize(cq[:, s:], dim=-1) * qmask[:, s:, None]
    Ep = F.normalize(cp[:, s:], dim=-1) * pmask[:, s:, None]
    tok = torch.einsum("qin,pjn->qipj", Eq, Ep).max(-1).values.sum(1)
    return tok / qmask[:, s:].sum(-1, keepdim=True)


def _dense(h, mask, pooling, normalize):
    if pooling == "cls":
        v = h[:, 0]
    else:
        v = (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    return F.normalize(v, dim=-1) if normalize else v


def _lex_dict_to_vec(tok, lw):
    skip = {_ids(tok, s) for s in SPECIAL}
    vec = np.zeros(V, dtype=np.float64)
    for k, val in dict(lw).items():
        i = int(k)
        if i not in skip:
            vec[i] = float(val)
    return vec


def _embedder(path, heads=True, **kw):
    """The public embedder on a local folder. With `heads`, the probe's two heads are copied into the model's
    `colbert_linear` / `sparse_linear` (the names the runner's parameter filters use), so that the result does not
    depend on the file names the heads are stored under."""
    e = BGEM3FlagModel(path, use_fp16=False, devices="cpu", colbert_dim=CDIM, **kw)
    if heads:
        st = _setup()
        with torch.no_grad():
            for name in ("colbert_linear", "sparse_linear"):
                mine = st[name.split("_")[0]]
                theirs = getattr(e.model, name)
                theirs.weight.copy_(mine.weight.to(theirs.weight.dtype))
                theirs.bias.copy_(mine.bias.to(theirs.bias.dtype))
    return e


SENTS = ["the cat sat on the mat", "a dog", "big red house near the old river tree", "bird sky",
         "the green stone the green stone", "slow old cat"]


@case(params=[("cls", True), ("mean", False)], ids=["cls_normalized", "mean_raw"],
      outputs={"colbert.*": {"compare": "none"}, "colbert_full.*": {"compare": "none"}}, rtol=1e-4, atol=1e-6)
def encode(p):
    pooling, normalize = p
    st = _setup()
    tok = st["tok"]
    e = _embedder(st["d"], pooling_method=pooling, normalize_embeddings=normalize, batch_size=2,
                  query_max_length=4, passage_max_length=6)
    res = e.encode(SENTS, return_dense=True, return_sparse=True, return_colbert_vecs=normalize)
    out = {"dense": np.asarray(res["dense_vecs"], dtype=np.float64),
           "lex": np.stack([_lex_dict_to_vec(tok, lw) for lw in res["lexical_weights"]])}
    q = e.encode_queries(SENTS[:3], return_dense=True, return_sparse=False, return_colbert_vecs=False)
    c = e.encode_corpus(SENTS[:3], return_dense=True, return_sparse=False, return_colbert_vecs=False)
    out["queries_dense"] = np.asarray(q["dense_vecs"], dtype=np.float64)
    out["corpus_dense"] = np.asarray(c["dense_vecs"], dtype=np.float64)
    # defaults taken from the constructor (return_sparse=True, no colbert), a single string, truncate_dim
    e2 = _embedder(st["d"], pooling_method=pooling, normalize_embeddings=normalize, batch_size=4,
                   return_sparse=True, truncate_dim=None if normalize else 5)
    for name, fn in (("q", e2.encode_queries), ("c", e2.encode_corpus), ("e", e2.encode)):
        r = fn(SENTS[:3])
        out[f"defaults_{name}_dense"] = np.asarray(r["dense_vecs"], dtype=np.float64)
        out[f"defaults_{name}_lex"] = np.stack([_lex_dict_to_vec(tok, lw) for lw in r["lexical_weights"]])
        out[f"defaults_{name}_no_colbert"] = r.get("colbert_vecs") is None
    one = e.encode(SENTS[2], return_dense=True, return_sparse=False, return_colbert_vecs=False)
    out["string_dense"] = np.asarray(one["dense_vecs"], dtype=np.float64).reshape(-1)
    if normalize:
        out["colbert"] = [np.asarray(v, dtype=np.float64) for v in res["colbert_vecs"]]
        model = AutoModel.from_pretrained(st["d"]).float().eval()
        full = []
        for s in SENTS:
            f = tok([s], return_tensors="pt", truncation=True, max_length=6)
            _h, _w, cv = _plain(model, st["colbert"], st["sparse"], f)
            full.append(F.normalize(cv[0], dim=-1).double().numpy())
        out["colbert_full"] = full
    return out


@case(rtol=1e-6, atol=1e-9)
def pure_scores():
    st = _setup()
    e = _embedder(st["d"])
    a = {"7": 0.5, "9": 1.5, "12": 0.25}
    b = {"9": 2.0, "12": 4.0, "30": 1.0}
    c = {"5": 3.0}
    single = e.compute_lexical_matching_score(a, b)
    many = e.compute_lexical_matching_score([a, c], [b, c, a])
    g = np.random.default_rng(3)
    qv = g.standard_normal((3, 4)).astype(np.float32)
    pv = g.standard_normal((5, 4)).astype(np.float32)
    col = e.colbert_score(qv, pv)
    return {"single": float(single), "many": np.asarray(many, dtype=np.float64),
            "colbert": float(col), "colbert_rev": float(e.colbert_score(pv, qv))}


PAIRS = [("the cat the", "a big red house the cat"), ("dog ran in the park", "the dog ran fast the dog"),
         ("sky sky bird", "bird sky river bird")]


@case(params=[(None, 3), ([0.4, 0.2, 0.4], 3), (None, 1)], ids=["default_weights", "weights", "one_pair"],
      outputs={"sparse": {"compare": "none"}, "colbert": {"compare": "none"}, "sparse+dense": {"compare": "none"},
               "colbert+sparse+dense": {"compare": "none"}, "alt_*": {"compare": "none"}},
      rtol=1e-4, atol=1e-6)
def compute_score(p):
    weights, n = p
    pairs = PAIRS[:n]
    st = _setup()
    tok = st["tok"]
    e = _embedder(st["d"], batch_size=2)
    res = e.compute_score(pairs, weights_for_different_modes=weights)
    out = {k: np.asarray(res[k], dtype=np.float64) for k in
           ("dense", "sparse", "colbert", "sparse+dense", "colbert+sparse+dense")}
    model = AutoModel.from_pretrained(st["d"]).float().eval()
    sparse_alts = {i: [] for i in range(8)}
    col_alts = {0: [], 1: []}
    for start in range(0, len(pairs), 2):
        batch = pairs[start:start + 2]
        fq = tok([x[0] for x in batch], padding=True, return_tensors="pt")
        fp = tok([x[1] for x in batch], padding=True, return_tensors="pt")
        _hq, wq, cq = _plain(model, st["colbert"], st["sparse"], fq)
        _hp, wp, cp = _plain(model, st["colbert"], st["sparse"], fp)
        for i, excl in enumerate(_special_sets(tok)):
            lq = _lex_vectors(fq["input_ids"], wq, excl)
            lp = _lex_vectors(fp["input_ids"], wp, excl)
            sparse_alts[i].extend((lq * lp).sum(-1).tolist())
        for skip in (0, 1):
            m = _colbert_scores(cq, fq["attention_mask"].float(), cp, fp["attention_mask"].float(), bool(skip))
            col_alts[skip].extend(torch.diagonal(m).tolist())
    out["alt_sparse"] = np.asarray([sparse_alts[i] for i in range(8)], dtype=np.float64)
    out["alt_colbert"] = np.asarray([col_alts[0], col_alts[1]], dtype=np.float64)
    return out


# ---------------------------------------------------------------- training forward

TRAIN_Q = ["the cat the", "dog ran in the park dog"]
TRAIN_P = ["the cat sat the cat", "a big red house tree", "dog ran in the park", "blue sky old tree sky",
           "new cat on the mat", "green stone river stone old"]


def _train_model(st, **kw):
    tok = st["tok"]
    torch.manual_seed(0)
    base = AutoModel.from_pretrained(st["d"]).double()
    colbert = torch.nn.Linear(HID, CDIM).double()
    sparse = torch.nn.Linear(HID, 1).double()
    colbert.load_state_dict({k: v.double() for k, v in st["colbert"].state_dict().items()})
    sparse.load_state_dict({k: v.double() for k, v in st["sparse"].state_dict().items()})
    m = EncoderOnlyEmbedderM3Model({"model": base, "colbert_linear": colbert, "sparse_linear": sparse},
                                   tokenizer=tok, normalize_embeddings=True, unified_finetuning=True, **kw)
    m.train()
    return m, base, colbert, sparse


def _alt_losses(base, colbert, sparse, tok, fq, fp, B, G, tau, self_distill, teacher):
    """The paper's objective (L, or (L + L')/2) for every reading of the two undecided conventions."""
    with torch.no_grad():
        hq, wq, cq = _plain(base, colbert, sparse, fq)
        hp, wp, cp = _plain(base, colbert, sparse, fp)
    D = _dense(hq, fq["attention_mask"], "cls", True) @ _dense(hp, fp["attention_mask"], "cls", True).T
    tt = None
    if teacher is not None:
        tt = F.softmax(torch.tensor(teacher, dtype=torch.float64).view(B, -1), dim=-1)

    def nce(x):
        if tt is None:
            return F.cross_entropy(x, torch.arange(B) * G)
        return AbsEmbedderModel.distill_loss("m3_kd_loss", tt, x, G)

    def kd(p, x):
        return -torch.mean(torch.sum(torch.log_softmax(x, dim=-1) * p, dim=-1))

    alts = []
    for excl in _special_sets(tok):
        S = _lex_vectors(fq["input_ids"], wq, excl) @ _lex_vectors(fp["input_ids"], wp, excl).T
        for skip in (True, False):
            C = _colbert_scores(cq, fq["attention_mask"].double(), cp, fp["attention_mask"].double(), skip)
            inter = D + 0.3 * S + C
            L = (nce(D / tau) + nce(inter / tau) + 0.1 * nce(S / tau) + nce(C / tau)) / 4
            if not self_distill:
                alts.append(float(L))
                continue
            for teacher_scale in {tau, 1.0}:
                p = torch.softmax(inter / teacher_scale, dim=-1)
                L2 = (kd(p, D / tau) + 0.1 * kd(p, S / tau) + kd(p, C / tau)) / 3
                alts.append(float((L + L2) / 2))
    return np.asarray(alts, dtype=np.float64)


TRAIN_CONFIGS = {
    # B, G, tau, self_distill, sub_batch, teacher, list_passages
    "inbatch_tau05": (2, 2, 0.5, False, -1, None, False),
    "inbatch_list_passages": (2, 2, 0.5, False, 3, None, True),
    "inbatch_list_queries": (2, 2, 0.5, False, -1, None, "queries"),
    "selfdistill_tau1": (1, 3, 1.0, True, -1, None, False),
    "selfdistill_tau05_subbatch": (1, 3, 0.5, True, 2, None, False),
    "selfdistill_b2": (2, 3, 1.0, True, -1, None, False),
    "teacher_scores": (1, 3, 1.0, False, -1, [2.0, 0.5, -1.0], False),
}


@case(params=list(TRAIN_CONFIGS.values()), ids=list(TRAIN_CONFIGS), compare="none")
def train_loss(cfg):
    B, G, tau, sd, sub, teacher, list_p = cfg
    st = _setup()
    tok = st["tok"]
    m, base, colbert, sparse = _train_model(st, temperature=tau, use_self_distill=sd, sub_batch_size=sub)
    qs = TRAIN_Q[:B] if list_p != "queries" else ["the cat the", "dog ran in"]
    ps = TRAIN_P[:B * G]
    fq = tok(qs, padding=True, return_tensors="pt")
    fp = tok(ps, padding="max_length", max_length=7, return_tensors="pt")
    passages, queries = fp, fq
    if list_p is True:
        passages = [{k: v[i:i + 1] for k, v in fp.items()} for i in range(len(ps))]
    elif list_p == "queries":
        queries = [{k: v[i:i + 1] for k, v in fq.items()} for i in range(len(qs))]
    out = m(queries, passages, teacher_scores=teacher)
    loss = out.loss
    loss.backward()
    grad = float(sum(p.grad.abs().sum() for p in m.parameters() if p.grad is not None))
    alts = _alt_losses(base, colbert, sparse, tok, fq, fp, B, G, tau, sd, teacher)
    return {"loss": float(loss), "alts": alts, "grad_finite": bool(np.isfinite(grad) and grad > 0)}


@case(compare="none")
def selfdistill_start_step():
    st = _setup()
    tok = st["tok"]
    m, base, colbert, sparse = _train_model(st, temperature=1.0, use_self_distill=True, self_distill_start_step=2)
    fq = tok(TRAIN_Q[:1], padding=True, return_tensors="pt")
    fp = tok(TRAIN_P[:3], padding="max_length", max_length=7, return_tensors="pt")
    losses = [float(m(fq, fp).loss) for _ in range(5)]
    plain = _alt_losses(base, colbert, sparse, tok, fq, fp, 1, 3, 1.0, False, None)
    distilled = _alt_losses(base, colbert, sparse, tok, fq, fp, 1, 3, 1.0, True, None)
    m.eval()
    ev = m(fq, fp)
    return {"first": losses[0], "last": losses[4], "plain": plain, "distilled": distilled,
            "eval_loss_none": ev.loss is None}


@case(compare="none")
def save_and_reload():
    st = _setup()
    tok = st["tok"]
    m, base, colbert, sparse = _train_model(st, temperature=0.5, use_self_distill=True)
    opt = torch.optim.SGD(m.parameters(), lr=0.05)
    fq = tok(TRAIN_Q, padding=True, return_tensors="pt")
    fp = tok(TRAIN_P[:4], padding="max_length", max_length=7, return_tensors="pt")
    m(fq, fp).loss.backward()
    opt.step()
    out_dir = os.path.join(st["root"], "saved")
    m.save(out_dir)
    tok.save_pretrained(out_dir)
    files = sorted(f for f in os.listdir(out_dir) if f.endswith(".pt"))
    e = _embedder(out_dir, heads=False, batch_size=4)
    res = e.encode(SENTS[:4], return_dense=True, return_sparse=True, return_colbert_vecs=True)
    base32, col32, sp32 = base.float().eval(), colbert.float(), sparse.float()
    dense_ref, lex_ref, col_ref = [], [], []
    skip = {_ids(tok, s) for s in SPECIAL}
    for s in SENTS[:4]:
        f = tok([s], return_tensors="pt")
        h, w, cv = _plain(base32, col32, sp32, f)
        dense_ref.append(F.normalize(h[0, 0], dim=-1).double().numpy())
        lex_ref.append(_lex_vectors(f["input_ids"], w, skip)[0].double().numpy())
        col_ref.append(F.normalize(cv[0], dim=-1).double().numpy())
    return {"head_files": files,
            "dense": np.asarray(res["dense_vecs"], dtype=np.float64), "dense_ref": np.stack(dense_ref),
            "lex": np.stack([_lex_dict_to_vec(tok, lw) for lw in res["lexical_weights"]]),
            "lex_ref": np.stack(lex_ref),
            "colbert": [np.asarray(v, dtype=np.float64) for v in res["colbert_vecs"]], "colbert_full": col_ref}


@case()
def get_model_heads():
    st = _setup()
    got = EncoderOnlyEmbedderM3Runner.get_model(st["d"], colbert_dim=CDIM)
    bare = EncoderOnlyEmbedderM3Runner.get_model(st["bare"])
    return {"colbert_shape": list(got["colbert_linear"].weight.shape),
            "sparse_shape": list(got["sparse_linear"].weight.shape),
            "bare_colbert_shape": list(bare["colbert_linear"].weight.shape),
            "bare_sparse_shape": list(bare["sparse_linear"].weight.shape),
            "hidden": int(got["model"].config.hidden_size)}
