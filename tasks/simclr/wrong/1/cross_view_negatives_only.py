# WRONG: CLIP-style loss: each anchor is contrasted only with the N views of the other side.
import torch


def nt_xent_loss(
    z1: torch.Tensor,
    z2: torch.Tensor,
    temperature: float = 0.5,
    reduction: str = "mean",
) -> torch.Tensor:
    """NT-Xent loss over the 2N views of a batch.

    Args:
        z1: projections of the first view of each example, shape ``(N, d)``.
        z2: projections of the second view, shape ``(N, d)``; ``z1[k]`` and ``z2[k]`` are the
            positive pair of example ``k``.
        temperature: the temperature ``tau > 0`` dividing the cosine similarities.
        reduction: ``"mean"`` (average over the 2N anchors), ``"sum"``, or ``"none"``.

    Returns:
        A scalar for ``"mean"``/``"sum"``. For ``"none"``, the per-anchor losses of shape
        ``(2N,)``: entries ``0..N-1`` use ``z1[k]`` as the anchor, entries ``N..2N-1`` use
        ``z2[k]``. The inputs need not be normalised. The computation must stay finite for small
        temperatures (e.g. ``tau = 0.01`` in float32) and keep the input dtype.
    """
    n = z1.shape[0]
    a = z1 / torch.linalg.vector_norm(z1, dim=1, keepdim=True)
    b = z2 / torch.linalg.vector_norm(z2, dim=1, keepdim=True)
    cross = a @ b.T / temperature
    diag = torch.arange(n, device=z1.device)
    loss_a = torch.logsumexp(cross, dim=1) - cross[diag, diag]
    loss_b = torch.logsumexp(cross.T, dim=1) - cross.T[diag, diag]
    losses = torch.cat([loss_a, loss_b])
    return _reduce(losses, reduction)
