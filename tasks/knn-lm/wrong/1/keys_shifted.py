# wrong: the key of an entry is the context vector one position later (it has already seen the target)
def build_datastore(model: TinyLM, sequences: Sequence[Sequence[int]]) -> Datastore:
    keys, values = [], []
    for seq in sequences:
        if len(seq) < 2:
            continue
        keys.append(model.context_vectors(seq)[1:])
        values.append(torch.tensor(list(seq[1:]), dtype=torch.int64))
    hidden = model.embed.shape[1]
    if not keys:
        return Datastore(torch.zeros(0, hidden, dtype=torch.float64), torch.zeros(0, dtype=torch.int64),
                         model.vocab_size)
    return Datastore(torch.cat(keys), torch.cat(values), model.vocab_size)
