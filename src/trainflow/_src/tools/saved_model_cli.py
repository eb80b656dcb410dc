"""`trainflow saved-model show|run|scan`: inspect and run a SavedModel, printing what
TensorFlow's `saved_model_cli` prints for it.

  trainflow saved-model show --dir D                      the tag-sets
  trainflow saved-model show --dir D --tag_set serve      the SignatureDef keys
  trainflow saved-model show --dir D --tag_set serve --signature_def serving_default
  trainflow saved-model show --dir D --all                everything
  trainflow saved-model run --dir D --tag_set serve --signature_def serving_default \\
      --inputs 'x=in.npy' | --input_exprs 'x=np.ones((2, 64))' [--outdir OUT]
  trainflow saved-model scan --dir D [--tag_set serve] [--op_denylist A,B]
"""
import ast
import os
import re
import sys

import numpy as np

from trainflow._src import tf_logging as logging
from trainflow._src.framework.graph import Graph
from trainflow._src.protos import example_pb2, types_pb2
from trainflow._src.runtime.session import Session
from trainflow._src.saved_model import loader

class CliError(Exception):
    """A usage or data error the command reports in one line (exit status 1)."""


# -- reading ----------------------------------------------------------------------------------
def read_saved_model(saved_model_dir):
    """The SavedModel proto of saved_model.pb (or .pbtxt) in `saved_model_dir`.

    Raises:
      IOError: no such file, or it does not parse.
    """
    return loader.parse_saved_model(saved_model_dir)


def _tags_of(tag_set):
    tags = [t.strip() for t in tag_set.split(",") if t.strip()]
    if not tags:
        raise CliError("tag_set must contain at least one non-empty item.")
    return tags


def get_meta_graph_def(saved_model_dir, tag_set):
    """The MetaGraphDef whose tags are exactly the comma-separated `tag_set`."""
    wanted = {t for t in tag_set.split(",") if t}
    valid = []
    for mgd in read_saved_model(saved_model_dir).meta_graphs:
        tags = set(mgd.meta_info_def.tags)
        if tags == wanted:
            return mgd
        valid.append(",".join(tags))
    raise CliError(f"MetaGraphDef associated with tag-set {tag_set} could not be found in the "
                   f"SavedModel. Please use one of the following tag-sets: {valid}")


def ops_used(graph_def):
    """The op types a GraphDef runs: its nodes', and those of the library functions they
    call (by op type, or through PartitionedCall / StatefulPartitionedCall's `f`)."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used, todo = set(), []

    def mark(op):
        if op not in used and op in functions:
            todo.append(functions[op])
        used.add(op)

    def visit(nodes):
        for node in nodes:
            mark(node.op)
            if node.op in ("PartitionedCall", "StatefulPartitionedCall"):
                mark(node.attr["f"].func.name)

    visit(graph_def.node)
    while todo:
        visit(todo.pop().node_def)
    return {op for op in used if op not in functions}


# -- show -------------------------------------------------------------------------------------
def _set_text(items):
    """A set as Python prints one, in sorted order (TF prints a set; its order varies)."""
    return "{" + ", ".join(repr(x) for x in sorted(items)) + "}" if items else "set()"


def _tags_text(mgd):
    return repr(list(mgd.meta_info_def.tags))


def print_tensor_info(info, indent, out):
    pad = "  " * indent
    out(pad + "    dtype: " + types_pb2.DataType.Name(info.dtype))
    shape = info.tensor_shape
    text = "unknown_rank" if shape.unknown_rank else \
        "(" + ", ".join(str(d.size) for d in shape.dim) + ")"
    out(pad + "    shape: " + text)
    out(pad + "    name: " + info.name)


def show_signature(mgd, key, indent, out):
    """A SignatureDef's inputs, outputs and method name."""
    if key not in mgd.signature_def:
        raise CliError(f'Could not find signature "{key}". Please choose from: '
                       f'{", ".join(mgd.signature_def.keys())}')
    sig = mgd.signature_def[key]
    pad = "  " * indent
    out(pad + "The given SavedModel SignatureDef contains the following input(s):")
    for k in sorted(sig.inputs):
        out(pad + f"  inputs['{k}'] tensor_info:")
        print_tensor_info(sig.inputs[k], indent + 1, out)
    out(pad + "The given SavedModel SignatureDef contains the following output(s):")
    for k in sorted(sig.outputs):
        out(pad + f"  outputs['{k}'] tensor_info:")
        print_tensor_info(sig.outputs[k], indent + 1, out)
    out(pad + "Method name is: " + sig.method_name)


