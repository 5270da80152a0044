# wrong: a bigram hashed as the two words glued together ("ab") instead of as the 2-gram (a, b)
def featurize(texts, config):
    m = config.num_buckets
    counts = np.zeros((len(texts), m), dtype=np.int64)
    for row, text in enumerate(texts):
        words = tokenize(text)
        for order in config.ngram_orders:
            for start in range(len(words) - order + 1):
                counts[row, hash_ngram(("".join(words[start:start + order]),), m)] += 1
    return counts
