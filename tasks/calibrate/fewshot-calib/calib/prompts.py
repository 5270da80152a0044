"""Prompt formats for few-shot classification: training examples as demonstrations, then the test input."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calib.tokenizer import Tokenizer


@dataclass(frozen=True)
class Template:
    """A prompt format.

    Attributes:
        input_prefix: the word before an input ("review:").
        output_prefix: the word before a label ("sentiment:"); the model's next token after it is the prediction.
        labels: the label word of each class, in class order; each is one token of the vocabulary.
    """

    input_prefix: str = "review:"
    output_prefix: str = "sentiment:"
    labels: tuple[str, ...] = ("negative", "positive")

    def example(self, text: str, label: int | None) -> str:
        """One example: "<input_prefix> text \\n <output_prefix> [label word]" (no label word when label is None)."""
        out = f"{self.input_prefix} {text} \n {self.output_prefix}"
        return out if label is None else f"{out} {self.labels[label]}"

    def build_prompt(self, demos: Sequence[tuple[str, int]], query: str) -> str:
        """The demonstrations (text, class) in order, each followed by a blank line, then the query without a
        label."""
        parts = [self.example(text, label) for text, label in demos] + [self.example(query, None)]
        return " \n \n ".join(parts)

    def label_ids(self, tokenizer: Tokenizer) -> list[int]:
        """The token id of each label word, in class order."""
        return [tokenizer.ids[w] for w in self.labels]


SENTIMENT = Template()
SENTIMENT3 = Template(labels=("negative", "neutral", "positive"))
YES_NO = Template(input_prefix="question:", output_prefix="answer:", labels=("no", "yes"))
