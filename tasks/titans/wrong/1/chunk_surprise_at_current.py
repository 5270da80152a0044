# wrong: the chunked form computed exactly as the sequential one (every surprise at the current weights, no chunk approximation)
def chunked_update(weights, momentum, k, v, alpha, eta, theta, chunk_size):
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    return sequential_update(weights, momentum, k, v, alpha, eta, theta)