def show_ops(mgd, out):
    out(f"The MetaGraph with tag set {_tags_text(mgd)} contains the following ops: "
        f"{_set_text(ops_used(mgd.graph_def))}")


def show_all(saved_model_dir, out):
    saved_model = read_saved_model(saved_model_dir)
    for mgd in sorted(saved_model.meta_graphs, key=lambda m: list(m.meta_info_def.tags)):
        out(f"\nMetaGraphDef with tag-set: '{', '.join(mgd.meta_info_def.tags)}' contains the "
            "following SignatureDefs:")
        for key in sorted(mgd.signature_def):
            out(f"\nsignature_def['{key}']:")
            show_signature(mgd, key, 1, out)
        show_ops(mgd, out)


def show(args, out=print):
    """`show`: as saved_model_cli show, for the same flags."""
    if args.all:
        show_all(args.dir, out)
        return
    if args.tag_set is None:
        if args.list_ops:
            out("--list_ops must be paired with a tag-set or with --all.")
        out("The given SavedModel contains the following tag-sets:")
        tag_sets = [list(m.meta_info_def.tags) for m in read_saved_model(args.dir).meta_graphs]
        for tags in sorted(tag_sets):  # as TF: sorted as written, each shown sorted
            out(repr(", ".join(sorted(tags))))
        return
    mgd = get_meta_graph_def(args.dir, ",".join(_tags_of(args.tag_set)))
    if args.list_ops:
        show_ops(mgd, out)
    if args.signature_def is None:
        out("The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:")
        for key in sorted(mgd.signature_def):
            out(f'SignatureDef key: "{key}"')
    else:
        show_signature(mgd, args.signature_def, 0, out)


# -- scan -------------------------------------------------------------------------------------
DEFAULT_OP_DENYLIST = ("WriteFile", "ReadFile", "PrintV2")


def scan(args, out=print):
    """`scan`: reports the MetaGraphDefs' ops that are on the denylist (TF's default,
    WriteFile, ReadFile and PrintV2, also for an empty --op_denylist, as TF reads it)."""
    if not args.op_denylist:
        denylist = set(DEFAULT_OP_DENYLIST)
    else:
        denylist = {op.strip() for op in args.op_denylist.split(",") if op.strip()}
    if args.tag_set:
        mgds = [get_meta_graph_def(args.dir, ",".join(_tags_of(args.tag_set)))]
    else:
        mgds = list(read_saved_model(args.dir).meta_graphs)
    for mgd in mgds:
        found = denylist & ops_used(mgd.graph_def)
        if found:
            out(f"MetaGraph with tag set {_tags_text(mgd)} contains the following denylisted "
                f"ops: {_set_text(found)}")
        else:
            out(f"MetaGraph with tag set {_tags_text(mgd)} does not contain the default "
                f"denylisted ops: {_set_text(denylist)}")


# -- run --------------------------------------------------------------------------------------
def parse_inputs_arg(text):
    """'key=file[var];key2=file2' -> {key: (file, var or None)}."""
    out = {}
    for item in filter(bool, text.split(";")):
        m = re.match(r"([^=]+)=([^\[\]]+)\[([^\[\]]+)\]$", item)
        if m:
            out[m.group(1)] = m.group(2), m.group(3)
            continue
        m = re.match(r"([^=]+)=([^\[\]]+)$", item)
        if not m:
            raise CliError(f'--inputs "{item}" format is incorrect. Please follow'
                           '"<input_key>=<filename>", or"<input_key>=<filename>[<variable_name>]"')
        out[m.group(1)] = m.group(2), None
    return out


