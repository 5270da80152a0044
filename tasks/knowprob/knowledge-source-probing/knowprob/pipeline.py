"""End-to-end construction of the probing dataset and the probing experiment."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from knowprob.counter import build_counter_knowledge
from knowprob.elicit import elicit_parametric_knowledge, label_knowledge_source
from knowprob.groups import relation_group_overlap
from knowprob.model import TinyLM, WordTokenizer, last_token_activations
from knowprob.overlap import drop_subject_object_overlap
from knowprob.probing import classify_by_relation_group
from knowprob.prompt_checks import parametric_object_absent


def build_probing_dataset(model: TinyLM, tok: WordTokenizer, kb: pd.DataFrame,
                          templates: Mapping[str, str], *, n_shots: int = 1,
                          overlap_threshold: float = 0.9, seed: int = 0,
                          log=print) -> pd.DataFrame:
    """Elicit PK, filter, build counter-PK prompts and label the knowledge source."""
    data = elicit_parametric_knowledge(model, tok, kb, templates, n_shots=n_shots, seed=seed)
    log(f"elicited parametric objects: {len(data)}")
    absent = [parametric_object_absent(p, o)
              for p, o in zip(data["elicitation_prompt"], data["parametric_object"])]
    data = data[absent]
    log(f"  after removing objects present in the prompt: {len(data)}")
    data = drop_subject_object_overlap(data, overlap_threshold)
    log(f"  after removing subject/object overlap (JW >= {overlap_threshold}): {len(data)}")
    data = build_counter_knowledge(data, seed=seed, templates=templates)
    log(f"  with a counter-parametric object: {len(data)}")
    data = label_knowledge_source(model, tok, data)
    log("  knowledge source: " + ", ".join(
        f"{k}={v}" for k, v in data["knowledge_source"].value_counts().sort_index().items()))
    return data


def group_overlap_report(data: pd.DataFrame) -> pd.DataFrame:
    """Pairs of relation groups that share at least one entity."""
    overlap = relation_group_overlap(data)
    return overlap[overlap["n_shared_entities"] > 0]


def probe_all_layers(model: TinyLM, tok: WordTokenizer, data: pd.DataFrame,
                     l2: float = 1e-2) -> pd.DataFrame:
    """Leave-one-group-out probing accuracy for every (module, layer) at the last
    token of the counter prompt. One row per (module, layer, held-out group)."""
    acts = last_token_activations(model, tok, list(data["counter_prompt"]))
    rows = []
    for (module, layer), feats in sorted(acts.items()):
        res = classify_by_relation_group(feats.numpy(), data["knowledge_source"].tolist(),
                                         data["relation_group"].tolist(), l2=l2)
        for group, r in res.items():
            rows.append({"module": module, "layer": layer, "held_out_group": group,
                         "accuracy": r["accuracy"], "n_train": r["n_train"], "n_test": r["n_test"]})
    return pd.DataFrame(rows, columns=["module", "layer", "held_out_group", "accuracy",
                                       "n_train", "n_test"])
