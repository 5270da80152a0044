"""Probe of dsir-official/1: data-selection's public entry points (HashedNgramDSIR: featurizer, importance
estimator, fit_importance_estimator, compute_importance_weights, resample, save/load, the per-example length
filter; the module's hash_buckets/get_ngram_counts; the default dataset functions). Runs in the sandbox; emits
outputs only.

How the inputs are chosen so that only what the paper or the package decides is compared:
- the hash function is not decided: features are compared through hash-free summaries (length, total count,
  the sorted non-zero counts at 2**20 buckets, where distinct n-grams of a short text do not collide), and the
  importance weights are compared only where no collision occurs (few distinct n-grams, 2**20 buckets): then a
  bucket's probability is the n-gram's probability whatever the hash;
- the smoothing constant inside the logarithm is not decided: every target dataset holds each raw text once, so
  every n-gram of a raw example has a non-zero probability under both models (the constant moves a weight by
  about 1e-5 at most);
- texts are lower case (whether the featurizer lower-cases is not decided);
- the random draws of the Gumbel top-k resampling are any candidate's own: they are judged statistically by the
  check file; deterministic top-k selections are compared exactly (their margins are far above rounding);
- how the selected examples are laid out in `out_dir` (file names, number of files) is not decided: the probe
  reads every file under it;
- joblib runs with its threading backend so that several processes (num_proc > 1) cost nothing.
"""

from __future__ import annotations

import importlib.metadata as _md
import json
import tempfile
from pathlib import Path

import numpy as np

_orig_version = _md.version


def _version(name):  # the workspace copy has no installed metadata; the package reads its version from it
    if name == "data-selection":
        return "1.0.3"
    return _orig_version(name)


_md.version = _version

from data_selection import DSIR, HashedNgramDSIR  # noqa: E402
from data_selection import base as dsir_base  # noqa: E402
from data_selection import hashed_ngram_dsir as hnd  # noqa: E402
from joblib import parallel_config  # noqa: E402
from lmrbench_probe import case  # noqa: E402

BIG = 2**20  # featurizer cases: a few distinct n-grams per text
MID = 2**18  # bigram weights: at most 56 distinct n-grams (a 7-word vocabulary)
LOW = 2**16  # unigram weights: 18 distinct words

TOPIC_A = ["river", "water", "fish", "boat", "lake"]
TOPIC_B = ["market", "stock", "price", "trade", "money"]
TOPIC_C = ["song", "music", "drum", "piano", "choir"]
COMMON = ["the", "a", "and"]
SMALL = {"A": ["river", "fish", "boat"], "B": ["stock", "price", "fund"], "C": ["song", "drum", "tune"]}


def _texts(rng, words, count, lo, hi, common=COMMON):
    out = []
    for _ in range(count):
        n = int(rng.integers(lo, hi + 1))
        toks = [str(w) for w in rng.choice(words + common, size=n)]
        out.append(" ".join(toks))
    return out


