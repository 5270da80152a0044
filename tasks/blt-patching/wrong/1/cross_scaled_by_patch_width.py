# wrong: logits scaled by 1/sqrt(h_G) (the whole patch width) instead of 1/sqrt(d_k) of one head
class PatchCrossAttention:
    def forward(self, patch_states: torch.Tensor, byte_states: torch.Tensor, patches: Patches) -> torch.Tensor:
        heads = self.cfg.cross_heads
        q = split_heads(self.q_proj(self.q_norm(patch_states)), heads)
        k = split_heads(self.k_proj(self.k_norm(byte_states)), heads)
        v = split_heads(self.v_proj(self.v_norm(byte_states)), heads)
        slots = torch.arange(patches.num_slots, device=patches.patch_ids.device)
        member = patches.patch_ids.unsqueeze(1) == slots.view(1, -1, 1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.cfg.d_patch)
        scores = scores.masked_fill(~member.unsqueeze(1), torch.finfo(scores.dtype).min)
        out = patch_states + self.o_proj(merge_heads(torch.softmax(scores, dim=-1) @ v))
        return out.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
