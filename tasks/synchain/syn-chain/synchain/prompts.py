"""The three prompts of the Syntax-Opinion-Sentiment reasoning chain."""
from __future__ import annotations

from synchain.parse import DependencyParse
from synchain.syntax import format_dependency_table


def syntax_prompt(parse: DependencyParse, aspect: str) -> str:
    return (
        f'Sentence: "{parse.text}"\n'
        "Dependency parse (ID, token, part of speech, head ID, head token, relation):\n"
        f"{format_dependency_table(parse)}\n\n"
        f'Step 1. Using the dependency parse, which words are syntactically connected to the aspect "{aspect}"?'
    )


def opinion_prompt(history: str, syntax_answer: str, aspect: str) -> str:
    return (f"{history}\n{syntax_answer}\n\n"
            f'Step 2. Based on these syntactic relations, what opinion does the sentence express about "{aspect}"?')


def sentiment_prompt(history: str, opinion_answer: str, aspect: str) -> str:
    return (f"{history}\n{opinion_answer}\n\n"
            f'Step 3. Based on this opinion, is the sentiment towards "{aspect}" positive, negative or neutral?')
