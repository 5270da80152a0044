# WRONG: sums the cosines over checkpoints without the learning rates
def influence_scores(train_feats: torch.Tensor, val_feats: torch.Tensor, lrs: torch.Tensor) -> torch.Tensor:
    """The influence of every pool example on every subtask, Eq. (7).

    Args:
        train_feats: (N, n, d) pool features, one slice per checkpoint.
        val_feats: (N, J, d) subtask features, one slice per checkpoint.
        lrs: (N,) the checkpoints' average learning rates.
    Returns:
        (n, J) tensor.
    """
    t = train_feats / train_feats.norm(dim=-1, keepdim=True)
    v = val_feats / val_feats.norm(dim=-1, keepdim=True)
    cos = torch.einsum("cnd,cjd->cnj", t, v)
    return cos.sum(dim=0)
