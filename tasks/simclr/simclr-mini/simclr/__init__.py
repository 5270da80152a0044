"""SimCLR: contrastive self-supervised representation learning, in miniature."""
