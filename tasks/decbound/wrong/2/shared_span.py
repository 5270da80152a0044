# WRONG: pads both axes by the margin times the larger of the two spans (a square padding)
def probe_grid(X, resolution=50, margin=0.1):
    X = np.asarray(X, dtype=np.float64)
    if resolution < 2:
        raise ValueError("resolution must be at least 2")
    if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] == 0:
        raise ValueError("X must be a non-empty (n, 2) array")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = float((hi - lo).max())
    pad = margin * span if span > 0 else margin
    xs = np.linspace(lo[0] - pad, hi[0] + pad, resolution)
    ys = np.linspace(lo[1] - pad, hi[1] + pad, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return Grid(np.stack([gx.ravel(), gy.ravel()], axis=1), xs, ys)
