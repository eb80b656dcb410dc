"""`tf.graph_util`: GraphDef surgery (sub-graphs, training-node removal) and freezing a
session's variables into constants."""
