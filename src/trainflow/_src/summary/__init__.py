"""The implementation of `tf.summary`; the face is `trainflow/summary/__init__.py`."""
