"""The `tf.python_io` namespace (TF1's TFRecord API)."""
# --- formats: TFRecord (issue 3) ---
from trainflow._src.formats.tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)
