"""A tiny Byte Latent Transformer: entropy patching, a local encoder, a latent global transformer."""
