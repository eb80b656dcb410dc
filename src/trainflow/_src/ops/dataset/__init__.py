"""tf.data's dataset and iterator ops: registrations, shape functions and the host
objects their kernels make (a dataset op outputs a variant holding a DatasetValue;
an iterator op a resource holding an IteratorResource)."""
