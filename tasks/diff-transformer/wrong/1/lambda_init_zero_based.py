# wrong: Eq. (3) with l counted from 0 (exp(-0.3 l) for the 1-based index l)
def lambda_init_fn(layer):
    if layer < 1:
        raise ValueError(f"layer indices start at 1, got {layer}")
    return 0.8 - 0.6 * math.exp(-0.3 * layer)
