"""Probe for llmlingua-compressor/1: LongLLMLingua through `PromptCompressor`'s public entry points
(`compress_prompt`, `structured_compress_prompt`, `recover`) on a tiny causal LM and tokenizer built here.

No download: the "small LM" is `BagLM`, a hand-written causal LM (registered with transformers' Auto classes and
saved to a temp folder, loaded by `PromptCompressor` from that folder) whose next-token logits are a fixed
per-token bias plus a bonus BETA for every token already present in the prefix. So a word is surprising unless it
is common or already seen, and a question placed before (or after) a document makes the question's words more
predictable: exactly the signal LongLLMLingua's question-aware stages use. The tokenizer is a byte-level BPE
trained here on the documents (every word one token); the GPT tokenizer that `PromptCompressor.__init__` asks
tiktoken for is replaced by a byte-level `tiktoken.Encoding` built here (1 token per byte).

Most outputs are compressed texts, judged by check_compressor.py by meaning (kept documents, their order,
subsequence of the original, question words kept, size near the target, agreement with the release's choice of
tokens), not by the release's exact conventions."""

from __future__ import annotations

import tempfile
import warnings

import tiktoken
import torch
from lmrbench_probe import case
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoConfig, AutoModelForCausalLM, PretrainedConfig, PreTrainedModel, PreTrainedTokenizerFast
from transformers.modeling_outputs import CausalLMOutputWithPast

warnings.filterwarnings("ignore")

BETA = 4.0
DECAY = 0.9
EPS = 0.05

DOCS = [
    "Tall pine forests cover the northern hills where wolves and deer roam freely during long winter months.",
    "The Rhone river flows through the old city of Lyon before it meets the Saone near the southern bridge.",
    "Bakers in small villages rise before dawn to knead dough and light wooden ovens for fresh morning bread.",
    "Lyon hosts a famous festival of lights each December when candles glow in windows across the old city.",
    "Copper wires carry electric current between stations, and engineers test each cable for hidden faults.",
]
QUESTION = "Which river flows through the old city of Lyon?"
INSTRUCTION = "Answer the question from the documents."
TAGS = "<llmlingua, compress=False></llmlingua><llmlingua, rate=0.4></llmlingua>"
RESTRICT = " We can get the answer to this question in the given documents."
EXTRA = [
    "Recovery check: the compressor met the Rhone-Alpes region record of 1234567 visitors last year.",
    "Quiet lakes mirror grey clouds while fishermen mend green nets on wooden piers at sunrise.",
]


class BagConfig(PretrainedConfig):
    model_type = "lmrbench_baglm"

    def __init__(self, vocab_size=8, beta=BETA, max_position_embeddings=4096, **kwargs):
        self.vocab_size = vocab_size
        self.beta = beta
        self.max_position_embeddings = max_position_embeddings
        super().__init__(**kwargs)


class BagLM(PreTrainedModel):
    """logits(next | prefix) = bias + BETA * [token present in prefix] + EPS * sum over its earlier occurrences of
    DECAY**distance (a small recency term, so that no two positions score exactly alike); the cache holds the
    prefix's token ids."""

    config_class = BagConfig
    base_model_prefix = "baglm"

    def __init__(self, config):
        super().__init__(config)
        self.bias = torch.nn.Parameter(torch.zeros(config.vocab_size))

    def _init_weights(self, module):
        pass

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, use_cache=True, **kwargs):
        ids = input_ids.to(torch.float64).unsqueeze(1).unsqueeze(-1)  # (B, 1, T, 1)
        if past_key_values is not None and len(past_key_values) and past_key_values[0][0].shape[2]:
            ids = torch.cat([past_key_values[0][0].to(torch.float64), ids], dim=2)
        full = ids[:, 0, :, 0].long()  # (B, P + T)
        n_new = input_ids.shape[1]
        onehot = torch.nn.functional.one_hot(full, self.config.vocab_size).to(torch.float64)
        # recency-weighted presence: an occurrence d positions back adds beta * DECAY**d (element-wise float64)
        n_all = full.shape[1]
        pos = torch.arange(n_all, dtype=torch.float64)
        weights = torch.where(pos[:, None] >= pos[None, :], DECAY ** (pos[:, None] - pos[None, :]),
                              torch.zeros((), dtype=torch.float64))  # (query, key)
        recency = torch.einsum("qk,bkv->bqv", weights, onehot)[:, -n_new:, :]
        present = (onehot.cumsum(dim=1) > 0).to(torch.float64)[:, -n_new:, :]
        logits = self.bias.to(torch.float64)[None, None, :] + self.config.beta * present + EPS * recency
        cache = ((ids, ids.clone()),) if use_cache else None
        return CausalLMOutputWithPast(logits=logits, past_key_values=cache)


AutoConfig.register("lmrbench_baglm", BagConfig)
AutoModelForCausalLM.register(BagConfig, BagLM)

