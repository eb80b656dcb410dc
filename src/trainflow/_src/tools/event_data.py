"""What event files hold, sorted by kind, for `trainflow events`.

A run is a directory holding event files, as in TensorBoard. Each run keeps, in
file order, its scalars, histograms, images, audio clips, text and other tensors
as (step, tag, payload, wall_time) records, and per tag its kind and count.
"""
import fnmatch
import os

import numpy as np

from trainflow._src.formats.tensor_proto import make_ndarray
from trainflow._src.framework import errors
from trainflow._src.protos import types_pb2
from trainflow._src.summary.summary_iterator import summary_iterator

KINDS = ("scalar", "histogram", "image", "audio", "text", "tensor")
_SCALAR_DTYPES = (types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF,
                  types_pb2.DT_BFLOAT16, types_pb2.DT_INT32, types_pb2.DT_INT64)


def find_event_files(path):
    """The event files at `path` (a file, or every one under a directory), sorted."""
    if os.path.isfile(path):
        return [path]
    found = []
    for root, _, names in os.walk(path):
        found.extend(os.path.join(root, n) for n in names if "tfevents" in n)
    return sorted(found)


def _ndarray(tensor):
    return make_ndarray(tensor)


def scalar_of(value):
    """The value of a scalar summary value (simple_value or a scalar tensor), else None."""
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return np.float32(value.simple_value)
    if kind == "tensor" and value.tensor.dtype in _SCALAR_DTYPES \
            and not value.tensor.tensor_shape.dim \
            and value.metadata.plugin_data.plugin_name in ("", "scalars"):
        return _ndarray(value.tensor)[()]
    return None


def kind_of(value):
    """scalar, histogram, image, audio, text, tensor (or a plugin's name), or empty."""
    kind = value.WhichOneof("value")
    if scalar_of(value) is not None:
        return "scalar"
    if kind in ("histo", "image", "audio"):
        return {"histo": "histogram"}.get(kind, kind)
    if kind == "tensor":
        return value.metadata.plugin_data.plugin_name or "tensor"
    return kind or "empty"


def text_of(tensor):
    """The strings of a DT_STRING tensor, decoded as UTF-8 (bad bytes replaced)."""
    strings = np.asarray(_ndarray(tensor), dtype=object).reshape(-1)
    return [s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s)
            for s in strings]


class Run:
    """One run's records by kind, and per tag [kind, count]."""

    def __init__(self, name):
        self.name = name
        self.records = {k: [] for k in KINDS}
        self.run_metadata = []     # (step, tag)
        self.tags = {}

    def add(self, event):
        """Files the values of one Event."""
        what = event.WhichOneof("what")
        if what == "summary":
            for value in event.summary.value:
                self._add_value(event.step, event.wall_time, value)
        elif what == "tagged_run_metadata":
            tag = event.tagged_run_metadata.tag
            self.tags.setdefault(tag, ["run_metadata", 0])[1] += 1
            self.run_metadata.append((event.step, tag))

    def _add_value(self, step, wall_time, value):
        kind = kind_of(value)
        known = self.tags.get(value.tag)
        if known is not None and not value.HasField("metadata"):
            # Writers keep the metadata of a tag's first value only (as TF's FileWriter
            # does); later values have the kind of the first, as TensorBoard reads them.
            kind = known[0]
        self.tags.setdefault(value.tag, [kind, 0])[1] += 1
        if kind == "scalar":
            payload = scalar_of(value)
        elif kind == "histogram":
            payload = value.histo
        elif kind in ("image", "audio"):
            payload = getattr(value, kind)
        elif kind == "text" and value.tensor.dtype == types_pb2.DT_STRING:
            payload = value.tensor
        elif value.WhichOneof("value") == "tensor":
            kind, payload = "tensor", value.tensor
        else:
            return
        self.records[kind].append((step, value.tag, payload, wall_time))

    def select(self, patterns):
        """Keeps only the tags matching one of the glob `patterns` (all when empty)."""
        if not patterns:
            return
        keep = {t for t in self.tags if any(fnmatch.fnmatchcase(t, p) for p in patterns)}
        self.tags = {t: v for t, v in self.tags.items() if t in keep}
        for kind, rows in self.records.items():
            self.records[kind] = [r for r in rows if r[1] in keep]
        self.run_metadata = [r for r in self.run_metadata if r[1] in keep]


def load(path):
    """Reads every event file under `path`; returns (runs, problems)."""
    files = find_event_files(path)
    root = path if os.path.isdir(path) else os.path.dirname(path)
    runs, problems = {}, []
    for file in files:
        name = os.path.relpath(os.path.dirname(file), root) if os.path.isdir(path) else "."
        run = runs.setdefault(name, Run(name))
        try:
            for event in summary_iterator(file):
                run.add(event)
        except errors.OpError as e:
            problems.append(f"{file}: {e.message}")
    return list(runs.values()), problems


def histogram_percentiles(histo, fractions):
    """Values below which `fractions` of a HistogramProto's values lie, interpolating
    linearly inside a bucket (its edges clamped to the histogram's min and max)."""
    counts = np.asarray(histo.bucket, np.float64)
    limits = np.asarray(histo.bucket_limit, np.float64)
    total = counts.sum()
    if total <= 0 or not len(counts):
        return [float("nan")] * len(fractions)
    cumulative = np.cumsum(counts)
    lefts = np.concatenate([[histo.min], limits[:-1]])
    out = []
    for q in fractions:
        target = q * total
        i = min(int(np.searchsorted(cumulative, target, side="left")), len(counts) - 1)
        while counts[i] <= 0 and i + 1 < len(counts):
            i += 1
        left = min(max(lefts[i], histo.min), histo.max)
        right = min(max(limits[i], histo.min), histo.max)
        before = cumulative[i] - counts[i]
        share = 0.0 if counts[i] <= 0 else min(max((target - before) / counts[i], 0.0), 1.0)
        out.append(float(left + share * (right - left)))
    return out
