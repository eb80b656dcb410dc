"""The `tf.python_io` namespace (TF1's TFRecord API)."""
from trainflow._src.formats.tfrecord import (  # noqa: F401
    TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator)
