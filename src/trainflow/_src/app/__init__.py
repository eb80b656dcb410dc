"""The implementation of `tf.app`; the face is `trainflow/app/__init__.py`."""
