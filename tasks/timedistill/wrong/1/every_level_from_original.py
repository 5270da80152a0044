# WRONG: every level pools the ORIGINAL series with the same window, so all downsampled levels are identical.
def multi_scale_downsample(x, num_scales, window, x_mark=None):
    if window < 1 or num_scales < 0:
        raise ValueError("bad arguments")
    levels = [x]
    marks = None if x_mark is None else [x_mark]
    length = x.shape[1] // window
    if num_scales > 0 and length == 0:
        raise ValueError("sequence too short")
    for _ in range(num_scales):
        levels.append(F.avg_pool1d(x.transpose(1, 2), kernel_size=window, stride=window).transpose(1, 2))
        if marks is not None:
            marks.append(x_mark[:, : length * window : window])
    return levels, marks
