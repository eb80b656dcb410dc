"""The implementation of `tf.gfile`; the face is `trainflow/gfile/__init__.py`."""
