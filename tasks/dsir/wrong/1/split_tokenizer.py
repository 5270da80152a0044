# wrong: words from str.split() (case and punctuation kept) instead of the repository's tokenize
def featurize(texts, config):
    m = config.num_buckets
    counts = np.zeros((len(texts), m), dtype=np.int64)
    for row, text in enumerate(texts):
        words = text.split()
        for order in config.ngram_orders:
            for start in range(len(words) - order + 1):
                counts[row, hash_ngram(tuple(words[start:start + order]), m)] += 1
    return counts
