# wrong: the n-gram at byte i is the n bytes starting at i (b_i .. b_{i+n-1}, padded at the end), not ending at i
def ngram_hash_ids(tokens: torch.Tensor, n: int, table_size: int, pad_byte: int) -> torch.Tensor:
    if n < 1:
        raise ValueError("n-gram size must be positive")
    padded = F.pad(tokens, (0, n - 1), value=pad_byte)
    return roll_poly_hash(padded.unfold(1, n, 1), table_size)
