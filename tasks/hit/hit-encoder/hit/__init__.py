"""HiT: re-training small language-model encoders as hierarchy encoders in hyperbolic space."""
