from lmrbench_probe import case
