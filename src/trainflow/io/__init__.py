"""The `tf.io` namespace: TFRecord files, file ops, parsing and decoding, image codecs,
queues, `write_graph`, and `tf.io.gfile`."""
from trainflow.io import gfile  # noqa: F401

# --- TFRecord files ---
from trainflow._src.formats.tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)

# --- file ops and graph files ---
from trainflow._src.ops.io.file_io_ops import matching_files, read_file, write_file  # noqa: F401
from trainflow._src.train.meta_graph_io import write_graph  # noqa: F401

# --- parsing and decoding ---
from trainflow._src.ops.io.parsing_config import (  # noqa: F401
    FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature)
from trainflow._src.ops.io.parsing_ops import parse_example, parse_single_example  # noqa: F401
from trainflow._src.ops.io.sequence_parsing import (  # noqa: F401
    parse_sequence_example, parse_single_sequence_example)
from trainflow._src.ops.io.decode_ops import (  # noqa: F401
    decode_compressed, decode_csv, decode_json_example, decode_raw)
# tf.image's codecs (importing the tf.image face registers all image op types, as before).
from trainflow.image import (  # noqa: F401
    decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
    extract_jpeg_shape, is_jpeg)

# --- queues ---
from trainflow._src.ops.data_flow.queues import (  # noqa: F401
    PaddingFIFOQueue, PriorityQueue, QueueBase, RandomShuffleQueue)

# --- strings as encodings and serialized tensors ---
from trainflow._src.ops.string.string_codec import (  # noqa: F401
    decode_base64, encode_base64, parse_tensor, serialize_tensor)

# --- SparseTensors as strings ---
from trainflow._src.ops.sparse.sparse_serialize import (  # noqa: F401
    deserialize_many_sparse, serialize_many_sparse, serialize_sparse)

# --- file patterns ---
from trainflow._src.train.input import match_filenames_once  # noqa: F401

# --- protocol buffers ---
from trainflow._src.ops.io.proto_ops import decode_proto, encode_proto  # noqa: F401
