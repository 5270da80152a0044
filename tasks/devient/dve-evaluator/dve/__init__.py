"""Defeasible visual entailment (DVE): an inference-aware evaluator of updates, in miniature."""
