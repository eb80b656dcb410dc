"""`tf.data.experimental`: the transformations, readers and iterator tools TF 1.15 kept
outside `tf.data.Dataset`."""
from trainflow._src.data.dataset_ops import AUTOTUNE  # noqa: F401
# -- reordering and grouping
from trainflow._src.data.options import (  # noqa: F401
    AutoShardPolicy, AutotuneOptions, DistributeOptions, ExternalStatePolicy,
    OptimizationOptions, ThreadingOptions)
from trainflow._src.data.reordering_experimental import (  # noqa: F401
    INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Counter, cardinality, dense_to_sparse_batch,
    enumerate_dataset, get_single_element, ignore_errors, shuffle_and_repeat, take_while,
    unbatch, unique)

# -- functional and parallel

# -- readers and files
from trainflow._src.data.csv_readers import CsvDatasetV1 as CsvDataset  # noqa: F401
from trainflow._src.data.csv_readers import make_csv_dataset  # noqa: F401
from trainflow._src.data.example_readers import (  # noqa: F401
    make_batched_features_dataset, parse_example_dataset)
from trainflow._src.data.sql_readers import SqlDatasetV1 as SqlDataset  # noqa: F401
from trainflow._src.data.tfrecord_writer import TFRecordWriter  # noqa: F401

# -- iterators and checkpoints
from trainflow._src.data.optional_ops import Optional, get_next_as_optional  # noqa: F401
from trainflow._src.train.iterator_checkpoint import (  # noqa: F401
    CheckpointInputPipelineHook, make_saveable_from_iterator)

