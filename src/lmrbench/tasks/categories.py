"""The nine canonical LMR-Bench categories and the mapping of the original data's spellings onto them."""

from __future__ import annotations

from enum import Enum


class Category(str, Enum):
    """One of the nine categories of LMR-Bench (exact names)."""

    TRAINING = "Training Objectives & Optimization Techniques"
    METRICS = "Evaluation Metrics & Benchmarking"
    DECODING = "Decoding & Search Strategies"
    INTERPRETABILITY = "Interpretability & Explainability"
    DATA = "Data Augmentation & Generation"
    KNOWLEDGE = "Information Extraction & Knowledge Integration"
    ARCHITECTURES = "Neural Network Architectures & Modules"
    REPRESENTATION = "Feature Learning & Representation"
    PROMPTING = "Prompt Engineering & Instruction Tuning"


# Lower-cased spellings seen in the original data (or obvious abbreviations) -> canonical category.
_ALIASES: dict[str, Category] = {
    "loss function": Category.TRAINING,
    "loss functions": Category.TRAINING,
    "training objectives": Category.TRAINING,
    "optimization": Category.TRAINING,
    "evaluation metrics": Category.METRICS,
    "evaluation": Category.METRICS,
    "metrics": Category.METRICS,
    "decoding": Category.DECODING,
    "search strategies": Category.DECODING,
    "interpretability": Category.INTERPRETABILITY,
    "explainability": Category.INTERPRETABILITY,
    "data augmentation": Category.DATA,
    "data generation": Category.DATA,
    "information extraction": Category.KNOWLEDGE,
    "knowledge integration": Category.KNOWLEDGE,
    "neural network architectures": Category.ARCHITECTURES,
    "architectures": Category.ARCHITECTURES,
    "feature learning": Category.REPRESENTATION,
    "representation learning": Category.REPRESENTATION,
    "prompt engineering": Category.PROMPTING,
    "instruction tuning": Category.PROMPTING,
}


def normalise_category(raw: str | None) -> Category | None:
    """Map a category string from any layout onto a canonical category; None when it cannot be mapped."""
    if not raw or not raw.strip():
        return None
    text = " ".join(raw.replace("and", "&").split()).strip().lower()
    for cat in Category:
        if cat.value.lower() == text:
            return cat
    cleaned = " ".join(raw.split()).strip().lower()
    if cleaned in _ALIASES:
        return _ALIASES[cleaned]
    # "Evaluation Metrics & Benchmarking" vs "Evaluation Metrics": match on the part before '&'.
    head = cleaned.split("&")[0].split(" and ")[0].strip()
    if head in _ALIASES:
        return _ALIASES[head]
    for cat in Category:
        if cat.value.lower().split("&")[0].strip() == head:
            return cat
    return None
