"""The implementation of `tf.layers`; the face is `trainflow/layers/__init__.py`."""
