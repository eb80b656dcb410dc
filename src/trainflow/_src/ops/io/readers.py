"""TF1's readers (TFRecordReader, TextLineReader, FixedLengthRecordReader,
WholeFileReader, IdentityReader) and their V2 op types (TFRecordReaderV2,
ReaderReadV2, ReaderReadUpToV2, ReaderResetV2 ...)."""
__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "FixedLengthRecordReader",
           "WholeFileReader", "IdentityReader"]

import numpy as np

from trainflow._src.formats.tfrecord import TFRecordOptions
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.io import reader_impl

_SHARED = ["container: string = ''", "shared_name: string = ''"]


def _attr_str(v):
    return v.decode() if isinstance(v, bytes) else (v or "")


def _handle_kernel(make):
    def kernel(*, ctx):
        if "handle" in ctx.state and ctx.resources.lookup(
                "reader", ctx.resource_name) is ctx.state["reader"]:
            return ctx.state["handle"]
        attrs = ctx.op._attrs
        reader = ctx.resources.lookup_or_create(
            "reader", ctx.resource_name, lambda: make(ctx.resource_name, attrs))
        handle = np.empty((), dtype=object)
        handle[()] = reader
        ctx.state["reader"], ctx.state["handle"] = reader, handle
        return handle
    return kernel


_READERS = {
    "TFRecordReaderV2": (["compression_type: string = ''"], lambda n, a: reader_impl.
                         TFRecordReader(n, _attr_str(a["compression_type"]))),
    "TextLineReaderV2": (["skip_header_lines: int = 0"], lambda n, a: reader_impl.
                         TextLineReader(n, a["skip_header_lines"])),
    "FixedLengthRecordReaderV2": (
        ["header_bytes: int = 0", "record_bytes: int", "footer_bytes: int = 0",
         "hop_bytes: int = 0", "encoding: string = ''"],
        lambda n, a: reader_impl.FixedLengthRecordReader(
            n, a["header_bytes"], a["record_bytes"], a["footer_bytes"], a["hop_bytes"],
            _attr_str(a["encoding"]))),
    "WholeFileReaderV2": ([], lambda n, a: reader_impl.WholeFileReader(n)),
    "IdentityReaderV2": ([], lambda n, a: reader_impl.IdentityReader(n)),
}
for _type, (_attrs, _make) in _READERS.items():
    register_op(_type, outputs=["reader_handle: resource"], attrs=_attrs + _SHARED,
                shape_fn=lambda op: [TensorShape(())], kernel=_handle_kernel(_make),
                stateful=True)


