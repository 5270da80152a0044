"""Self-Play fINe-tuning (SPIN) on a toy LSTM language model.

Each iteration freezes a copy of the current model (the *opponent*), lets it generate responses to the
SFT prompts, and trains the model to tell the human responses apart from the opponent's.
"""