def eval_input_expr(expr):
    """A Python literal, or an expression over numpy as `np` (saved_model_cli's
    --input_exprs as TF 1.x evaluated it; TF 2.21 only takes literals)."""
    try:
        return ast.literal_eval(expr)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    try:
        return eval(expr, {"__builtins__": {}, "np": np})  # noqa: S307 - the user's own input
    except Exception as e:  # noqa: BLE001 - whatever the expression raises
        raise CliError(f'Expression "{expr}" is not a valid python literal or numpy '
                       f"expression: {e}") from None


def parse_input_exprs_arg(text):
    """'key=<expr>;key2=<expr>' -> {key: value}."""
    out = {}
    for item in filter(bool, text.split(";")):
        if "=" not in item:
            raise CliError(f'--input_exprs "{text}" format is incorrect. Please follow'
                           '"<input_key>=<python expression>"')
        key, expr = item.split("=", 1)
        out[key] = eval_input_expr(expr)
    return out


def _example_bytes(features):
    example = example_pb2.Example()
    for name, values in features.items():
        if not isinstance(values, list):
            raise CliError(f'feature value must be a list, but {name}: "{values}" is '
                           f"{type(values)}")
        feature = example.features.feature[name]
        first = values[0]
        if isinstance(first, float):
            feature.float_list.value.extend(values)
        elif isinstance(first, str):
            feature.bytes_list.value.extend(v.encode("utf8") for v in values)
        elif isinstance(first, bytes):
            feature.bytes_list.value.extend(values)
        elif isinstance(first, int):
            feature.int64_list.value.extend(values)
        else:
            raise CliError(f"Type {type(first)} for value {first} is not supported for "
                           "tf.train.Feature.")
    return example.SerializeToString()


def load_inputs(inputs, input_exprs, input_examples):
    """{input key: value} from the three flags (later flags win for a repeated key)."""
    feeds = {}
    for key, (filename, var) in parse_inputs_arg(inputs).items():
        data = np.load(filename, allow_pickle=True)
        if var:
            if isinstance(data, np.ndarray):
                logging.warning(f'Input file {filename} contains a single ndarray. Name key '
                                f'"{var}" ignored.')
                feeds[key] = data
            elif var in data:
                feeds[key] = data[var]
            else:
                raise CliError(f'Input file {filename} does not contain variable with name '
                               f'"{var}".')
        elif isinstance(data, np.lib.npyio.NpzFile):
            if len(data.files) != 1:
                raise CliError(f"Input file {filename} contains more than one ndarrays. Please "
                               "specify the name of ndarray to use.")
            feeds[key] = data[data.files[0]]
        else:
            feeds[key] = data
    feeds.update(parse_input_exprs_arg(input_exprs))
    for key, examples in parse_input_exprs_arg(input_examples).items():
        if not isinstance(examples, list):
            raise CliError(f'tf.Example input must be a list of dictionaries, but "{examples}" '
                           f"is {type(examples)}")
        feeds[key] = [_example_bytes(e) for e in examples]
    return feeds


