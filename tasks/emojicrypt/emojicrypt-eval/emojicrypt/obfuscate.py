"""Feature-level strings and a rule-based obfuscator standing in for the obfuscation LLM.

Values are obfuscated one feature level at a time ("atomic" obfuscation) and the result is reused for every row
that contains the same feature level.
"""

from __future__ import annotations

import re

import pandas as pd

SEPARATOR = ", Value: "

LEXICON = {
    "private": "🏢", "state": "🏛️", "gov": "⚖️", "self": "🙋", "emp": "💼", "not": "🚫", "inc": "🏦",
    "bachelors": "🎓", "masters": "🎓🎓", "hs": "🏫", "grad": "📜", "some": "➕", "college": "🏫📚",
    "never": "⛔", "married": "💍", "divorced": "💔", "spouse": "👫", "civ": "🏙️", "absent": "✈️",
    "adm": "🗂️", "clerical": "📎", "exec": "👔", "managerial": "📊", "handlers": "🧤", "cleaners": "🧹",
    "prof": "🧑‍🔬", "specialty": "⭐", "other": "🔀", "service": "🛎️", "male": "♂️", "female": "♀️",
    "united": "🤝", "states": "🇺🇸", "cuba": "🇨🇺", "jamaica": "🇯🇲", "india": "🇮🇳",
}
KEYCAPS = {str(d): f"{d}\ufe0f\u20e3" for d in range(10)}


def feature_level(feature: str, value: object) -> str:
    """The canonical text of one feature level: ``"Feature: <feature>, Value: <value>"``."""
    return f"Feature: {feature}{SEPARATOR}{value}"


def obfuscate_value(value: object) -> str:
    """Emojis for known words, keycaps for digits, a consonant skeleton for anything else."""
    pieces = []
    for token in re.findall(r"[A-Za-z]+|\d+|[^\sA-Za-z\d]", str(value)):
        low = token.lower()
        if low in LEXICON:
            pieces.append(LEXICON[low])
        elif token.isdigit():
            pieces.append("".join(KEYCAPS[d] for d in token))
        elif token.isalpha():
            pieces.append(low[0] + re.sub(r"[aeiou]", "", low[1:])[:3])
        else:
            pieces.append("~" if token == "-" else token)
    return "".join(pieces)


def reusable_dictionary(table: pd.DataFrame, target: str) -> dict[str, str]:
    """Obfuscate every distinct feature level of the table once: ``{feature level: obfuscated sequence}``."""
    out = {}
    for column in table.columns:
        if column == target:
            continue
        for value in table[column].unique():
            out[feature_level(column, value)] = obfuscate_value(value)
    return out
