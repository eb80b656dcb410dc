"""The process that reads mutated files for the fuzz tests, under a memory cap and a timeout.

`python fuzz_worker.py` reads requests `{"format": F, "path": P}` (one JSON line each) and
answers one JSON line each: {"kind": "value", "value": ...} with a summary of what the
reader returned, {"kind": "tf_error", "class", "message", "partial"}, {"kind":
"parse_error", ...} (a protobuf DecodeError where TF's own readers let it out),
{"kind": "timeout"}, {"kind": "tf_like", "class", "message"} (for the model formats of
fuzz_model_readers: a class TF itself raises there, which the test checks), or
{"kind": "other_error", "class", "message"} (never allowed).
The address space is capped at what the imports took plus FUZZ_MEMORY_MB (default 512), so
an allocation bomb is a MemoryError here, not a dying machine.
"""
import hashlib
import json
import os
import resource
import signal
import sys
import traceback

import numpy as np

import fuzz_model_readers
from google.protobuf.message import DecodeError
from trainflow._src.formats.tfrecord import tf_record_iterator
from trainflow._src.framework import errors
from trainflow._src.framework.graph import Graph
from trainflow._src.framework.graph_def import import_graph_def
from trainflow._src.protos import example_pb2
from trainflow._src.protos import meta_graph_pb2
from trainflow._src.summary.summary_iterator import summary_iterator
from trainflow._src.train.checkpoint_reader import NewCheckpointReader

TIMEOUT_S = float(os.environ.get("FUZZ_TIMEOUT_S", "10"))


class _Timeout(BaseException):
    pass


def _digest(value):
    arr = np.asarray(value)
    h = hashlib.sha1(f"{arr.dtype.str if arr.dtype != object else 'O'}{arr.shape}".encode())
    if arr.dtype == object:
        for x in arr.reshape(-1):
            h.update(len(x).to_bytes(8, "little") + bytes(x))
    else:
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:16]


class _Partial(Exception):
    """Carries what a reader produced before it raised."""

    def __init__(self, error, partial):
        super().__init__(str(error))
        self.error = error
        self.partial = partial


def _records(iterator):
    out = []
    try:
        for r in iterator:
            out.append(hashlib.sha1(r).hexdigest()[:16])
    except errors.OpError as e:
        raise _Partial(e, out) from None
    return out


def read_tfrecord(path, compression):
    return _records(tf_record_iterator(path, compression or None))


def read_events(path):
    out = []
    try:
        for ev in summary_iterator(path):
            out.append(hashlib.sha1(ev.SerializeToString()).hexdigest()[:16])
    except errors.OpError as e:
        raise _Partial(e, out) from None
    return out


def read_checkpoint(path):
    """{key: [dtype, shape, digest] or [error class, message]} of every tensor."""
    reader = NewCheckpointReader(path)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    out = {}
    for key in sorted(shapes):
        try:
            value = np.asarray(reader.get_tensor(key))
        except errors.OpError as e:
            out[key] = [type(e).__name__, e.message[:400]]
            continue
        want = np.dtype(object) if dtypes[key].name == "string" else \
            np.dtype(dtypes[key].as_numpy_dtype)
        if list(value.shape) != list(shapes[key]) or value.dtype != want:
            out[key] = ["Inconsistent", f"{value.dtype}{list(value.shape)} vs "
                        f"{want}{shapes[key]}"]
            continue
        out[key] = [dtypes[key].name, list(value.shape), _digest(value)]
    reader.close()
    return out


def read_meta_graph(path):
    with open(path, "rb") as f:
        meta = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    g = Graph()
    with g.as_default():
        import_graph_def(meta.graph_def, name="")
    return sorted(op.name for op in g.get_operations())


def read_example(path):
    with open(path, "rb") as f:
        ex = example_pb2.Example.FromString(f.read())
    out = {}
    for name, feat in ex.features.feature.items():
        kind = feat.WhichOneof("kind")
        values = getattr(feat, kind).value if kind else []
        out[name.encode("utf-8", "surrogateescape").hex()] = _digest(
            np.array(list(values), dtype=object if kind == "bytes_list" else None))
    return out


READERS = {
    "tfrecord": lambda p: read_tfrecord(p, ""),
    "tfrecord-gzip": lambda p: read_tfrecord(p, "GZIP"),
    "tfrecord-zlib": lambda p: read_tfrecord(p, "ZLIB"),
    "events": read_events,
    "checkpoint": read_checkpoint,
    "meta_graph": read_meta_graph,
    "example": read_example,
    **fuzz_model_readers.READERS,
}


def _cap_memory():
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    cap = vm + int(os.environ.get("FUZZ_MEMORY_MB", "512")) * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _on_alarm(signum, frame):
    raise _Timeout()


def serve(lines, write):
    signal.signal(signal.SIGALRM, _on_alarm)
    for line in lines:
        req = json.loads(line)
        signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
        try:
            out = {"kind": "value", "value": READERS[req["format"]](req["path"])}
        except (_Partial, fuzz_model_readers.Partial) as e:
            out = {"kind": "tf_error", "class": type(e.error).__name__,
                   "message": e.error.message[:400], "partial": e.partial}
        except errors.OpError as e:
            out = {"kind": "tf_error", "class": type(e).__name__, "message": e.message[:400]}
        except DecodeError as e:
            out = {"kind": "parse_error", "class": type(e).__name__, "message": str(e)[:400]}
        except fuzz_model_readers.TF_LIKE as e:
            if isinstance(e, (RecursionError, UnicodeError)):
                kind = "other_error"
            elif req["format"] in fuzz_model_readers.READERS:
                kind = "tf_like"
            elif isinstance(e, (ValueError, TypeError)) and req["format"] == "meta_graph":
                kind = "import_error"  # import_graph_def's own classes, as TF's
            else:
                kind = "other_error"
            out = {"kind": kind, "class": type(e).__name__, "message": str(e)[:400]}
            if kind == "other_error":
                out["where"] = traceback.format_exc()[-1500:]
        except _Timeout:
            out = {"kind": "timeout"}
        except BaseException as e:  # noqa: BLE001 - reported, and fails the test
            out = {"kind": "other_error", "class": type(e).__name__,
                   "message": str(e)[:400], "where": traceback.format_exc()[-1500:]}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        write(json.dumps(out) + "\n")


if __name__ == "__main__":
    _cap_memory()

    def _write(text):
        sys.stdout.write(text)
        sys.stdout.flush()
    serve(sys.stdin, _write)
