"""`tf.data.experimental`: the transformations, readers and iterator tools TF 1.15 kept
outside `tf.data.Dataset`."""
from trainflow._src.data.dataset_ops import AUTOTUNE  # noqa: F401
from trainflow._src.data.dataset_spec import (  # noqa: F401
    DatasetStructure, RaggedTensorStructure, SparseTensorStructure, Structure,
    TensorArrayStructure, TensorStructure)
from trainflow._src.data.optional_ops import OptionalSpec as OptionalStructure  # noqa: F401
# -- reordering and grouping
from trainflow._src.data.options import (  # noqa: F401
    AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions, DistributeOptions,
    ExternalStatePolicy, OptimizationOptions, ThreadingOptions)
from trainflow._src.data.experimental_utils import (  # noqa: F401
    SHARD_HINT, assert_cardinality, enable_debug_mode, from_list, from_variant, get_structure,
    pad_to_cardinality, to_variant)
from trainflow._src.data.reordering_experimental import (  # noqa: F401
    INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Counter, cardinality, dense_to_sparse_batch,
    enumerate_dataset, get_single_element, ignore_errors, shuffle_and_repeat, take_while,
    unbatch, unique)

# -- functional and parallel
from trainflow._src.data.grouping import (  # noqa: F401
    Reducer, bucket_by_sequence_length, group_by_reducer, group_by_window, scan)
from trainflow._src.data.parallel_experimental import (  # noqa: F401
    RandomDataset, choose_from_datasets, copy_to_device, map_and_batch,
    map_and_batch_with_legacy_function, parallel_interleave, prefetch_to_device,
    sample_from_datasets)
from trainflow._src.data.resampling import rejection_resample  # noqa: F401

# -- readers and files
from trainflow._src.data.csv_readers import CsvDatasetV1 as CsvDataset  # noqa: F401
from trainflow._src.data.csv_readers import make_csv_dataset  # noqa: F401
from trainflow._src.data.example_readers import (  # noqa: F401
    make_batched_features_dataset, parse_example_dataset)
from trainflow._src.data.sql_readers import SqlDatasetV1 as SqlDataset  # noqa: F401
from trainflow._src.data.tfrecord_writer import TFRecordWriter  # noqa: F401

# -- lookup tables from datasets
from trainflow._src.lookup.dataset_tables import (  # noqa: F401
    DatasetInitializer, index_table_from_dataset, table_from_dataset)

# -- iterators and checkpoints
from trainflow._src.data.optional_ops import Optional, get_next_as_optional  # noqa: F401
from trainflow._src.train.iterator_checkpoint import (  # noqa: F401
    CheckpointInputPipelineHook, make_saveable_from_iterator)

