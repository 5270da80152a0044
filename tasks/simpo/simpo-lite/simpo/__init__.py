"""SimPO: simple, reference-free preference optimisation on a toy recurrent LM."""
