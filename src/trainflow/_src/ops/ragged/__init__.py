"""Ragged tensors: `tf.RaggedTensor` and the ops of `tf.ragged`."""
