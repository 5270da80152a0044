"""Task authoring: lint, mechanical mutants, fixtures and expected outputs, validation (the discrimination proof)."""
