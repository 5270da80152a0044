"""Probe of selfcheckgpt/1: the package's public scorers (SelfCheckNgram, SelfCheckBERTScore, SelfCheckNLI,
SelfCheckLLMPrompt), the n-gram models they train, the MQAG scoring rules and the answer-distribution distances.
Runs in the sandbox; emits outputs only.

No weights and no hub: every model is tiny, random and built here, and saved to a temporary folder.
- The release loads spacy's pipeline by the name "en_core_web_sm" and BERTScore's encoder by the name
  "roberta-large"; both libraries take an existing folder of that name in the current directory first, so the
  probe saves a blank English spacy pipeline with a rule-based sentencizer (no weights) and a tiny random RoBERTa
  there, and works from that folder while it calls the package.
- The NLI and prompting variants take a model folder as their argument.

Where the paper and the masked package leave a choice open, the probe also emits what the check needs to accept
every reading (the n-gram tokens for a conditional bigram model; the NLI classifier's contradiction probability with
either input order; BERTScore's precision, recall and F1 of every sentence pair).
"""

from __future__ import annotations

import contextlib
import os
import tempfile

import bert_score
import numpy as np
import spacy
import torch
from lmrbench_probe import case
from selfcheckgpt import utils
from selfcheckgpt.modeling_ngram import NgramModel, UnigramModel
from selfcheckgpt.modeling_selfcheck import (
    SelfCheckBERTScore,
    SelfCheckLLMPrompt,
    SelfCheckNgram,
    SelfCheckNLI,
    method_bayes_with_alpha,
    method_simple_counting,
    method_vanilla_bayes,
)

# ---------------------------------------------------------------------------------------------------------------
# texts: plain words and full stops (no newline, no double space); every sampled sentence has more than 3 tokens

TEXTS = [
    {
        "passage": "Alan Turing was a British mathematician. He was born in London. He worked at Bletchley Park.",
        "samples": [
            "Alan Turing was an English mathematician. He was born in Maida Vale in London.",
            "Turing was a mathematician and a computer scientist. He was born in London in 1912. "
            "He worked in Manchester after the war.",
            "Alan Turing was a British logician. He was born in Paris. He worked at Bletchley Park during the war.",
        ],
    },
    {
        "passage": "The cat sat on the mat. The dog ate the red apple. A bird sang in the tall tree.",
        "samples": [
            "The cat sat on the old mat. The dog ate the apple quickly.",
            "A cat slept on the mat all day. The dog ate a red apple. The bird sang a song.",
        ],
    },
    {
        "passage": "Marie Curie won two Nobel prizes. She was born in Warsaw. She studied physics in Paris. "
        "She discovered polonium and radium.",
        "samples": [
            "Marie Curie won the Nobel prize twice. She was born in Warsaw in Poland. She discovered radium.",
            "Curie studied physics and chemistry in Paris. She won a Nobel prize in physics.",
            "Marie Curie was born in Krakow. She discovered polonium with her husband.",
            "She won two Nobel prizes. She was born in Warsaw.",
        ],
    },
]

_STATE: dict = {}


def _nlp():
    if "nlp" not in _STATE:
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        _STATE["nlp"] = nlp
    return _STATE["nlp"]


def _sentences(text):
    return [s.text.strip() for s in _nlp()(text).sents]


def _tokens(sentence):
    return [t.text.lower() for t in _nlp()(sentence)]


