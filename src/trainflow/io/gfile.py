"""`tf.io.gfile`: the file API with TF2-style lowercase names (`exists`, `glob` ...);
`tf.gfile` holds the TF1 names of the same functions."""
from trainflow._src.gfile.file_ops import (  # noqa: F401
    copy, exists, get_registered_schemes, isdir, join, listdir, makedirs, mkdir, remove, rename,
    rmtree, stat, walk)
from trainflow._src.gfile.gfile import GFile  # noqa: F401
from trainflow._src.gfile.glob import glob  # noqa: F401

__all__ = sorted(n for n in dir() if not n.startswith("_"))
