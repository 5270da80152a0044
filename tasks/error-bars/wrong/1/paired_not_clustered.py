# wrong: the paired standard error ignores the clusters (Eq. (3) on the differences, not Eq. (5))
def shared_clusters(a, b, order):
    b_labels = None if b.clusters is None else b.clusters[order]
    if a.clusters is not None and b_labels is not None and not np.array_equal(a.clusters, b_labels):
        raise ValueError("the two tables put a question in different clusters")
    return None