def _folder():
    """Build the tiny models once per process (seeded) in a temporary folder."""
    if "dir" in _STATE:
        return _STATE["dir"]
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import (
        DebertaV2Config,
        DebertaV2ForSequenceClassification,
        DebertaV2Tokenizer,
        LlamaConfig,
        LlamaForCausalLM,
        PreTrainedTokenizerFast,
        RobertaConfig,
        RobertaModel,
    )

    folder = tempfile.mkdtemp(prefix="selfcheck_probe_")
    _nlp().to_disk(os.path.join(folder, "en_core_web_sm"))
    words = sorted({w for t in TEXTS for x in [t["passage"], *t["samples"]] for s in _sentences(x) for w in _tokens(s)})

    # BERTScore's encoder under the name it loads ("roberta-large": 17 layers are read)
    torch.manual_seed(1)
    vocab = {w: i for i, w in enumerate(["<s>", "<pad>", "</s>", "<unk>", "<mask>", *words])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    from tokenizers import normalizers
    tk.normalizer = normalizers.Lowercase()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", pad_token="<pad>", bos_token="<s>",
                                  eos_token="</s>", cls_token="<s>", sep_token="</s>", mask_token="<mask>",
                                  model_max_length=64)
    tok.save_pretrained(os.path.join(folder, "roberta-large"))
    RobertaModel(RobertaConfig(vocab_size=len(vocab), hidden_size=8, num_hidden_layers=17, num_attention_heads=2,
                               intermediate_size=16, max_position_embeddings=80, pad_token_id=1)
                 ).save_pretrained(os.path.join(folder, "roberta-large"))

    # NLI classifier: 2 classes (entailment, contradiction), sentencepiece vocabulary trained here
    import sentencepiece as spm

    corpus = os.path.join(folder, "corpus.txt")
    with open(corpus, "w") as fh:
        for t in TEXTS:
            for x in [t["passage"], *t["samples"]]:
                fh.write(x.lower() + "\n")
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=os.path.join(folder, "spm"), vocab_size=120, model_type="word",
        character_coverage=1.0, num_threads=1, hard_vocab_limit=False, bos_id=-1, eos_id=-1, unk_id=1, pad_id=0,
        control_symbols=["[CLS]", "[SEP]", "[MASK]"], minloglevel=2)
    nli_tok = DebertaV2Tokenizer(vocab_file=os.path.join(folder, "spm.model"), do_lower_case=True)
    nli_dir = os.path.join(folder, "nli")
    nli_tok.save_pretrained(nli_dir)
    torch.manual_seed(2)
    nli = DebertaV2ForSequenceClassification(DebertaV2Config(
        vocab_size=len(nli_tok), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=256, num_labels=2, pad_token_id=0, initializer_range=0.3,
        id2label={0: "entailment", 1: "contradiction"}, label2id={"entailment": 0, "contradiction": 1}))
    nli.save_pretrained(nli_dir)

    # prompting LLM: byte-level BPE (decode(encode(x)) == x) with whole-word tokens for the answers
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    bv = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for a in alphabet:
        bv[a] = len(bv)
    merges = [("Y", "e"), ("Ye", "s"), ("N", "o"), ("M", "a"), ("Ma", "y"), ("May", "b"), ("Mayb", "e")]
    for a, b in merges:
        bv[a + b] = len(bv)
    bt = Tokenizer(models.BPE(vocab=bv, merges=merges))
    bt.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bt.decoder = decoders.ByteLevel()
    llm_tok = PreTrainedTokenizerFast(tokenizer_object=bt, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                      unk_token="<unk>")
    llm_dir = os.path.join(folder, "llm")
    llm_tok.save_pretrained(llm_dir)
    torch.manual_seed(3)
    llm = LlamaForCausalLM(LlamaConfig(
        vocab_size=len(bv), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
        intermediate_size=32, max_position_embeddings=512, pad_token_id=1, bos_token_id=0, eos_token_id=2,
        tie_word_embeddings=False))
    with torch.no_grad():
        g = torch.Generator().manual_seed(4)
        u, v = torch.randn(16, generator=g), torch.randn(16, generator=g)
        llm.lm_head.weight.mul_(0.01)
        llm.lm_head.weight[bv["Yes"]] = 8 * u
        llm.lm_head.weight[bv["No"]] = -8 * u
        llm.lm_head.weight[bv["Maybe"]] = 8 * v
        llm.model.embed_tokens.weight[bv["Ġ"]] = 0.0
    llm.generation_config.do_sample = False
    llm.save_pretrained(llm_dir)
    _STATE["dir"] = folder
    return folder


@contextlib.contextmanager
def _inside():
    """Work from the models' folder (spacy and BERTScore load by name), then come back."""
    here = os.getcwd()
    os.chdir(_folder())
    try:
        yield _STATE["dir"]
    finally:
        os.chdir(here)


def _f(x):
    return np.asarray(x, dtype=np.float64).reshape(-1)


def _ngram_out(pred):
    return {
        "sent_avg": _f(pred["sent_level"]["avg_neg_logprob"]),
        "sent_max": _f(pred["sent_level"]["max_neg_logprob"]),
        "doc_avg": float(pred["doc_level"]["avg_neg_logprob"]),
        "doc_avg_max": float(pred["doc_level"]["avg_max_neg_logprob"]),
    }


# ---------------------------------------------------------------------------------------------------------------
# n-gram variant


@case(params=range(len(TEXTS)), rtol=1e-9, atol=1e-12)
def ngram_unigram(i):
    t = TEXTS[i]
    sentences = _sentences(t["passage"])
    with _inside():
        pred = SelfCheckNgram(n=1).predict(sentences, t["passage"], t["samples"])
    return {"text": i, **_ngram_out(pred)}