def _write(path: Path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def _corpus(tmp: Path, seed: int, topics=("A", "B"), sizes=(12, 10), short=0, extra_targets=1, same_len=False,
            small=False):
    """Two raw jsonl files (mixed topics), one target file for each of the first `extra_targets` topics (topic
    texts + every raw text once). Returns raw paths, target paths and the raw rows (with ids)."""
    rng = np.random.default_rng(seed)
    words = SMALL if small else {"A": TOPIC_A, "B": TOPIC_B, "C": TOPIC_C}
    common = ["the"] if small else COMMON
    rows = []
    for t in topics:
        rows += [{"text": x, "topic": t} for x in _texts(rng, words[t], sum(sizes) // len(topics), 6, 12, common)]
    # short examples (3 tokens) of topic A: high weight per token, but under the length filter
    rows += [{"text": x, "topic": "A", "short": True} for x in _texts(rng, TOPIC_A, short, 3, 3)]
    order = rng.permutation(len(rows))
    rows = [dict(rows[i], id=int(k)) for k, i in enumerate(order)]
    raw_paths = [tmp / "raw0.jsonl", tmp / "raw1.jsonl"]
    _write(raw_paths[0], rows[: sizes[0]])
    _write(raw_paths[1], rows[sizes[0]:])
    target_paths = []
    for j, t in enumerate(topics[:extra_targets]):
        lo, hi = (8, 8) if same_len else (6, 14)
        tgt = [{"text": x} for x in _texts(rng, words[t], 10, lo, hi, common)]
        tgt += [{"text": r["text"]} for r in rows]
        p = tmp / f"target{j}.jsonl"
        _write(p, tgt)
        target_paths.append(p)
    return [str(p) for p in raw_paths], [str(p) for p in target_paths], rows


def _read_out(out_dir: Path):
    """Every json line of every file under out_dir (layout not decided)."""
    found = []
    for p in sorted(Path(out_dir).rglob("*")):
        if p.is_file():
            for line in p.read_text().splitlines():
                if line.strip():
                    found.append(json.loads(line))
    return found


def _ids(rows):
    return sorted(int(r["id"]) for r in rows)


def _weights(d, rows):
    return np.array([np.asarray(d.importance_estimator(d.featurizer(r["text"])), dtype=np.float64).reshape(-1)
                     for r in rows])


# --- features ------------------------------------------------------------------------------------------------

FEATURE_TEXTS = [
    "the boat , the river .",
    "fish fish fish and fish",
    "it's the river's shore ; rain ... again",
    "a",
    "",
    "water water",
    "one two three four five six seven eight nine ten",
]


@case(params=[(i, n) for i in range(len(FEATURE_TEXTS)) for n in (1, 2, 3)])
def features(p):
    i, n = p
    text = FEATURE_TEXTS[i]
    big = np.asarray(hnd.get_ngram_counts(text, n=n, num_buckets=BIG))
    small = np.asarray(hnd.get_ngram_counts(text, n=n, num_buckets=13))
    nz = np.sort(big[big != 0]).astype(np.float64)
    return {"len_big": int(big.shape[0]), "len_small": int(small.shape[0]), "sum_big": float(big.sum()),
            "sum_small": float(small.sum()), "sorted_counts": nz, "min_small": float(small.min())}


@case
def features_accumulate():
    # the `counts` argument: a pre-initialised array the n-gram counts are added to
    c = np.zeros(BIG, dtype=int)
    c = hnd.get_ngram_counts("the boat , the river .", n=2, num_buckets=BIG, counts=c)
    c = hnd.get_ngram_counts("the boat", n=2, num_buckets=BIG, counts=c)
    one = np.asarray(hnd.get_ngram_counts("the boat , the river . the boat", n=2, num_buckets=BIG))
    c = np.asarray(c)
    return {"sum": float(c.sum()), "sorted_counts": np.sort(c[c != 0]).astype(np.float64),
            "sum_one_text": float(one.sum())}


@case
def hash_range():
    vals = [int(hnd.hash_buckets(f"tok{i} x", num_buckets=7)) for i in range(200)]
    big = [int(hnd.hash_buckets(f"w{i}", num_buckets=BIG)) for i in range(200)]
    dflt = [int(hnd.hash_buckets(f"w{i}")) for i in range(200)]
    return {"in_range_7": bool(min(vals) >= 0 and max(vals) < 7), "uses_7_buckets": bool(len(set(vals)) == 7),
            "in_range_big": bool(min(big) >= 0 and max(big) < BIG),
            "in_range_default": bool(min(dflt) >= 0 and max(dflt) < 10000),
            "deterministic": bool(vals == [int(hnd.hash_buckets(f"tok{i} x", num_buckets=7)) for i in range(200)])}


@case(params=[1, 2, 3])
def featurizer_and_length(n):
    with tempfile.TemporaryDirectory() as tmp:
        d = HashedNgramDSIR([], [], cache_dir=str(Path(tmp) / "c"), num_proc=1, ngrams=n, num_buckets=BIG,
                            min_example_length=4)
        out = {}
        for i, text in enumerate(FEATURE_TEXTS):
            f = np.asarray(d.featurizer(text))
            out[f"sum{i}"] = float(f.sum())
            out[f"len{i}"] = int(f.shape[0])
            if text:  # (an empty text's length estimate from counts alone is not decided for n = 3)
                out[f"tokens{i}"] = float(d.get_perexample_metadata({"text": text}, f))
        keep = d.perexample_metadata_filter(np.array([0, 3, 4, 5, 100]))
        out["filter"] = [bool(x) for x in np.asarray(keep)]
        return out


@case
def featurizer_tokenizer_default_is_wordpunct():
    with tempfile.TemporaryDirectory() as tmp:
        d = HashedNgramDSIR([], [], cache_dir=str(Path(tmp) / "c"), num_proc=1, ngrams=1, num_buckets=BIG)
        f = np.asarray(d.featurizer("don't stop,now!"))
        return {"sum": float(f.sum()), "sorted_counts": np.sort(f[f != 0]).astype(np.float64)}


@case
def default_dataset_fns():
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "d.jsonl"
        _write(p, [{"text": "a b", "id": 1}, {"text": "c", "id": 2, "more": [1, 2]}])
        rows = list(dsir_base.default_load_dataset_fn(str(p)))
        return {"rows": json.dumps(rows, sort_keys=True),
                "parsed": [dsir_base.default_parse_example_fn(r) for r in rows],
                "parsed_extra": dsir_base.default_parse_example_fn({"x": 1, "text": "hello there"})}


# --- importance weights -----------------------------------------------------------------------------------------


W_TOL = {"rtol": 1e-4, "atol": 1e-4}  # the smoothing constant inside the log moves a weight by ~1e-5 at most


@case(params=[(1, 0), (1, 1), (2, 2)], rtol=1e-4, atol=1e-4)
def importance_weights(p):
    n, seed = p
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw, tgt, rows = _corpus(tmp, seed, small=n > 1)
        d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache"), num_proc=1, ngrams=n,
                            num_buckets=MID if n > 1 else LOW, min_example_length=1)
        d.fit_importance_estimator()
        w = _weights(d, rows)[:, 0]
        return {"weights": w, "topic_a_mean_minus_b": float(w[[r["topic"] == "A" for r in rows]].mean()
                                                              - w[[r["topic"] == "B" for r in rows]].mean())}


@case(outputs={"w_*": W_TOL, "max_diff_*": {"atol": 1e-6}, "frac_changed_*": {"compare": "none"}})
def fit_token_budgets_agree_on_small_data():
    # 'auto' (100k tokens per bucket), 'all', and a budget far above the data's size fit on every raw example
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw, tgt, rows = _corpus(tmp, 3)
        out = {}
        ref = None
        for name, arg in (("auto", "auto"), ("all", "all"), ("big", 10**9)):
            d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / f"c_{name}"), num_proc=1, ngrams=1, num_buckets=LOW)
            d.fit_importance_estimator(num_tokens_to_fit=arg)
            w = _weights(d, rows)[:, 0]
            if ref is None:
                ref = w
            out[f"max_diff_{name}"] = float(np.abs(w - ref).max())
            out[f"w_{name}"] = w
        # a budget of 10 tokens fits the raw model on a small part of the raw data: the weights change
        d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "c_small"), num_proc=1, ngrams=1, num_buckets=LOW)
        d.fit_importance_estimator(num_tokens_to_fit=10)
        w = _weights(d, rows)[:, 0]
        out["frac_changed_small_budget"] = float(np.mean(~(np.abs(w - ref) <= 1e-3)))
        return out


