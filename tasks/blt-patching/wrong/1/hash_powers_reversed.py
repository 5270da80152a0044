# wrong: the oldest byte of the n-gram gets a^0 and the newest a^(n-1) (n-gram handed to the hash newest first)
def ngram_hash_ids(tokens: torch.Tensor, n: int, table_size: int, pad_byte: int) -> torch.Tensor:
    if n < 1:
        raise ValueError("n-gram size must be positive")
    padded = F.pad(tokens, (n - 1, 0), value=pad_byte)
    grams = padded.unfold(1, n, 1).flip(-1)
    return roll_poly_hash(grams, table_size)
