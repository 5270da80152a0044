"""A small, self-contained Direct Preference Optimization (DPO) trainer.

Modules:
    config    -- hyper-parameters of a run
    model     -- a tiny causal Transformer language model and the frozen reference copy
    data      -- synthetic preference pairs, tokenisation and padding
    logprobs  -- per-sequence log-probabilities of responses under a model
    losses    -- the preference objectives (DPO, conservative DPO, IPO)
    trainer   -- the training loop that ties everything together
"""

__all__ = ["config", "model", "data", "logprobs", "losses", "trainer"]