# --- the pipeline: fit, compute over shards, resample ------------------------------------------------------------


def _pipeline(tmp: Path, seed: int, num_proc: int, k: int, top_k: bool, ngrams=1, short=0, min_len=1, **kw):
    raw, tgt, rows = _corpus(tmp, seed, short=short, small=ngrams > 1)
    with parallel_config(backend="threading"):
        d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache"), num_proc=num_proc, ngrams=ngrams,
                            num_buckets=MID if ngrams > 1 else LOW, min_example_length=min_len, **kw)
        d.fit_importance_estimator()
        d.compute_importance_weights()
        d.resample(out_dir=str(tmp / "out"), num_to_sample=k, cache_dir=str(tmp / "rcache"), top_k=top_k)
    return d, rows, _read_out(tmp / "out")


@case(params=[(1, 0, 6, 1), (2, 0, 6, 1), (3, 1, 5, 1), (7, 1, 9, 1), (2, 2, 4, 2)])
def resample_top_k(p):
    num_proc, seed, k, ngrams = p
    with tempfile.TemporaryDirectory() as tmp:
        _d, rows, chosen = _pipeline(Path(tmp), seed, num_proc, k, True, ngrams=ngrams)
        return {"ids": _ids(chosen), "n_lines": len(chosen),
                "rows_intact": bool(all(c == rows[c["id"]] for c in chosen))}


