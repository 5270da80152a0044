# wrong: patch j attends to every byte up to the end of patch j (a causal mask) instead of its own bytes only
class PatchCrossAttention:
    def forward(self, patch_states: torch.Tensor, byte_states: torch.Tensor, patches: Patches) -> torch.Tensor:
        heads = self.cfg.cross_heads
        q = split_heads(self.q_proj(self.q_norm(patch_states)), heads)
        k = split_heads(self.k_proj(self.k_norm(byte_states)), heads)
        v = split_heads(self.v_proj(self.v_norm(byte_states)), heads)
        slots = torch.arange(patches.num_slots, device=patches.patch_ids.device)
        member = patches.patch_ids.unsqueeze(1) <= slots.view(1, -1, 1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~member.unsqueeze(1), torch.finfo(scores.dtype).min)
        out = patch_states + self.o_proj(merge_heads(torch.softmax(scores, dim=-1) @ v))
        return out.masked_fill(~patches.valid.unsqueeze(-1), 0.0)