@case(params=[(0, 2), (1, 2), (2, 2), (1, 3)],
      outputs={"sent_*": {"compare": "none"}, "doc_*": {"compare": "none"}})
def ngram_higher_order(params):
    i, n = params
    t = TEXTS[i]
    sentences = _sentences(t["passage"])
    with _inside():
        pred = SelfCheckNgram(n=n).predict(sentences, t["passage"], t["samples"])
    out = {"text": i, "n": n, **_ngram_out(pred)}
    # the training sentences and the evaluated sentences as tokens, for the conditional reading in the check
    out["train_tokens"] = "|".join(" ".join(_tokens(s)) for x in [t["passage"], *t["samples"]] for s in _sentences(x))
    out["eval_tokens"] = "|".join(" ".join(_tokens(s)) for s in sentences)
    return out


@case(params=[True, False], rtol=1e-9, atol=1e-12)
def ngram_case_handling(lowercase):
    passage = "The River flows to the sea. the river is long."
    samples = ["THE RIVER flows to The Sea. The river is very long."]
    with _inside():
        pred = SelfCheckNgram(n=1, lowercase=lowercase).predict(_sentences(passage), passage, samples)
    return _ngram_out(pred)


@case(rtol=1e-9, atol=1e-12)
def unigram_model_counts_and_smoothing():
    with _inside():
        model = UnigramModel()
        model.add("The cat sat on the mat. The cat ran.")
        model.add("A dog sat.")
        counts = {"sentence_count": model.sentence_count, "token_count": model.token_count,
                  "the": model.counts.get("the"), "cat": model.counts.get("cat"), "unk": model.counts.get("<unk>"),
                  "vocab": len(model.counts)}
        res = {}
        for k in (1, 2):
            model.train(k=k)
            res[f"k{k}"] = _ngram_out(model.evaluate(["The cat sat.", "A zebra sat on the cat."]))
        model.train(k=0)
        res["k0"] = _ngram_out(model.evaluate(["The cat sat on the mat.", "A dog ran."]))
    return {"counts": counts, **res}


@case(rtol=1e-9, atol=1e-12)
def bigram_model_counts():
    with _inside():
        model = NgramModel(n=2)
        model.add("The cat sat on the mat. The cat ran.")
        model.add("A dog sat.")
        # one n-gram per token (the first tokens padded on the left); the keys' form is left open
        return {"sentence_count": model.sentence_count, "ngram_count": model.ngram_count,
                "unk": model.counts.get("<unk>")}


# ---------------------------------------------------------------------------------------------------------------
# MQAG scoring rules and distances (numpy only)


def _mqag_inputs(seed, num_samples):
    rng = np.random.default_rng(seed)
    prob = rng.dirichlet(np.ones(4))
    prob_s = rng.dirichlet(np.ones(4), size=num_samples)
    # make about half the samples agree with the main answer
    a = int(np.argmax(prob))
    for s in range(0, num_samples, 2):
        prob_s[s] = np.roll(np.sort(prob_s[s])[::-1], a)  # largest entry at index a
    u_score = 0.6 + 0.4 * rng.random()
    u_score_s = rng.random(num_samples)
    return prob, u_score, prob_s, u_score_s


@case(params=[(0, 6, 0.8, 0.8, 0.5), (1, 9, 0.9, 0.7, 0.3), (2, 4, 0.6, 0.95, 0.7), (3, 12, 0.99, 0.5, 0.1)],
      rtol=1e-9, atol=1e-12)
def mqag_scoring_rules(params):
    seed, num, beta1, beta2, at = params
    prob, u, prob_s, u_s = _mqag_inputs(seed, num)
    return {
        "counting": float(method_simple_counting(prob, u, prob_s, u_s, num, AT=at)),
        "bayes": float(method_vanilla_bayes(prob, u, prob_s, u_s, num, beta1=beta1, beta2=beta2, AT=at)),
        "bayes_alpha": float(method_bayes_with_alpha(prob, u, prob_s, u_s, num, beta1=beta1, beta2=beta2)),
        "answers": np.array([int(np.argmax(prob))] + [int(np.argmax(p)) for p in prob_s], dtype=np.int64),
        "u": np.concatenate([[u], u_s]),
        "params": np.array([beta1, beta2, at]),
    }


@case(params=range(5), outputs={"hellinger": {"compare": "none"}, "total_variation": {"compare": "none"},
                                "all": {"compare": "none"}},
      rtol=1e-9, atol=1e-12)
