"""Querying the model: parametric-knowledge elicitation and knowledge-source labels."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from knowprob.model import TinyLM, WordTokenizer, greedy_complete
from knowprob.prompts import elicitation_prompts
from knowprob.text import normalize_entity


def elicit_parametric_knowledge(model: TinyLM, tok: WordTokenizer, kb: pd.DataFrame,
                                templates: Mapping[str, str], n_shots: int = 1,
                                seed: int = 0, max_new_tokens: int = 1) -> pd.DataFrame:
    """Add the columns ``elicitation_prompt`` and ``parametric_object`` (the model's
    greedy answer to the few-shot query; it may differ from the gold object). The
    synthetic entities are single words, hence one generated token by default."""
    out = kb.copy()
    out["elicitation_prompt"] = elicitation_prompts(kb, templates, n_shots=n_shots, seed=seed)
    out["parametric_object"] = [greedy_complete(model, tok, p, max_new_tokens)
                                for p in out["elicitation_prompt"]]
    return out


def knowledge_source(generation: str, parametric_object: str, counter_object: str) -> str:
    """``"PK"`` if the generation is the parametric object, ``"CK"`` if it is the
    counter object given in the context, ``"ND"`` (not determined) otherwise."""
    g = normalize_entity(generation)
    if g == normalize_entity(parametric_object):
        return "PK"
    if g == normalize_entity(counter_object):
        return "CK"
    return "ND"


def label_knowledge_source(model: TinyLM, tok: WordTokenizer, df: pd.DataFrame,
                           max_new_tokens: int = 1) -> pd.DataFrame:
    """Query the model with each ``counter_prompt`` and label its answer."""
    out = df.copy()
    out["counter_generation"] = [greedy_complete(model, tok, p, max_new_tokens)
                                 for p in out["counter_prompt"]]
    out["knowledge_source"] = [
        knowledge_source(g, p, c)
        for g, p, c in zip(out["counter_generation"], out["parametric_object"], out["counter_object"])
    ]
    return out
