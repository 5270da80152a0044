# WRONG: drops the gate projection's bias
class GatedAttention(nn.Module):
    def gate_scores(self, x: torch.Tensor) -> torch.Tensor:
        """The gate scores of the inputs.

        Args:
            x: (B, T, d_model), the normalised hidden states entering the layer.

        Returns:
            (B, T, n_groups, group_dim) with (n_groups, group_dim) = cfg.gate_shape(), dtype of x.

        Raises:
            RuntimeError: if the layer has no gate (gate_position "none").
        """
        if self.gate_proj is None:
            raise RuntimeError("this layer has no gate")
        groups, width = self.cfg.gate_shape()
        z = F.linear(x, self.gate_proj.weight)
        s = torch.sigmoid(z) if self.cfg.gate_activation == "sigmoid" else F.silu(z)
        return s.view(*x.shape[:-1], groups, width)
