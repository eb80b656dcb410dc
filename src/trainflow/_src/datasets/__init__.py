"""Small data sets that ship with trainflow (no downloads)."""
import gzip
import os

import numpy as np

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def load_digits():
    """The UCI handwritten digits (1797 8x8 images, CC BY 4.0; see data/DIGITS_LICENSE.md).

    Returns:
      (images, labels): float32 [1797, 64] pixel counts in 0..16, int64 [1797] labels 0..9.
    """
    with gzip.open(os.path.join(_DATA_DIR, "digits.csv.gz"), "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    return data[:, :-1], data[:, -1].astype(np.int64)
