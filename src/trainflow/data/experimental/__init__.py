"""`tf.data.experimental`: the transformations, readers and iterator tools TF 1.15 kept
outside `tf.data.Dataset`."""
from trainflow._src.data.dataset_ops import AUTOTUNE  # noqa: F401
# -- reordering and grouping

# -- functional and parallel
from trainflow._src.data.parallel_experimental import (  # noqa: F401
    map_and_batch, parallel_interleave)

# -- readers and files

# -- iterators and checkpoints

