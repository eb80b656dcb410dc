"""The implementation of `tf.test`; the face is `trainflow/test/__init__.py`."""
