"""tf.data's Python API in graph mode: Dataset, Iterator, readers and the experimental
transformations, building the dataset ops of `_src/ops/dataset`."""
