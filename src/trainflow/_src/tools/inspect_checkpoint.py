"""`trainflow inspect CKPT`: list a checkpoint's tensors (name, dtype, shape) or print values.

CKPT is a V2 prefix or one of its files (`model.ckpt.index`, `model.ckpt.data-...`,
`model.ckpt.meta`), a V1 file (or pattern), or a directory (the latest checkpoint its
`checkpoint` file names, else its newest `*.index`). `--tensor NAME` prints one tensor,
`--all` every tensor, `--json` strict JSON (RFC 8259).

`trainflow inspect FILE.meta` (or `CKPT --meta`) shows a meta graph instead: ops by type,
collections and the saver's signature.
"""
import glob
import json
import os
import re
import sys

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.train.checkpoint_management import meta_graph_filename
from trainflow._src.train.checkpoint_reader import OBJECT_GRAPH_KEY
from trainflow._src.train.checkpoint_utils import _checkpoint_filename, load_checkpoint


def add_arguments(parser):
    """Declares the subcommand's arguments on `parser` (an argparse parser)."""
    parser.add_argument("checkpoint",
                        help="checkpoint prefix, its .index/.data-*/.meta file, a V1 file, "
                             "or a directory (its latest checkpoint)")
    parser.add_argument("--tensor", metavar="NAME", action="append",
                        help="print this tensor's value (may be repeated)")
    parser.add_argument("--all", action="store_true", help="print every tensor's value")
    parser.add_argument("--json", action="store_true",
                        help="print strict JSON: NaN and infinities as the strings \"NaN\", "
                             "\"Infinity\", \"-Infinity\"; strings as lowercase hex; complex "
                             "numbers as [real, imag]")
    parser.add_argument("--meta", action="store_true",
                        help="show the meta graph (PREFIX.meta, or the .meta file given): ops "
                             "by type, collections, saver")



_V2_FILE = re.compile(r"(.*)\.(index|meta|data-\d{5}-of-\d{5})")


def resolve_checkpoint(path):
    """The checkpoint that `path` names: a V2 prefix for one of its files, a directory's
    latest checkpoint (its `checkpoint` state file, else its newest `*.index`), else
    `path` itself."""
    match = _V2_FILE.fullmatch(path)
    if match and os.path.exists(match.group(1) + ".index"):
        return match.group(1)
    if os.path.isdir(path) and not os.path.exists(os.path.join(path, "checkpoint")):
        indexes = glob.glob(os.path.join(glob.escape(path), "*.index"))
        if indexes:
            return max(indexes, key=os.path.getmtime)[:-len(".index")]
    return path


_SPECIAL_FLOATS = {float("inf"): "Infinity", float("-inf"): "-Infinity"}


def _json_float(x):
    """A float for strict JSON: finite values as numbers, NaN and infinities as strings."""
    x = float(x)
    if x != x:
        return "NaN"
    return _SPECIAL_FLOATS.get(x, x)


def _json_value(arr):
    """Nested lists of JSON-friendly values for an ndarray."""
    if arr.dtype == object:
        def conv(x):
            return bytes(x).hex()
    elif np.iscomplexobj(arr):
        def conv(x):
            return [_json_float(x.real), _json_float(x.imag)]
    elif arr.dtype.names:  # quantized types are structured NumPy dtypes
        arr = arr[arr.dtype.names[0]]
        conv = int
    elif arr.dtype.kind in "biu":
        def conv(x):
            return x.item()
    else:
        arr = arr.astype(np.float64)
        conv = _json_float

    def nest(a):
        if a.ndim == 0:
            return conv(a.reshape(1)[0])
        if a.ndim == 1:
            return [conv(x) for x in a]
        return [nest(x) for x in a]
    return nest(arr)


def _object_graph(reader):
    try:
        return reader.get_object_graph()
    except Exception:  # noqa: BLE001 - a damaged graph is shown as raw bytes instead
        return None


def _describe(reader):
    shapes = reader.get_variable_to_shape_map()
    dtypes_ = reader.get_variable_to_dtype_map()
    out = []
    for name in sorted(shapes):
        item = {"name": name, "dtype": dtypes_[name].name, "shape": shapes[name]}
        slices = reader.get_slices(name)
        if slices:
            item["slices"] = [str(s) for s in slices]
        out.append(item)
    return out


def run(args):
    """Runs `trainflow inspect`; returns the exit status."""
    from trainflow._src.tools import inspect_meta_graph  # lazy: graph import, out of CLI startup
    if getattr(args, "meta", False) or inspect_meta_graph.looks_like_meta_graph(args.checkpoint):
        path = str(args.checkpoint)
        if not inspect_meta_graph.looks_like_meta_graph(path):
            path = meta_graph_filename(_checkpoint_filename(path) or path)
        try:
            inspect_meta_graph.show(path, as_json=args.json)
        except IOError as e:
            print(f"trainflow inspect: {e}", file=sys.stderr)
            return 1
        return 0
    try:
        reader = load_checkpoint(resolve_checkpoint(args.checkpoint))
    except (errors.OpError, ValueError) as e:
        print(f"trainflow inspect: {e}", file=sys.stderr)
        return 1
    with reader:
        names = list(args.tensor or [])
        info = _describe(reader)
        if args.all:
            names = [item["name"] for item in info]
        values = {}
        for name in names:
            try:
                value = reader.get_tensor(name)
                values[name] = np.asarray(value, dtype=object if isinstance(value, bytes)
                                          else None)
            except errors.OpError as e:
                print(f"trainflow inspect: {e}", file=sys.stderr)
                return 1
        if args.json:
            _print_json(reader, args.checkpoint, info, values)
        else:
            _print_text(reader, info, values, listing=not names)
    return 0


def _print_json(reader, path, info, values):
    by_name = {item["name"]: item for item in info}
    doc = {"checkpoint": str(path), "format_version": reader.format_version}
    if values:
        tensors = []
        for name, value in values.items():
            item = dict(by_name.get(name, {"name": name, "dtype": None,
                                           "shape": list(value.shape)}))
            item["value"] = _json_value(value)
            tensors.append(item)
        doc["tensors"] = tensors
    else:
        doc["tensors"] = info
    if OBJECT_GRAPH_KEY in values or not values:
        graph = _object_graph(reader) if reader.has_tensor(OBJECT_GRAPH_KEY) else None
        if graph is not None:
            from google.protobuf import json_format
            doc["object_graph"] = json_format.MessageToDict(graph)
    print(json.dumps(doc, indent=1, allow_nan=False))


def _print_text(reader, info, values, listing):
    if listing:
        width = max([len(item["name"]) for item in info] + [4])
        for item in info:
            shape = "[" + ",".join(str(d) for d in item["shape"]) + "]"
            line = f"{item['name']:<{width}}  {item['dtype']:<10} {shape}"
            if "slices" in item:
                line += f"  ({len(item['slices'])} slices)"
            print(line)
        return
    for name, value in values.items():
        print(f"tensor_name:  {name}")
        if name == OBJECT_GRAPH_KEY:
            graph = _object_graph(reader)
            if graph is not None:
                print(graph, end="")
                continue
        print(value)
