"""The implementation of `tf.train`; the face is `trainflow/train/__init__.py`."""
