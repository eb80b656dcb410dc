"""The implementation of `tf.metrics`; the face is `trainflow/metrics/__init__.py`."""
