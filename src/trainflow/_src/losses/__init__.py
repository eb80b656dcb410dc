"""The implementation of `tf.losses`; the face is `trainflow/losses/__init__.py`."""
