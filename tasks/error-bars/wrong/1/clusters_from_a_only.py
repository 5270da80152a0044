# wrong: only the first table's cluster labels are used (labels of B alone are dropped)
def shared_clusters(a, b, order):
    b_labels = None if b.clusters is None else b.clusters[order]
    if a.clusters is not None and b_labels is not None and not np.array_equal(a.clusters, b_labels):
        raise ValueError("the two tables put a question in different clusters")
    return a.clusters
