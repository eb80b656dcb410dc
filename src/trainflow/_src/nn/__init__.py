"""The recurrent networks of `tf.nn`: the `tf.nn.rnn_cell` cells and wrappers, and the
drivers that unroll them (`dynamic_rnn`, `static_rnn` and their bidirectional forms)."""
