"""The `tf.io` namespace."""
# --- formats: TFRecord (issue 3) ---
from trainflow.formats.tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)

# --- graph core (issue 2) ---
from trainflow import gfile  # noqa: E402,F401  (tf.io.gfile)

# --- image codecs (issue 4, tf.image) ---
from trainflow.image import (  # noqa: E402,F401
    decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
    extract_jpeg_shape)

# --- graph files (issue 10) ---
from trainflow.train.meta_graph_io import write_graph  # noqa: E402,F401  (tf.io.write_graph)
