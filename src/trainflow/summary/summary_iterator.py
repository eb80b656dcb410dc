"""summary_iterator: the Events of an event file (`tf.compat.v1.train.summary_iterator`)."""
from trainflow.formats.tfrecord import tf_record_iterator
from trainflow.protos import event_pb2


def summary_iterator(path):
    """Yields the Event protos stored in the event file at `path`, in order.

    Raises:
      NotFoundError: if `path` does not exist.
      DataLossError: on a corrupt record (a file cut short ends quietly
        when it ends inside a record header, as in TF).
    """
    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)
