"""evalbars: statistics for language-model eval results (scores per question, one or two models)."""
