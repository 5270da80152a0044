# WRONG: inner product of the features instead of the cosine
def influence_scores(train_feats: torch.Tensor, val_feats: torch.Tensor, lrs: torch.Tensor) -> torch.Tensor:
    """The influence of every pool example on every subtask, Eq. (7).

    Args:
        train_feats: (N, n, d) pool features, one slice per checkpoint.
        val_feats: (N, J, d) subtask features, one slice per checkpoint.
        lrs: (N,) the checkpoints' average learning rates.
    Returns:
        (n, J) tensor.
    """
    t, v = train_feats, val_feats
    cos = torch.einsum("cnd,cjd->cnj", t, v)
    return torch.einsum("c,cnj->nj", lrs.to(cos.dtype), cos)
