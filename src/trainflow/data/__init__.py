"""`tf.data`: input pipelines as graph ops (TF 1.15's graph-mode API)."""
from trainflow.data import experimental  # noqa: F401
from trainflow._src.data.dataset_ops import AUTOTUNE  # noqa: F401
from trainflow._src.data.dataset_ops import DatasetV1 as Dataset  # noqa: F401
from trainflow._src.data.dataset_spec import DatasetSpec  # noqa: F401
from trainflow._src.data.iterator_ops import Iterator  # noqa: F401
from trainflow._src.data.iterator_ops import (  # noqa: F401
    get_output_classes, get_output_shapes, get_output_types, make_initializable_iterator,
    make_one_shot_iterator)
from trainflow._src.data.options import Options, ThreadingOptions  # noqa: F401
from trainflow._src.data.reordering_experimental import (  # noqa: F401
    INFINITE_CARDINALITY, UNKNOWN_CARDINALITY)
from trainflow._src.data.readers import (  # noqa: F401
    FixedLengthRecordDatasetV1 as FixedLengthRecordDataset, TextLineDatasetV1 as TextLineDataset,
    TFRecordDatasetV1 as TFRecordDataset)
