"""moonlet: a tiny decoder-only language model trained with Muon (the Moonlight recipe) or AdamW."""
