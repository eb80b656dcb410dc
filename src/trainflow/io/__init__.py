"""The `tf.io` namespace."""
# --- formats: TFRecord (issue 3) ---
from trainflow._src.formats.tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)

# --- graph core (issue 2) ---
from trainflow.io import gfile  # noqa: E402,F401  (tf.io.gfile)

# --- image codecs (issue 4, tf.image) ---
from trainflow.image import (  # noqa: E402,F401
    decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
    extract_jpeg_shape)

# --- file ops, readers (issue 12) ---
from trainflow._src.ops.io.file_io_ops import matching_files, read_file, write_file  # noqa: E402,F401
from trainflow._src.ops.io.decode_ops import (  # noqa: E402,F401
    decode_compressed, decode_csv, decode_json_example, decode_raw)
from trainflow._src.ops.io.parsing_config import (  # noqa: E402,F401
    FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature)
from trainflow._src.ops.io.parsing_ops import parse_example, parse_single_example  # noqa: E402,F401
from trainflow._src.ops.io.sequence_parsing import (  # noqa: E402,F401
    parse_sequence_example, parse_single_sequence_example)
from trainflow._src.ops.data_flow.queues import (  # noqa: E402,F401
    PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue)
# --- graph files (issue 10) ---
from trainflow._src.train.meta_graph_io import write_graph  # noqa: E402,F401  (tf.io.write_graph)
