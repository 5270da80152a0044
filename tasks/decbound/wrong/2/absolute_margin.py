# WRONG: pads every axis by the margin itself instead of margin * (hi - lo)
def probe_grid(X, resolution=50, margin=0.1):
    X = np.asarray(X, dtype=np.float64)
    if resolution < 2:
        raise ValueError("resolution must be at least 2")
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise ValueError("X must be a non-empty (n, 2) array")
    lo, hi = X.min(axis=0), X.max(axis=0)
    xs = np.linspace(lo[0] - margin, hi[0] + margin, resolution)
    ys = np.linspace(lo[1] - margin, hi[1] + margin, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return Grid(np.stack([gx.ravel(), gy.ravel()], axis=1), xs, ys)
