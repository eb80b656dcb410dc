"""DatasetToTFRecord (`tf.data.experimental.TFRecordWriter.write`): an op that writes
every element of a dataset of scalar strings to a TFRecord file when it runs."""
from trainflow._src.formats import tfrecord
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.reader_ops import as_str, compression_kind


def write_records(dataset, path, kind, state):
    """Writes the (scalar string) elements of `dataset` to the TFRecord file `path`."""
    iterator = dataset.iterator()
    try:
        with tfrecord.TFRecordWriter(path, kind or None) as writer:
            while True:
                element = iterator.next(state)
                if element is dv.END:
                    return
                record = element[0]
                writer.write(record[()] if hasattr(record, "shape") else record)
    finally:
        iterator.close()


def _dataset_to_tfrecord(input_dataset, filename, compression_type, *, ctx):
    name = filename[()] if hasattr(filename, "shape") else filename
    write_records(dv.as_dataset(input_dataset), as_str(name),
                  compression_kind(compression_type, ctx.op), ctx.run_state)


register_op("DatasetToTFRecord",
            inputs=["input_dataset: variant", "filename: string", "compression_type: string"],
            shape_fn=lambda op: [], kernel=_dataset_to_tfrecord, stateful=True,
            host_only=True)
NotDifferentiable("DatasetToTFRecord")