@case(params=[(1, 1), (2, 9), (1, 10), (1, 11)])
def resample_length_filter(p):
    # examples shorter than min_example_length tokens are never selected
    num_proc, min_len = p
    with tempfile.TemporaryDirectory() as tmp:
        _d, rows, chosen = _pipeline(Path(tmp), 4, num_proc, 5, True, short=4, min_len=min_len)
        return {"ids": _ids(chosen), "lengths": sorted(len(c["text"].split()) for c in chosen),
                "all_lengths": [len(r["text"].split()) for r in rows]}


@case
def resample_custom_dataset_fns():
    # raw and target data in a custom format, read by user functions; the selected examples are written out
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw, tgt, rows = _corpus(tmp, 5)

        def load(path):
            with open(path) as f:
                for line in f:
                    r = json.loads(line)
                    yield {"body": r["text"], "meta": {"id": r.get("id", -1)}}

        def parse(ex):
            return ex["body"]

        with parallel_config(backend="threading"):
            d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache"), raw_load_dataset_fn=load,
                                raw_parse_example_fn=parse, target_load_dataset_fn=load,
                                target_parse_example_fn=parse, num_proc=2, ngrams=1, num_buckets=LOW,
                                min_example_length=1)
            d.fit_importance_estimator()
            d.compute_importance_weights()
            d.resample(out_dir=str(tmp / "out"), num_to_sample=4, top_k=True)
        chosen = _read_out(tmp / "out")
        # the loaded examples as the loader gave them (or, accepted too, the raw file's own lines)
        ids = [int(c["meta"]["id"]) if "meta" in c else int(c["id"]) for c in chosen]
        bodies = [c["body"] if "body" in c else c["text"] for c in chosen]
        match = all(b == rows[i]["text"] for i, b in zip(ids, bodies, strict=True))
        return {"ids": sorted(ids), "bodies_match": bool(match)}


@case(params=[1, 3], outputs={"weights": W_TOL, "counts": {"compare": "none"}})
def gumbel_resampling_k1(num_proc):
    # k = 1 repeated: each example is drawn with probability w_i / sum_j w_j (judged by the check)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rows = [{"id": i, "text": t} for i, t in enumerate([
            "river water fish", "river water boat", "river lake shore", "market water fish",
            "market stock fish", "market stock price"])]
        _write(tmp / "raw0.jsonl", rows[:4])
        _write(tmp / "raw1.jsonl", rows[4:])
        tgt = [{"text": "river water fish boat lake shore"}] * 3 + [{"text": r["text"]} for r in rows]
        _write(tmp / "t.jsonl", tgt)
        counts = np.zeros(len(rows))
        with parallel_config(backend="threading"):
            d = HashedNgramDSIR([str(tmp / "raw0.jsonl"), str(tmp / "raw1.jsonl")], [str(tmp / "t.jsonl")],
                                cache_dir=str(tmp / "cache"), num_proc=num_proc, ngrams=1, num_buckets=LOW,
                                min_example_length=1)
            d.fit_importance_estimator()
            d.compute_importance_weights()
            reps = 100 if num_proc == 1 else 40
            for r in range(reps):
                d.resample(out_dir=str(tmp / f"o{r}"), num_to_sample=1)
                for c in _read_out(tmp / f"o{r}"):
                    counts[c["id"]] += 1
        return {"weights": _weights(d, rows)[:, 0], "counts": counts, "reps": reps}


