"""The implementation of `tf.xla`; the face is `trainflow/xla/`."""
