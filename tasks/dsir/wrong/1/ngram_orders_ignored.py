# wrong: always unigrams and bigrams, whatever config.ngram_orders says
def featurize(texts, config):
    m = config.num_buckets
    counts = np.zeros((len(texts), m), dtype=np.int64)
    for row, text in enumerate(texts):
        words = tokenize(text)
        for start in range(len(words)):
            counts[row, hash_ngram((words[start],), m)] += 1
            if start + 1 < len(words):
                counts[row, hash_ngram((words[start], words[start + 1]), m)] += 1
    return counts