def answer_distribution_distances(seed):
    rng = np.random.default_rng(100 + seed)
    p1 = rng.dirichlet(np.ones(4) * (0.5 + seed))
    p2 = rng.dirichlet(np.ones(4) * (0.5 + seed))
    if seed == 4:
        p2 = p1.copy()
    return {
        "p1": _f(p1), "p2": _f(p2),
        "kl": float(utils.kl_div(p1, p2)),
        "kl_reverse": float(utils.kl_div(p2, p1)),
        "one_best": int(utils.onebest_argmax(p1, p2)),
        "hellinger": float(utils.hellinger_dist(p1, p2)),
        "total_variation": float(utils.total_variation(p1, p2)),
        "all": np.array([float(x) for x in utils.get_prob_distances(p1, p2)]),
        "smoothed_sum": float(np.sum(utils.smoothing(p1))),
    }


# ---------------------------------------------------------------------------------------------------------------
# BERTScore variant


def _bertscore_pairs(sentences, samples, rescale):
    """Precision, recall and F1 of every (sentence, sample sentence) pair: the best per sample (one call of its own)."""
    per_sample = [[s for s in _sentences(x) if len(_nlp()(s)) > 3] for x in samples]
    cands = [c for sample_sents in per_sample for _ in sentences for c in sample_sents]
    refs = [r for sample_sents in per_sample for r in sentences for _ in sample_sents]
    p, r, f = bert_score.score(cands, refs, lang="en", verbose=False, rescale_with_baseline=rescale)
    out: dict = {}
    start = 0
    for sample_sents in per_sample:
        size = len(sentences) * len(sample_sents)
        for name, x in (("P", p), ("R", r), ("F", f)):
            block = x[start:start + size].reshape(len(sentences), len(sample_sents))
            out.setdefault(name, []).append(_f(block.max(dim=1).values))
        start += size
    return {f"best_{k}": np.stack(v) for k, v in out.items()}


@case(params=[(2, True), (0, False)],
      outputs={"scores": {"compare": "none"}, "best_*": {"rtol": 1e-4, "atol": 2e-5}})
def bertscore_variant(params):
    i, rescale = params
    t = TEXTS[i]
    sentences = _sentences(t["passage"])
    with _inside():
        scorer = SelfCheckBERTScore(rescale_with_baseline=rescale)
        scores = scorer.predict(sentences, t["samples"])
        best = _bertscore_pairs(sentences, t["samples"], rescale)
    return {"scores": _f(scores), "rescale": rescale, **best}


# ---------------------------------------------------------------------------------------------------------------
# NLI variant


@case(params=[0, 2], outputs={"scores": {"compare": "none"}, "sentence_first": {"rtol": 1e-4, "atol": 2e-6},
                              "sample_first": {"rtol": 1e-4, "atol": 2e-6}})
def nli_variant(i):
    t = TEXTS[i]
    sentences = _sentences(t["passage"])
    folder = _folder()
    nli_dir = os.path.join(folder, "nli")
    scores = SelfCheckNLI(nli_model=nli_dir).predict(sentences, t["samples"])
    from transformers import DebertaV2ForSequenceClassification, DebertaV2Tokenizer

    tok = DebertaV2Tokenizer.from_pretrained(nli_dir)
    model = DebertaV2ForSequenceClassification.from_pretrained(nli_dir).eval()
    pairs = {}
    with torch.no_grad():
        for order in ("sentence_first", "sample_first"):
            rows = []
            for s in sentences:
                row = []
                for x in t["samples"]:
                    a, b = (s, x) if order == "sentence_first" else (x, s)
                    logits = model(**tok(a, b, truncation=True, return_tensors="pt")).logits
                    row.append(float(torch.softmax(logits.double(), dim=-1)[0, 1]))
                rows.append(row)
            pairs[order] = np.array(rows, dtype=np.float64)
    return {"scores": _f(scores), **pairs}


# ---------------------------------------------------------------------------------------------------------------
# prompting variant


@case(params=range(len(TEXTS)), rtol=1e-12, atol=1e-12)
def prompt_variant(i):
    t = TEXTS[i]
    sentences = _sentences(t["passage"])
    llm_dir = os.path.join(_folder(), "llm")
    scorer = SelfCheckLLMPrompt(model=llm_dir)
    return {"scores": _f(scorer.predict(sentences, t["samples"]))}


@case(rtol=0, atol=0)
def prompt_answer_mapping():
    llm_dir = os.path.join(_folder(), "llm")
    scorer = SelfCheckLLMPrompt(model=llm_dir)
    texts = ["Yes", "No", "Yes.", "No.", " Yes, it is.", "No, it is not.", "Maybe", "I cannot tell", "",
             "The context does not say", "Yes\n", " No"]
    return {"mapped": np.array([float(scorer.text_postprocessing(x)) for x in texts])}
