# wrong: one attention head of width h_G instead of U_E heads of width h_E
class PatchCrossAttention:
    def forward(self, patch_states: torch.Tensor, byte_states: torch.Tensor, patches: Patches) -> torch.Tensor:
        q = self.q_proj(self.q_norm(patch_states))
        k = self.k_proj(self.k_norm(byte_states))
        v = self.v_proj(self.v_norm(byte_states))
        slots = torch.arange(patches.num_slots, device=patches.patch_ids.device)
        member = patches.patch_ids.unsqueeze(1) == slots.view(1, -1, 1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.cfg.d_local)
        scores = scores.masked_fill(~member, torch.finfo(scores.dtype).min)
        out = patch_states + self.o_proj(torch.softmax(scores, dim=-1) @ v)
        return out.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
