"""`trainflow inspect CKPT`: list a checkpoint's tensors (name, dtype, shape) or print values.

`trainflow inspect FILE.meta` (or `CKPT --meta`) shows a meta graph instead: ops by type,
collections and the saver's signature.

CKPT is a V2 prefix, a V1 file (or pattern), or a directory (its latest checkpoint).
`--tensor NAME` prints one tensor, `--all` every tensor, `--json` machine-readable output
(floats as JSON numbers with NaN/Infinity tokens, strings as lowercase hex, complex numbers
as [real, imag] pairs).
"""
import json
import sys

import numpy as np

from trainflow.framework import errors
from trainflow.train.checkpoint_reader import OBJECT_GRAPH_KEY
from trainflow.train.checkpoint_utils import load_checkpoint


def add_arguments(parser):
    """Declares the subcommand's arguments on `parser` (an argparse parser)."""
    parser.add_argument("checkpoint", help="checkpoint prefix, V1 file, or directory")
    parser.add_argument("--tensor", metavar="NAME", action="append",
                        help="print this tensor's value (may be repeated)")
    parser.add_argument("--all", action="store_true", help="print every tensor's value")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--meta", action="store_true",
                        help="show the meta graph (PREFIX.meta, or the .meta file given): ops "
                             "by type, collections, saver")


def _json_value(arr):
    """Nested lists of JSON-friendly values for an ndarray."""
    if arr.dtype == object:
        def conv(x):
            return bytes(x).hex()
    elif np.iscomplexobj(arr):
        def conv(x):
            return [float(x.real), float(x.imag)]
    elif arr.dtype.names:  # quantized types are structured NumPy dtypes
        arr = arr[arr.dtype.names[0]]
        conv = int
    elif arr.dtype.kind in "biu":
        def conv(x):
            return x.item()
    else:
        arr = arr.astype(np.float64)
        conv = float

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
    from trainflow.tools import inspect_meta_graph
    if getattr(args, "meta", False) or inspect_meta_graph.looks_like_meta_graph(args.checkpoint):
        path = str(args.checkpoint)
        if not inspect_meta_graph.looks_like_meta_graph(path):
            from trainflow.train.checkpoint_management import meta_graph_filename
            from trainflow.train.checkpoint_utils import _checkpoint_filename
            path = meta_graph_filename(_checkpoint_filename(path) or path)
        try:
            inspect_meta_graph.show(path, as_json=args.json)
        except IOError as e:
            print(f"trainflow inspect: {e}", file=sys.stderr)
            return 1
        return 0
    try:
        reader = load_checkpoint(args.checkpoint)
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
    print(json.dumps(doc, indent=1))


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
