"""Shared by the knowprob probes (runs in the sandbox): turns the candidate's return values into plain data.

Nothing here compares anything; the harness compares the emitted data with the reference's outside the sandbox."""

import numpy as np
import pandas as pd


def plain(value):
    """A numpy scalar as the Python scalar it holds; lists and tuples element by element; anything else as is."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def frame(df) -> dict:
    """A DataFrame as data: index labels and dtype, column names, each column's dtype and values."""
    return {
        "is_frame": isinstance(df, pd.DataFrame),
        "index": [plain(i) for i in df.index],
        "index_dtype": str(df.index.dtype),
        "columns": [plain(c) for c in df.columns],
        "dtypes": {str(c): str(t) for c, t in df.dtypes.items()},
        "values": {str(c): [plain(v) for v in df[c].tolist()] for c in df.columns},
    }