def run_with_feeds(saved_model_dir, tag_set, signature_def_key, feeds, outdir=None,
                   overwrite=False, out=print):
    """Runs the signature on {input key: value}, prints each output (sorted by key) and, with
    `outdir`, saves it as OUTDIR/<key>.npy."""
    tags = _tags_of(tag_set)
    mgd = get_meta_graph_def(saved_model_dir, ",".join(tags))
    if signature_def_key not in mgd.signature_def:
        raise CliError(f'Could not find signature "{signature_def_key}". Please choose from: '
                       f'{", ".join(mgd.signature_def.keys())}')
    sig = mgd.signature_def[signature_def_key]
    for key in feeds:
        if key not in sig.inputs:
            choices = '"' + '", "'.join(sig.inputs.keys()) + '"'
            raise CliError(f'"{key}" is not a valid input key. Please choose from {choices}, '
                           "or use --show option.")
    feed_dict = {sig.inputs[k].name: v for k, v in feeds.items()}
    keys = sorted(sig.outputs)
    with Session(graph=Graph()) as sess:
        loader.load(sess, tags, saved_model_dir)
        results = sess.run([sig.outputs[k].name for k in keys], feed_dict=feed_dict)
    for key, value in zip(keys, results):
        out(f"Result for output key {key}:\n{value}")
        if outdir:
            os.makedirs(outdir, exist_ok=True)
            path = os.path.join(outdir, key + ".npy")
            if not overwrite and os.path.exists(path):
                raise CliError(f'Output file {path} already exists. Add "--overwrite" to '
                               "overwrite the existing output files.")
            np.save(path, value)
            out(f"Output {key} is saved to {path}")


# -- the command ------------------------------------------------------------------------------
def add_arguments(parser):
    """Declares `show` and `run` with saved_model_cli's flags."""
    sub = parser.add_subparsers(dest="saved_model_command", required=True)
    show_p = sub.add_parser("show", help="the tag-sets, SignatureDefs and their tensors")
    show_p.add_argument("--dir", required=True, help="the SavedModel's folder")
    show_p.add_argument("--all", action="store_true",
                        help="everything: each MetaGraphDef, its SignatureDefs and ops")
    show_p.add_argument("--tag_set", help="comma-separated tags of a MetaGraphDef")
    show_p.add_argument("--signature_def", help="a SignatureDef key (with --tag_set)")
    show_p.add_argument("--list_ops", action="store_true",
                        help="the ops of the MetaGraphDef of --tag_set")
    scan_p = sub.add_parser("scan", help="report ops on a denylist (file and print ops)")
    scan_p.add_argument("--dir", required=True, help="the SavedModel's folder")
    scan_p.add_argument("--tag_set", help="only the MetaGraphDef with these tags")
    scan_p.add_argument("--op_denylist", default=None,
                        help="comma-separated op types (default: WriteFile,ReadFile,PrintV2)")
    run_p = sub.add_parser("run", help="run a SignatureDef on inputs and print its outputs")
    run_p.add_argument("--dir", required=True, help="the SavedModel's folder")
    run_p.add_argument("--tag_set", required=True, help="comma-separated tags")
    run_p.add_argument("--signature_def", required=True, help="the SignatureDef key")
    run_p.add_argument("--inputs", default="",
                       help="'<key>=<file.npy|.npz|pickle>[<variable>]', separated by ';'")
    run_p.add_argument("--input_exprs", default="",
                       help="'<key>=<python literal or numpy expression (np)>', separated "
                            "by ';'")
    run_p.add_argument("--input_examples", default="",
                       help="'<key>=[{feature: [values]}]', separated by ';'")
    run_p.add_argument("--outdir", help="also save each output as OUTDIR/<key>.npy")
    run_p.add_argument("--overwrite", action="store_true", help="replace existing outputs")


def run(args):
    """Runs `show` or `run`; returns the exit status."""
    try:
        if args.saved_model_command == "show":
            show(args)
            return 0
        if args.saved_model_command == "scan":
            scan(args)
            return 0
        if not (args.inputs or args.input_exprs or args.input_examples):
            raise CliError("At least one of --inputs, --input_exprs or --input_examples must be "
                           "required")
        feeds = load_inputs(args.inputs, args.input_exprs, args.input_examples)
        run_with_feeds(args.dir, args.tag_set, args.signature_def, feeds, args.outdir,
                       args.overwrite)
        return 0
    except CliError as e:
        print(f"trainflow saved-model: {e}", file=sys.stderr, flush=True)
        return 1
