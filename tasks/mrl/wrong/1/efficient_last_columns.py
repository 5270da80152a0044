# wrong: MRL-E takes the last m columns of the shared weight matrix
def matryoshka_logits(z: torch.Tensor, weights: Sequence[torch.Tensor], biases: Sequence[torch.Tensor],
                      cfg: MRLConfig) -> list[torch.Tensor]:
    out = []
    for i, m in enumerate(cfg.dims):
        w = weights[0][:, -m:] if cfg.efficient else weights[i]
        out.append(z[:, :m] @ w.T + biases[i])
    return out
