# wrong: the area is a left Riemann sum (rectangles at each left point) instead of the trapezoidal rule
def curve_area(curve):
    curve = np.asarray(curve, dtype=np.float64)
    x, y = curve[:, 0], curve[:, 1]
    return float(np.sum((x[1:] - x[:-1]) * y[:-1]))
