"""`tf.lookup.experimental`: the mutable lookup tables."""
from trainflow._src.lookup.mutable import DenseHashTable, MutableHashTable  # noqa: F401

__all__ = ["DenseHashTable", "MutableHashTable"]