@case(outputs={"weights": W_TOL, "counts": {"compare": "none"}, "n_distinct_sets": {"compare": "none"}})
def gumbel_resampling_k3():
    # k = 3 without replacement, several draws: always 3 distinct examples, the filtered ones never
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw, tgt, rows = _corpus(tmp, 6, short=4)
        draws = []
        with parallel_config(backend="threading"):
            d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache"), num_proc=2, ngrams=1, num_buckets=LOW,
                                min_example_length=4)
            d.fit_importance_estimator()
            d.compute_importance_weights()
            for r in range(40):
                d.resample(out_dir=str(tmp / f"o{r}"), num_to_sample=3)
                draws.append(_ids(_read_out(tmp / f"o{r}")))
        flat = [i for dr in draws for i in dr]
        counts = np.bincount(flat, minlength=len(rows)).astype(np.float64)
        return {"sizes_ok": bool(all(len(dr) == 3 and len(set(dr)) == 3 for dr in draws)),
                "short_drawn": int(sum(counts[i] for i, r in enumerate(rows) if r.get("short"))),
                "n_distinct_sets": len({tuple(dr) for dr in draws}),
                "counts": counts, "weights": _weights(d, rows)[:, 0],
                "short_mask": [bool(r.get("short")) for r in rows]}


# --- several targets -----------------------------------------------------------------------------------------------


@case(params=[(None, 4), ([3, 1], 4), ([0.25, 0.75], 8)], outputs={"weights": W_TOL})
def separate_targets(p):
    props, k = p
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw, tgt, rows = _corpus(tmp, 7, topics=("A", "C", "B"), sizes=(15, 15), extra_targets=2, same_len=True)
        with parallel_config(backend="threading"):
            d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache"), num_proc=2, ngrams=1, num_buckets=LOW,
                                min_example_length=1, separate_targets=True, target_proportions=props)
            d.fit_importance_estimator()
            d.compute_importance_weights()
            d.resample(out_dir=str(tmp / "out"), num_to_sample=k, top_k=True)
        chosen = _read_out(tmp / "out")
        w = _weights(d, rows)
        return {"ids": _ids(chosen), "weights": w,
                "topics": sorted(c["topic"] for c in chosen)}


# --- save / load ----------------------------------------------------------------------------------------------------


@case(params=[1, 2], outputs={"before": W_TOL, "after": W_TOL})
def save_load_round_trip(ngrams):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        raw, tgt, rows = _corpus(tmp, 8, small=ngrams > 1)
        kw = dict(num_proc=1, ngrams=ngrams, num_buckets=MID if ngrams > 1 else LOW, min_example_length=1)
        d = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache1"), **kw)
        d.fit_importance_estimator()
        before = _weights(d, rows)[:, 0]
        (tmp / "state").mkdir()
        d.save(str(tmp / "state" / "dsir.pkl"))
        e = HashedNgramDSIR(raw, tgt, cache_dir=str(tmp / "cache2"), **kw)
        e.load(str(tmp / "state" / "dsir.pkl"))
        after = _weights(e, rows)[:, 0]
        with parallel_config(backend="threading"):
            e.compute_importance_weights()
            e.resample(out_dir=str(tmp / "out"), num_to_sample=5, top_k=True)
        return {"before": before, "after": after, "ids": _ids(_read_out(tmp / "out")),
                "is_dsir": bool(isinstance(e, DSIR))}
