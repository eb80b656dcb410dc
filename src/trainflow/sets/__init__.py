"""`tf.sets`: set operations along the last dimension, with sparse results."""
from trainflow._src.ops.sparse.sets import (  # noqa: F401
    set_difference, set_intersection, set_size, set_union)
from trainflow._src.ops.sparse.sets import (  # noqa: F401
    set_difference as difference, set_intersection as intersection, set_size as size,
    set_union as union)

__all__ = ["difference", "intersection", "set_difference", "set_intersection", "set_size",
           "set_union", "size", "union"]
