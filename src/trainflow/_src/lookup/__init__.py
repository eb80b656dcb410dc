"""tf.lookup: lookup tables, their initializers and the vocabulary-table helpers."""
