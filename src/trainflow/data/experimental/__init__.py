"""`tf.data.experimental`: the transformations, readers and iterator tools TF 1.15 kept
outside `tf.data.Dataset`."""
from trainflow._src.data.dataset_ops import AUTOTUNE  # noqa: F401
# -- reordering and grouping

# -- functional and parallel
from trainflow._src.data.grouping import (  # noqa: F401
    Reducer, bucket_by_sequence_length, group_by_reducer, group_by_window, scan)
from trainflow._src.data.parallel_experimental import (  # noqa: F401
    RandomDataset, choose_from_datasets, copy_to_device, map_and_batch,
    map_and_batch_with_legacy_function, parallel_interleave, prefetch_to_device,
    sample_from_datasets)
from trainflow._src.data.resampling import rejection_resample  # noqa: F401

# -- readers and files

# -- iterators and checkpoints

