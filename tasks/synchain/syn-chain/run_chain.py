"""Run the Syntax-Opinion-Sentiment chain on the example sentences with the offline reader."""
from __future__ import annotations

from synchain.chain import RuleBasedReader, run_chain
from synchain.parse import EXAMPLES
from synchain.syntax import format_dependency_table


def main() -> None:
    model = RuleBasedReader()
    correct = 0
    for ex in EXAMPLES:
        result = run_chain(model, ex.parse, ex.aspect)
        correct += result.polarity == ex.polarity
        print(f"{ex.parse.text!r} / aspect {ex.aspect!r}: {result.syntax}; {result.opinion}; "
              f"predicted {result.polarity}, gold {ex.polarity}")
    print(f"accuracy {correct}/{len(EXAMPLES)}")
    print()
    print(format_dependency_table(EXAMPLES[1].parse, skip_punct=True))


if __name__ == "__main__":
    main()
