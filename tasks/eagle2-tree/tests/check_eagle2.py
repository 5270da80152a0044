from lmrbench.checks import check, close, equal, expect