def _obj(handle):
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _strings(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _read_kernel(reader_handle, queue_handle, *, ctx):
    keys, values = _obj(reader_handle).read_up_to(ctx.run_state, _obj(queue_handle), 1)
    return np.asarray(keys[0], dtype=object), np.asarray(values[0], dtype=object)


def _read_up_to_kernel(reader_handle, queue_handle, num_records, *, ctx):
    n = int(num_records)
    if n <= 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_records ({n}) must be positive")
    keys, values = _obj(reader_handle).read_up_to(ctx.run_state, _obj(queue_handle), n)
    return _strings(keys), _strings(values)


def _scalar(op):
    return [TensorShape(())] * len(op._outputs)


_VERB = dict(stateful=True, host_only=True)
register_op("ReaderReadV2", inputs=["reader_handle: resource", "queue_handle: resource"],
            outputs=["key: string", "value: string"], shape_fn=_scalar, kernel=_read_kernel,
            blocking=True, **_VERB)
register_op("ReaderReadUpToV2",
            inputs=["reader_handle: resource", "queue_handle: resource", "num_records: int64"],
            outputs=["keys: string", "values: string"],
            shape_fn=lambda op: [TensorShape([None])] * 2, kernel=_read_up_to_kernel,
            blocking=True, **_VERB)
register_op("ReaderNumRecordsProducedV2", inputs=["reader_handle: resource"],
            outputs=["records_produced: int64"], shape_fn=_scalar,
            kernel=lambda reader_handle: np.int64(_obj(reader_handle).num_records_produced),
            **_VERB)
register_op("ReaderNumWorkUnitsCompletedV2", inputs=["reader_handle: resource"],
            outputs=["units_completed: int64"], shape_fn=_scalar,
            kernel=lambda reader_handle: np.int64(_obj(reader_handle).work_finished), **_VERB)
register_op("ReaderSerializeStateV2", inputs=["reader_handle: resource"],
            outputs=["state: string"], shape_fn=_scalar,
            kernel=lambda reader_handle: np.asarray(_obj(reader_handle).serialize_state(),
                                                    dtype=object), **_VERB)
register_op("ReaderRestoreStateV2", inputs=["reader_handle: resource", "state: string"],
            shape_fn=lambda op: [],
            kernel=lambda reader_handle, state: _obj(reader_handle).restore_state(
                bytes(np.asarray(state, dtype=object)[()])), **_VERB)
register_op("ReaderResetV2", inputs=["reader_handle: resource"], shape_fn=lambda op: [],
            kernel=lambda reader_handle: _obj(reader_handle).reset(), **_VERB)
for _t in list(_READERS) + ["ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
                            "ReaderNumWorkUnitsCompletedV2", "ReaderSerializeStateV2",
                            "ReaderRestoreStateV2", "ReaderResetV2"]:
    NotDifferentiable(_t)


def _queue_ref(queue):
    return queue if isinstance(queue, Tensor) else queue.queue_ref


class ReaderBase:
    """Base class of readers: records come from work (file names) dequeued from a queue.

    Args:
      reader_ref: the reader's resource handle tensor.
      supports_serialize: whether serialize_state/restore_state work.
    """

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    def read(self, queue, name=None):
        """(key, value) string tensors of the next record; takes a new work unit from
        `queue` (a queue or its handle) when the current one is done."""
        op = apply_op("ReaderReadV2", reader_handle=self._reader_ref,
                      queue_handle=_queue_ref(queue), name=name)
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """(keys, values) of up to `num_records` records of one work unit."""
        op = apply_op("ReaderReadUpToV2", reader_handle=self._reader_ref,
                      queue_handle=_queue_ref(queue), num_records=num_records, name=name)
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None):
        return apply_op("ReaderNumRecordsProducedV2", reader_handle=self._reader_ref,
                        name=name).outputs[0]

    def num_work_units_completed(self, name=None):
        return apply_op("ReaderNumWorkUnitsCompletedV2", reader_handle=self._reader_ref,
                        name=name).outputs[0]

    def serialize_state(self, name=None):
        """A string tensor with the reader's state (UnimplementedError when run on a
        reader that can't, as in TF)."""
        return apply_op("ReaderSerializeStateV2", reader_handle=self._reader_ref,
                        name=name).outputs[0]

    def restore_state(self, state, name=None):
        return apply_op("ReaderRestoreStateV2", reader_handle=self._reader_ref, state=state,
                        name=name)

    def reset(self, name=None):
        """Resets the reader to its initial clean state."""
        return apply_op("ReaderResetV2", reader_handle=self._reader_ref, name=name)


def _make(op_type, name, **attrs):
    return apply_op(op_type, name=name, **attrs).outputs[0]


class WholeFileReader(ReaderBase):
    """Outputs (file name, whole file contents) per work unit."""

    def __init__(self, name=None):
        super().__init__(_make("WholeFileReaderV2", name), supports_serialize=True)


class TextLineReader(ReaderBase):
    """Outputs the lines of files, skipping `skip_header_lines` at each file's start."""

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_make("TextLineReaderV2", name,
                               skip_header_lines=skip_header_lines or 0))


class FixedLengthRecordReader(ReaderBase):
    """Outputs fixed-length records of files (optionally ZLIB/GZIP `encoding`)."""

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        super().__init__(_make("FixedLengthRecordReaderV2", name, record_bytes=record_bytes,
                               header_bytes=header_bytes or 0, footer_bytes=footer_bytes or 0,
                               hop_bytes=hop_bytes or 0, encoding=encoding or ""))


class TFRecordReader(ReaderBase):
    """Outputs the records of TFRecord files (`options`: a TFRecordOptions or a
    compression type)."""

    def __init__(self, name=None, options=None):
        compression = TFRecordOptions.get_compression_type_string(options)
        super().__init__(_make("TFRecordReaderV2", name, compression_type=compression))


class IdentityReader(ReaderBase):
    """Outputs each work string as both key and value."""

    def __init__(self, name=None):
        super().__init__(_make("IdentityReaderV2", name), supports_serialize=True)
