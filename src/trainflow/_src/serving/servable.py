"""One loaded version of a model: its SavedModel loaded into a Graph and a Session of its
own, and the predict / classify / regress calls TF Serving makes on it (the checks and
messages of tensorflow_serving/servables/tensorflow/{predict_util,classifier,regressor}.cc)."""
import threading
import time

import numpy as np

from trainflow._src.framework.graph import Graph
from trainflow._src.protos import config_pb2
from trainflow._src.runtime.session import Session
from trainflow._src.saved_model import loader
from trainflow._src.serving.status import ServingError, from_tf_error, invalid_argument

DEFAULT_SIGNATURE = "serving_default"
# How long an unloaded version waits for the requests still running on it.
_DRAIN_SECONDS = 30.0


class Servable:
    """A version of a model, loaded: `meta_graph_def`, a Session, and the calls on it.
    Session.run is thread-safe, so requests run on it at once; `close()` waits (bounded)
    for the ones in flight."""

    def __init__(self, name, version, path, tags, timeout_in_ms=0):
        self.name = name
        self.version = version
        self.path = path
        self._graph = Graph()
        self._session = Session(graph=self._graph)
        try:
            self.meta_graph_def = loader.load(self._session, list(tags), path)
        except BaseException:
            self._session.close()
            raise
        # TF Serving's --rest_api_timeout_in_ms: a run that takes longer is cancelled with
        # DeadlineExceeded (HTTP 504).
        self._options = config_pb2.RunOptions(timeout_in_ms=timeout_in_ms) if timeout_in_ms \
            else None
        self._cond = threading.Condition()
        self._in_flight = 0
        self._closed = False

    # -- lifetime ---------------------------------------------------------------------------
    def acquire(self):
        """Marks a request in flight; False once the version is closing."""
        with self._cond:
            if self._closed:
                return False
            self._in_flight += 1
            return True

    def release(self):
        with self._cond:
            self._in_flight -= 1
            self._cond.notify_all()

    def close(self, timeout=_DRAIN_SECONDS):
        """Stops taking requests, waits up to `timeout` seconds for those running, closes
        the Session."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._closed = True
            while self._in_flight:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        self._session.close()

    # -- signatures -------------------------------------------------------------------------
    def input_dtypes(self, signature_name):
        """{input alias: DataType enum} of a signature (TF Serving's GetInfoMap)."""
        name = signature_name or DEFAULT_SIGNATURE
        sigs = self.meta_graph_def.signature_def
        if name not in sigs:
            raise invalid_argument(f'Serving signature name: "{name}" not found in signature '
                                   "def")
        return {k: v.dtype for k, v in sigs[name].inputs.items()}

    def _signature(self, signature_name):
        name = signature_name or DEFAULT_SIGNATURE
        sigs = self.meta_graph_def.signature_def
        if name not in sigs:
            raise invalid_argument(f"No signature was found with the name: {name}")
        return sigs[name]

    def _run(self, fetches, feeds):
        try:
            return self._session.run(fetches, feeds, options=self._options)
        except ServingError:
            raise
        except Exception as e:  # noqa: BLE001 - every failed run is an error body
            raise from_tf_error(e) from None

    # -- calls ------------------------------------------------------------------------------
    def predict(self, signature_name, inputs):
        """{input alias: array} -> {output alias: array} through the signature."""
        name = signature_name or DEFAULT_SIGNATURE
        sigs = self.meta_graph_def.signature_def
        if name not in sigs:
            raise ServingError("FAILED_PRECONDITION",
                               f'Serving signature key "{name}" not found.')
        sig = sigs[name]
        sent, wanted = set(inputs), set(sig.inputs)
        if len(sent) > len(wanted) or (len(sent) < len(wanted) and not sig.defaults):
            raise invalid_argument(
                f"input size does not match signature: {len(sent)}!={len(wanted)} "
                f"len({{{','.join(sorted(sent))}}}) != len({{{','.join(sorted(wanted))}}}). "
                f"Sent extra: {{{','.join(sorted(sent - wanted))}}}. Missing but required: "
                f"{{{','.join(sorted(wanted - sent))}}}.")
        feeds = {}
        for alias, value in inputs.items():
            if alias not in sig.inputs:
                raise invalid_argument(f"input tensor alias not found in signature: {alias}. "
                                       f"Inputs expected to be in the set "
                                       f"{{{','.join(sorted(wanted))}}}.")
            feeds[sig.inputs[alias].name] = value
        aliases = sorted(sig.outputs)
        values = self._run([sig.outputs[a].name for a in aliases], feeds)
        return {a: np.asarray(v) for a, v in zip(aliases, values)}

    def _examples_signature(self, signature_name, outputs_ok, kind):
        sig = self._signature(signature_name)
        if len(sig.inputs) != 1:
            raise invalid_argument("Expected one input Tensor.")
        if not outputs_ok(len(sig.outputs)):
            raise invalid_argument("Expected one or two output Tensors, found "
                                   f"{len(sig.outputs)}" if kind == "classification"
                                   else "Expected one output Tensor.")
        if "inputs" not in sig.inputs:
            raise invalid_argument(f"No {kind} inputs found in SignatureDef: {sig}")
        return sig

    def classify(self, signature_name, examples):
        """Serialized Examples -> per example a list of (label bytes, score)."""
        sig = self._examples_signature(signature_name, lambda n: n in (1, 2), "classification")
        keys = [k for k in ("classes", "scores") if k in sig.outputs]
        if not keys:
            raise invalid_argument('Expected classification signature outputs to contain at '
                                   f'least one of "classes" or "scores". Signature was: {sig}')
        batch = _string_batch(examples)
        values = dict(zip(keys, self._run([sig.outputs[k].name for k in keys],
                                          {sig.inputs["inputs"].name: batch})))
        return _classifications(values.get("classes"), values.get("scores"), len(examples))

    def regress(self, signature_name, examples):
        """Serialized Examples -> one float per example."""
        sig = self._examples_signature(signature_name, lambda n: n == 1, "regression")
        if "outputs" not in sig.outputs:
            raise invalid_argument(f"No regression outputs found in SignatureDef: {sig}")
        out = np.asarray(self._run(sig.outputs["outputs"].name,
                                   {sig.inputs["inputs"].name: _string_batch(examples)}))
        n = len(examples)
        if not (out.ndim == 1 or (out.ndim == 2 and out.shape[1] == 1)):
            raise invalid_argument("Expected output Tensor shape to be either [batch_size] or "
                                   f"[batch_size, 1] but got {_shape_str(out.shape)}")
        if out.shape[0] != n:
            raise invalid_argument("Input batch size did not match output batch size: "
                                   f"{n} vs. {out.shape[0]}")
        if out.dtype != np.float32:
            raise invalid_argument("Expected output Tensor of DT_FLOAT.  Got: "
                                   f"{_dtype_name(out.dtype)}")
        return [float(v) for v in out.reshape(-1)]


def _string_batch(items):
    batch = np.empty(len(items), dtype=object)
    batch[:] = items
    return batch


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _dtype_name(dtype):
    names = {"float64": "DT_DOUBLE", "int32": "DT_INT32", "int64": "DT_INT64",
             "object": "DT_STRING", "bool": "DT_BOOL", "float16": "DT_HALF"}
    return names.get(np.dtype(dtype).name, "DT_" + np.dtype(dtype).name.upper())


def _check_2d(arr, what, n, dtype_ok, dtype_name):
    if arr.ndim != 2:
        raise invalid_argument("Expected Tensor shape: [batch_size num_classes] but got "
                               f"{_shape_str(arr.shape)}")
    if not dtype_ok(arr.dtype):
        raise invalid_argument(f"Expected {what} Tensor of {dtype_name}. Got: "
                               f"{_dtype_name(arr.dtype)}")
    if arr.shape[0] != n:
        raise invalid_argument(f"Expected {what} output batch size of {n}. Got: "
                               f"{arr.shape[0]}")


def _classifications(classes, scores, n):
    """PostProcessClassificationResult: validates the tensors, pairs labels with scores."""
    if classes is not None:
        classes = np.asarray(classes)
        _check_2d(classes, "classes", n, lambda d: d.kind in "OSU", "DT_STRING")
    if scores is not None:
        scores = np.asarray(scores)
        _check_2d(scores, "scores", n, lambda d: d == np.float32, "DT_FLOAT")
    if classes is not None and scores is not None and classes.shape[1] != scores.shape[1]:
        raise invalid_argument("Tensors class and score should match in dim_size(1). Got "
                               f"{classes.shape[1]} vs. {scores.shape[1]}")
    num_classes = (classes if classes is not None else scores).shape[1]
    out = []
    for i in range(n):
        row = []
        for c in range(num_classes):
            label = classes[i, c] if classes is not None else b""
            label = label if isinstance(label, bytes) else str(label).encode("utf-8")
            row.append((label, float(scores[i, c]) if scores is not None else 0.0))
        out.append(row)
    return out
