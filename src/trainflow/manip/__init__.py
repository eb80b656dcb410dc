"""`tf.manip`: TF 1.x's home of some array ops (aliases of the `tf.*` ones)."""
from trainflow._src.ops.array.array_ops import (  # noqa: F401
    batch_to_space_nd, gather_nd, reshape, reverse, roll, scatter_nd, space_to_batch_nd, tile)

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]
