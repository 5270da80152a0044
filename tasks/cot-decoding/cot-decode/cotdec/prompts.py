"""A few word-problem prompts in the tokenizer's vocabulary."""

PROMPTS = (
    "q: i have 3 apples and get 2 more . a:",
    "q: i have 1 2 apples then 5 left . a:",
    "q: 4 plus 4 = a:",
    "q: we have 7 minus 3 apples . the total is a:",
    "q: a:",
)
