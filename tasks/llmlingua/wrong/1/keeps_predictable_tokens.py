# Wrong: each segment keeps its lowest-loss (most predictable) tokens
class PromptCompressor:
    def compress_tokens(self, parts: list[list[int]], rates: list[float]) -> list[torch.Tensor]:
        """The iterative token-level prompt compression of Section 3.2 (Algorithm 2) over the parts of x'.

        Args:
            parts: token ids of each part of x', in prompt order, each non-empty.
            rates: the compression rate of each part (same length as `parts`).

        Returns:
            one bool tensor per part, of the part's length: True where the token is kept.

        Raises:
            ValueError: if `parts` and `rates` differ in length.
        """
        if len(parts) != len(rates):
            raise ValueError(f"{len(parts)} parts but {len(rates)} rates")
        size = self.config.segment_size
        compressed: list[int] = []
        masks = []
        for part, rate in zip(parts, rates):
            pieces = []
            for start in range(0, len(part), size):
                segment = part[start:start + size]
                nll = self.token_nll(compressed, segment)
                keep = keep_top(-nll, keep_count(len(segment), rate))
                compressed.extend(t for t, k in zip(segment, keep.tolist()) if k)
                pieces.append(keep)
            masks.append(torch.cat(pieces))
        return masks
