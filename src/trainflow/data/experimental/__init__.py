"""`tf.data.experimental`: the transformations, readers and iterator tools TF 1.15 kept
outside `tf.data.Dataset`."""
from trainflow._src.data.dataset_ops import AUTOTUNE  # noqa: F401
# -- reordering and grouping

# -- functional and parallel

# -- readers and files
from trainflow._src.data.csv_readers import CsvDatasetV1 as CsvDataset  # noqa: F401
from trainflow._src.data.csv_readers import make_csv_dataset  # noqa: F401
from trainflow._src.data.example_readers import (  # noqa: F401
    make_batched_features_dataset, parse_example_dataset)
from trainflow._src.data.sql_readers import SqlDatasetV1 as SqlDataset  # noqa: F401
from trainflow._src.data.tfrecord_writer import TFRecordWriter  # noqa: F401

# -- iterators and checkpoints

