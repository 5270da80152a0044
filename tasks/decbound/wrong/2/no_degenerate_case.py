# WRONG: no special case for a constant axis, whose grid then collapses to a single value
def probe_grid(X, resolution=50, margin=0.1):
    X = np.asarray(X, dtype=np.float64)
    if resolution < 2:
        raise ValueError("resolution must be at least 2")
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise ValueError("X must be a non-empty (n, 2) array")
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = margin * (hi - lo)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    return Grid(np.stack([gx.ravel(), gy.ravel()], axis=1), xs, ys)
