# WRONG: aligns every difference to positive-minus-negative before PCA, so centring removes the concept's mean shift
def reading_vectors(first, second, first_is_positive, n_components=1):
    first = first.detach().to(torch.float64)
    second = second.detach().to(torch.float64)
    if first.dim() != 3 or first.shape != second.shape:
        raise ValueError("first and second must both be (num_layers, num_pairs, hidden_dim)")
    _, num_pairs, dim = first.shape
    if not 1 <= n_components <= min(num_pairs - 1, dim):
        raise ValueError("n_components out of range")
    orient = torch.where(first_is_positive.bool(), 1.0, -1.0).to(torch.float64)
    directions, ratios, accuracies = [], [], []
    for x, y in zip(first, second):
        p = orient[:, None] * (x - y)
        centred = p - p.mean(dim=0, keepdim=True)
        _, s, vh = torch.linalg.svd(centred, full_matrices=False)
        comps = vh[:n_components]
        ratios.append(s[:n_components] ** 2 / (s**2).sum())
        proj = p @ comps.T
        up = (proj > 0).to(torch.float64).mean(dim=0)
        down = (proj < 0).to(torch.float64).mean(dim=0)
        flip = (down > up) | ((down == up) & (proj.mean(dim=0) < 0))
        directions.append(torch.where(flip[:, None], -comps, comps))
        accuracies.append(torch.where(flip, down, up))
    return ReadingVectors(torch.stack(directions), torch.stack(ratios), torch.stack(accuracies))
