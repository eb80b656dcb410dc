"""The implementation of `tf.compat` and of the TF2-behavior switches; the face is
`trainflow/compat/__init__.py`."""
