"""A queue runner's per-record enqueue run for many records per Python call.

`queue.enqueue(parse_single_example(reader.read(filename_queue)))` (what `shuffle_batch`
/ `batch` build over `TFRecordReader.read`) costs one Session.run, one read, one parse
and one enqueue a record. When an enqueue op is exactly that subgraph (ReaderReadV2 ->
ParseExampleV2 of fixed-shape dense features with constant keys and defaults ->
QueueEnqueueV2, no control inputs), the runner's thread instead reads up to `RECORDS`
records of the reader's current work unit, parses them in one vectorized call and
enqueues them as one enqueue_many, in the same session step machinery (close() cancels
its waits, the operation timeout applies). The records, their order from one thread and
the end of input are the unfused runs': the reader hands out the same records in the
same order, an enqueue_many keeps its rows in order, and an exhausted filename queue
raises OutOfRangeError only once no record is left. A batch with a malformed record is
parsed and enqueued record by record, so the records before it are enqueued and the
error is the per-record one.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.io.parsing_ops import _parse_example_kernel

__all__ = ["fused_enqueue_callable", "RECORDS"]

RECORDS = 64
_CONST_INPUTS = 5  # names, sparse_keys, dense_keys, ragged_keys; then dense_defaults


def _source(tensor, parse, read):
    """How an enqueued component is made: ('key'|'value'|dense index), or None."""
    if read is not None and tensor.op is read:
        return "key" if tensor.value_index == 0 else "value"
    if parse is not None and tensor.op is parse:
        return tensor.value_index
    return None


def _fusable_parse(parse):
    attrs = parse._attrs
    if parse.type != "ParseExampleV2" or parse.control_inputs or attrs.get("num_sparse") or \
            attrs.get("ragged_value_types"):
        return False
    if any(not s.is_fully_defined() for s in attrs["dense_shapes"]):
        return False  # FixedLenSequenceFeature: lengths differ between records
    return all(_constant(t.op) for t in parse.inputs[1:])


def _constant(op):
    """Whether `op` computes the same value every run (a Const, or a reshape of one: the
    defaults of parse_example), so that one run gives it for all."""
    if op.control_inputs:
        return False
    if op.type == "Const":
        return True
    return op.type in ("Reshape", "Identity") and all(_constant(t.op) for t in op.inputs)


def match(enqueue_op):
    """(read op, parse op or None, component sources) if `enqueue_op` is a fusable
    per-record enqueue; else None."""
    if getattr(enqueue_op, "type", None) != "QueueEnqueueV2" or enqueue_op.control_inputs or \
            len(enqueue_op.inputs) < 2:
        return None
    comps = list(enqueue_op.inputs[1:])
    parse = next((t.op for t in comps if t.op.type == "ParseExampleV2"), None)
    if parse is not None:
        if not _fusable_parse(parse):
            return None
        read = parse.inputs[0].op
        if parse.inputs[0].value_index != 1 or parse.inputs[0].shape.rank != 0:
            return None
    else:
        read = comps[0].op
    if read.type != "ReaderReadV2" or read.control_inputs:
        return None
    sources = [_source(t, parse, read) for t in comps]
    if any(s is None for s in sources):
        return None
    return read, parse, sources


def _strings(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


class _Fused:
    """The work of up to RECORDS runs of one per-record enqueue op, per call."""

    def __init__(self, sess, enqueue_op, read, parse, sources):
        handles = [read.inputs[0], read.inputs[1], enqueue_op.inputs[0]]
        consts = list(parse.inputs[1:]) if parse is not None else []
        values = sess.run(handles + consts)
        self.reader, self.filenames, self.queue = values[:3]
        self.consts = values[3:]
        self.parse_attrs = None if parse is None else {
            "sparse_types": parse._attrs["sparse_types"], "Tdense": parse._attrs["Tdense"],
            "dense_shapes": parse._attrs["dense_shapes"]}
        self.sources = sources
        self.sess = sess
        self.parse_op = parse

    def _parse(self, serialized):
        c = self.consts
        out = _parse_example_kernel(serialized, c[0], c[1], c[2], c[3], c[4:],
                                    **self.parse_attrs)
        return out if isinstance(out, tuple) else (out,)

    def _at_parse(self, exc):
        """`exc` naming the parse node, as a failing step's error does."""
        op = self.parse_op
        return type(exc)(None, op, f"{exc.message}\n\t [[node {op.name} ({op.type}) "
                                   f"defined at {op.creation_site} ]]")

    def _components(self, keys, values, dense):
        return [keys if s == "key" else values if s == "value" else np.asarray(dense[s])
                for s in self.sources]

    def _step(self, state):
        keys, values = self.reader.read_up_to(state, self.filenames, RECORDS)
        keys, values = _strings(keys), _strings(values)
        try:
            dense = self._parse(values) if self.parse_attrs is not None else ()
        except errors.InvalidArgumentError:
            for i in range(len(values)):  # the records before a bad one, then its error
                try:
                    dense = self._parse(values[i:i + 1].reshape(()))
                except errors.InvalidArgumentError as e:
                    raise self._at_parse(e) from None
                self.queue.enqueue(state, self._components(keys[i:i + 1].reshape(()),
                                                           values[i:i + 1].reshape(()),
                                                           dense))
            raise
        self.queue.enqueue(state, self._components(keys, values, dense), batched=True)

    def __call__(self):
        return self.sess._run_with_state(self._step)


def fused_enqueue_callable(sess, enqueue_op):
    """A callable doing the work of up to RECORDS runs of `enqueue_op` in `sess`, or None
    when the op is not a fusable per-record enqueue or `sess` runs elsewhere."""
    if not hasattr(sess, "_run_with_state") or getattr(sess, "_remote", None) is not None:
        return None
    found = match(enqueue_op)
    if found is None:
        return None
    return _Fused(sess, enqueue_op, *found)
