"""summary_iterator: the Events of an event file (`tf.compat.v1.train.summary_iterator`)."""
from trainflow._src.formats.tfrecord import tf_record_iterator
from trainflow._src.framework import errors
from trainflow._src.protos import event_pb2


def summary_iterator(path):
    """Yields the Event protos stored in the event file at `path`, in order.

    Raises:
      NotFoundError: if `path` does not exist.
      DataLossError: on a corrupt record (a file cut short ends quietly
        when it ends inside a record header, as in TF), or a record that is not an Event
        proto (TF lets protobuf's DecodeError out there; a tf.errors class names the file
        and the record's offset).
    """
    records = tf_record_iterator(path)
    start = 0
    for record in records:
        try:
            event = event_pb2.Event.FromString(record)
        except Exception:  # noqa: BLE001 - protobuf raises DecodeError subclasses
            raise errors.DataLossError(
                None, None, f"corrupted Event record at {start} in {path}: not a "
                "parseable Event proto") from None
        start = records.offset
        yield event
