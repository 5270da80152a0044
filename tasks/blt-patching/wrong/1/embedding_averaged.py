# wrong: e_i is the mean of the byte embedding and the n-gram embeddings instead of their sum (Eq. 6)
class HashNgramEmbedding:
    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if bool(((tokens < 0) | (tokens >= BYTE_VOCAB)).any()):
            raise ValueError("tokens must be byte values in [0, 256)")
        e = self.byte_embed(tokens)
        for n, table in zip(self.cfg.ngram_sizes, self.hash_embeds):
            e = e + table(ngram_hash_ids(tokens, n, self.cfg.hash_table_size, self.cfg.ngram_pad_byte))
        return e / (len(self.cfg.ngram_sizes) + 1)
