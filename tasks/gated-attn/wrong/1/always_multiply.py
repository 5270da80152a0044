# WRONG: ignores the additive combination (Eq. (6)): always multiplies
class GatedAttention(nn.Module):
    def apply_gate(self, y: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """Combine a gated tensor with its gate scores.

        Args:
            y: (B, T, h, head_dim), the tensor at the gate's position, h = cfg.gated_heads() ("dense": n_heads).
            scores: (B, T, n_groups, group_dim), as returned by gate_scores.

        Returns:
            (B, T, h, head_dim), dtype of y.
        """
        if True:
            return y * scores
        return y + scores