_CACHE: dict = {}


def _oai():
    ranks = {bytes([i]): i for i in range(256)}
    return tiktoken.Encoding(name="probe-bytes", pat_str=r"[\s\S]", mergeable_ranks=ranks, special_tokens={})


def compressor():
    """The PromptCompressor over BagLM (built once per process)."""
    if "pc" in _CACHE:
        return _CACHE["pc"]
    enc = _oai()
    tiktoken.encoding_for_model = lambda name: enc
    tiktoken.get_encoding = lambda name: enc
    folder = tempfile.mkdtemp(prefix="baglm-")
    tk = Tokenizer(models.BPE(unk_token="<unk>"))
    # sentencepiece-like: a word is "▁word", punctuation apart, decode(encode(text)) == text
    tk.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first"),
                                                pre_tokenizers.Punctuation("isolated")])
    tk.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
    trainer = trainers.BpeTrainer(vocab_size=1000, special_tokens=["<s>", "</s>", "<unk>"], show_progress=False)
    corpus = [*DOCS, QUESTION, INSTRUCTION, RESTRICT, *EXTRA, "a\n\nb", "and and", TAGS]
    tk.train_from_iterator(corpus * 4, trainer=trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    tok.save_pretrained(folder)
    config = BagConfig(vocab_size=len(tok), bos_token_id=0, eos_token_id=1, pad_token_id=1,
                       architectures=["BagLM"])
    model = BagLM(config)
    gen = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        # coarse grid: exact in float32, so loading in float32 changes nothing
        model.bias.copy_(torch.round(torch.randn(len(tok), generator=gen) * 1.5 * 64) / 64)
    model.save_pretrained(folder, safe_serialization=True)
    from llmlingua import PromptCompressor

    pc = PromptCompressor(model_name=folder, device_map="cpu")
    _CACHE["pc"] = pc
    return pc


def _fit(pc, ctx, prefix="", parts=1):
    """Pad the last document with " and" until the compressed part's token count splits into `parts` equal
    segments; returns (documents, segment size). The release leaves a last partial segment uncompressed and the
    paper compresses every segment: with whole segments both agree."""
    ctx = list(ctx)
    for _ in range(12):
        text = "\n\n".join(([prefix] if prefix else []) + ctx)
        n = len(pc.tokenizer(text, add_special_tokens=False).input_ids)
        start = len(pc.tokenizer(prefix + "\n\n", add_special_tokens=False).input_ids) if prefix else 0
        if (n - start) % parts == 0:
            return ctx, (n - start) // parts
        ctx[-1] = ctx[-1] + " and"
    raise RuntimeError("no fit")


def _summary(res, ctx=None):
    out = {k: res[k] for k in ("compressed_prompt", "origin_tokens", "compressed_tokens", "ratio", "rate")}
    if ctx is not None:
        out["context"] = list(ctx)
    return out


@case(compare="none")
def documents_setup():
    """The inputs as the checks see them: the documents, their token lengths under the small LM's tokenizer."""
    pc = compressor()
    return {"docs": list(DOCS), "question": QUESTION, "instruction": INSTRUCTION,
            "doc_tokens": [pc.get_token_length(d) for d in DOCS],
            "question_tokens": pc.get_token_length(QUESTION),
            "instruction_tokens": pc.get_token_length(INSTRUCTION)}


@case(params=["longllmlingua", "llmlingua"], ids=["longllmlingua", "llmlingua"], compare="none")
def coarse_rank_all(rank_method):
    """Context-level filter only, a budget that keeps every document, reordered by rank."""
    pc = compressor()
    res = pc.compress_prompt(list(DOCS), instruction=INSTRUCTION, question=QUESTION, target_token=10_000,
                             rank_method=rank_method, use_context_level_filter=True,
                             use_token_level_filter=False, reorder_context="sort")
    return _summary(res)


@case(params=["gzip", "bm25"], ids=["gzip", "bm25"], compare="none")
def coarse_rank_baselines(rank_method):
    """The retrieval baselines of the coarse stage (no model needed): every document kept, reordered by rank."""
    pc = compressor()
    res = pc.compress_prompt(list(DOCS), question=QUESTION, target_token=10_000, rank_method=rank_method,
                             use_context_level_filter=True, use_token_level_filter=False, reorder_context="sort")
    return _summary(res)


def _sentences(text):
    """A regex sentence splitter standing in for nltk's punkt model (whose data would be a download)."""
    import re

    return [m.group(0) for m in re.finditer(r"[^.!?]+[.!?]+", text)]


@case(params=[20, 45], ids=["budget20", "budget45"], compare="none")
def sentence_filter(target):
    """Sentence-level filter with the question-aware score (token-level stage off)."""
    import nltk

    nltk.sent_tokenize = _sentences
    nltk.tokenize.sent_tokenize = _sentences
    pc = compressor()
    ctx = [DOCS[0] + " " + DOCS[1], DOCS[2] + " " + DOCS[3], EXTRA[1] + " " + DOCS[4]]
    res = pc.compress_prompt(ctx, question=QUESTION, target_token=target, rank_method="longllmlingua",
                             use_sentence_level_filter=True, use_context_level_filter=False,
                             use_token_level_filter=False)
    return _summary(res, ctx)


@case(params=[("sort", 24), ("original", 24), ("sort", 40), ("original", 40), ("original", 8)],
      ids=["sort_24", "original_24", "sort_40", "original_40", "original_8"], compare="none")
def coarse_budget(param):
    reorder, target = param
    """Context-level filter only with a small budget (slack +0): the best-ranked documents, in the asked order."""
    pc = compressor()
    res = pc.compress_prompt(list(DOCS), question=QUESTION, target_token=target, context_budget="+0",
                             rank_method="longllmlingua", use_context_level_filter=True,
                             use_token_level_filter=False, reorder_context=reorder)
    return _summary(res)


@case(params=[(0.5, 1), (0.5, 2), (0.3, 3)], ids=["half_one_window", "half_two_windows", "third_three_windows"],
      compare="none")
def token_level_plain(param):
    """LLMLingua's token-level stage alone (no question condition) on two documents."""
    rate, parts = param
    pc = compressor()
    ctx, iterative_size = _fit(pc, [DOCS[0], DOCS[2]], parts=parts)
    res = pc.compress_prompt(ctx, rate=rate, iterative_size=iterative_size, rank_method="llmlingua",
                             use_context_level_filter=False, use_token_level_filter=True)
    return _summary(res, ctx)


@case(params=[(0.5, 1), (0.4, 2)], ids=["half_one_window", "rate04_two_windows"], compare="none")
def token_level_contrastive(param):
    """Question as condition and contrastive perplexity, no context-level filter."""
    rate, parts = param
    pc = compressor()
    ctx, iterative_size = _fit(pc, [DOCS[0], DOCS[1], DOCS[3]], prefix=QUESTION, parts=parts)
    res = pc.compress_prompt(ctx, question=QUESTION, rate=rate, iterative_size=iterative_size,
                             rank_method="longllmlingua", condition_in_question="after_condition",
                             condition_compare=True, use_context_level_filter=False)
    return _summary(res, ctx)


@case(params=[0.0, 0.4], ids=["uniform", "dynamic04"], compare="none")
def full_pipeline(delta):
    """Coarse ranking + reordering + (dynamic) token-level compression with contrastive perplexity."""
    pc = compressor()
    docs, size = _fit(pc, list(DOCS), prefix=QUESTION)
    res = pc.compress_prompt(docs, instruction=INSTRUCTION, question=QUESTION, rate=0.55,
                             iterative_size=size, rank_method="longllmlingua", condition_in_question="after",
                             condition_compare=True, reorder_context="sort", context_budget="+200",
                             dynamic_context_compression_ratio=delta)
    return _summary(res, docs)


@case(compare="none")
def structured_segments():
    """structured_compress_prompt: a segment with compress=False is kept verbatim, the rest compressed."""
    pc = compressor()
    plain, size = _fit(pc, [DOCS[4] + DOCS[0], DOCS[2]])
    ctx = ["<llmlingua, compress=False>" + DOCS[4] + "</llmlingua><llmlingua, rate=0.4>" + DOCS[0] + "</llmlingua>",
           "<llmlingua, rate=0.4>" + plain[1] + "</llmlingua>"]
    res = pc.structured_compress_prompt(ctx, instruction=INSTRUCTION, question=QUESTION, rate=0.5,
                                        iterative_size=size, use_context_level_filter=False)
    return _summary(res, [DOCS[4] + DOCS[0], plain[1]])


@case(compare="none")
def refusals():
    """rate > 1 and LongLLMLingua ranking without a question are refused (any exception)."""
    pc = compressor()
    out = {}
    for name, kwargs in (("rate_above_one", {"rate": 1.5}),
                         ("no_question", {"rank_method": "longllmlingua", "question": ""})):
        try:
            pc.compress_prompt(list(DOCS[:2]), **kwargs)
            out[name] = False
        except Exception:
            out[name] = True
    return out


@case(params=[0, 1], ids=["entity", "two_spans"])
def recover_response(i):
    """Subsequence recovery of a response copied from a corrupted compressed prompt."""
    pc = compressor()
    original = EXTRA[0] + " " + DOCS[1]
    if i == 0:
        compressed = "Recovery check: compressor met Rhone region record 1234567 visitors"
        response = "They met Rhone region record 1234567 visitors"
    else:
        compressed = "compressor met the Rhone region record. Rhone river flows old city Lyon"
        response = "So Rhone region record and then Rhone river flows old city Lyon today"
    return {"recovered": pc.recover(original, compressed, response)}
