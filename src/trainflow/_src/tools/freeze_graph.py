"""`trainflow freeze`: TensorFlow's freeze_graph tool. Reads a graph (a GraphDef with
--input_graph, a MetaGraphDef with --input_meta_graph, or a SavedModel with
--input_saved_model_dir), restores its variables from --input_checkpoint (or from the
SavedModel), and writes --output_graph: the GraphDef the --output_node_names need, every
variable replaced by a constant of its value.

  trainflow freeze --input_meta_graph model.ckpt.meta --input_checkpoint model.ckpt \\
      --output_node_names softmax --output_graph frozen.pb
"""
import os
import re
import sys

from google.protobuf import text_format

from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.graph import Graph
from trainflow._src.framework.graph_def import import_graph_def
from trainflow._src.gfile import file_ops
from trainflow._src.gfile.gfile import GFile
from trainflow._src.ops.state.resource_variable_ops import assign_variable_op
from trainflow._src.graph_util.convert_variables import convert_variables_to_constants
from trainflow._src.protos import graph_pb2, meta_graph_pb2, saver_pb2
from trainflow._src.runtime.session import Session
from trainflow._src.saved_model import loader
from trainflow._src.saved_model.tag_constants import SERVING
from trainflow._src.train import checkpoint_management
from trainflow._src.train.checkpoint_reader import NewCheckpointReader
from trainflow._src.train.meta_graph_restore import import_meta_graph
from trainflow._src.train.saver import Saver
from trainflow._src.protos._pool import POOL


def _bool(text):
    if text.lower() in ("true", "t", "1", "yes", "y"):
        return True
    if text.lower() in ("false", "f", "0", "no", "n"):
        return False
    raise ValueError(f"not a boolean: {text!r}")


def add_arguments(parser):
    """Declares TF freeze_graph's flags on `parser`."""
    parser.add_argument("--input_graph", default="", help="GraphDef file to load")
    parser.add_argument("--input_saver", default="", help="SaverDef file to use")
    parser.add_argument("--input_binary", type=_bool, nargs="?", const=True, default=False,
                        help="whether the input files are binary (else text) protos")
    parser.add_argument("--input_checkpoint", default="",
                        help="checkpoint prefix holding the variables' values")
    parser.add_argument("--checkpoint_version", type=int, default=saver_pb2.SaverDef.V2,
                        help="tf.train.SaverDef version: 1 (V1) or 2 (V2, the default)")
    parser.add_argument("--output_graph", default="", help="the frozen GraphDef to write")
    parser.add_argument("--output_node_names", default="",
                        help="the names of the output nodes, comma separated")
    parser.add_argument("--restore_op_name", default="save/restore_all",
                        help="unused; kept for TF's scripts")
    parser.add_argument("--filename_tensor_name", default="save/Const:0",
                        help="unused; kept for TF's scripts")
    parser.add_argument("--clear_devices", type=_bool, nargs="?", const=True, default=True,
                        help="whether to remove device specifications")
    parser.add_argument("--initializer_nodes", default="",
                        help="comma separated list of initializer nodes to run before freezing")
    parser.add_argument("--variable_names_whitelist", default="",
                        help="comma separated list of variables to convert (default: all)")
    parser.add_argument("--variable_names_blacklist", default="",
                        help="comma separated list of variables to skip converting")
    parser.add_argument("--input_meta_graph", default="", help="MetaGraphDef file to load")
    parser.add_argument("--input_saved_model_dir", default="",
                        help="path to the directory of a SavedModel")
    parser.add_argument("--saved_model_tags", default=SERVING,
                        help="comma separated tag set of the MetaGraphDef to load")


def _parse(path, proto, binary, what):
    if not file_ops.exists(path):
        raise OSError(f"Input {what} file '{path}' does not exist!")
    with GFile(path, "rb") as f:
        data = f.read()
    if binary:
        proto.ParseFromString(data)
    else:
        text_format.Merge(data.decode("utf-8"), proto, descriptor_pool=POOL)
    return proto


def _names(text):
    return text.replace(" ", "").split(",") if text else None


def _restore_from_checkpoint(sess, input_checkpoint, checkpoint_version):
    """Restores the graph's variables from the checkpoint entries named like them: ref
    variables through a Saver, resource variables (VarHandleOp) by assigning the values."""
    reader = NewCheckpointReader(input_checkpoint)
    variable_ops = ("Variable", "VariableV2", "VarHandleOp")
    if not any(op.type in variable_ops for op in sess.graph.get_operations()):
        raise ValueError("No variables were found in this model. It is likely the model was "
                         "frozen previously. You cannot freeze a graph twice.")
    var_list, resource_assigns = {}, []
    for key in sorted(reader.get_variable_to_shape_map()):
        try:
            tensor = sess.graph.get_tensor_by_name(key + ":0")
        except KeyError:  # a checkpoint entry the graph lacks (global_step ...)
            continue
        if re.search(r"/part_\d+", key):
            raise ValueError("Models containing partition variables cannot be converted from "
                             "checkpoint files. Please pass in a SavedModel using the flag "
                             "--input_saved_model_dir.")
        if tensor.op.type == "VarHandleOp":
            with sess.graph.as_default():
                value = constant(reader.get_tensor(key), dtype=tensor.op.get_attr("dtype"))
                resource_assigns.append(assign_variable_op(tensor, value))
        elif tensor.op.type in variable_ops:
            var_list[key] = tensor
    if var_list:
        Saver(var_list=var_list, write_version=checkpoint_version).restore(sess,
                                                                           input_checkpoint)
    if resource_assigns:
        sess.run(resource_assigns)


def freeze_graph_with_def_protos(input_graph_def, input_saver_def, input_checkpoint,
                                 output_node_names, output_graph, clear_devices=True,
                                 initializer_nodes="", variable_names_whitelist="",
                                 variable_names_blacklist="", input_meta_graph_def=None,
                                 input_saved_model_dir=None, saved_model_tags=None,
                                 checkpoint_version=saver_pb2.SaverDef.V2):
    """Freezes a graph given as protos (see the module docstring); returns the GraphDef.

    Raises:
      ValueError: the checkpoint does not exist, no output node was named, or the graph has
        no variables (frozen already).
    """
    if not input_saved_model_dir and not checkpoint_management.checkpoint_exists(
            input_checkpoint):
        raise ValueError(f"Input checkpoint '{input_checkpoint}' doesn't exist!")
    if not output_node_names:
        raise ValueError("You need to supply the name of a node to --output_node_names.")
    if clear_devices:
        target = input_meta_graph_def.graph_def if input_meta_graph_def else input_graph_def
        for node in getattr(target, "node", ()):
            node.device = ""
    graph = Graph()
    with graph.as_default(), Session(graph=graph) as sess:
        if input_saved_model_dir:
            meta_graph = loader.load(sess, saved_model_tags or [], input_saved_model_dir)
            input_graph_def = meta_graph.graph_def
        else:
            if input_graph_def is not None and input_meta_graph_def is None:
                import_graph_def(input_graph_def, name="")
            if input_saver_def is not None:
                Saver(saver_def=input_saver_def, write_version=checkpoint_version).restore(
                    sess, input_checkpoint)
            elif input_meta_graph_def is not None:
                import_meta_graph(input_meta_graph_def, clear_devices=True).restore(
                    sess, input_checkpoint)
                input_graph_def = input_meta_graph_def.graph_def
            else:
                _restore_from_checkpoint(sess, input_checkpoint, checkpoint_version)
            if initializer_nodes:
                sess.run(_names(initializer_nodes))
        output_graph_def = convert_variables_to_constants(
            sess, input_graph_def, _names(output_node_names),
            variable_names_whitelist=_names(variable_names_whitelist),
            variable_names_blacklist=_names(variable_names_blacklist))
    if output_graph:
        with GFile(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString(deterministic=True))
    return output_graph_def


def freeze_graph(input_graph, input_saver, input_binary, input_checkpoint, output_node_names,
                 output_graph, clear_devices=True, initializer_nodes="",
                 variable_names_whitelist="", variable_names_blacklist="",
                 input_meta_graph=None, input_saved_model_dir=None,
                 saved_model_tags=SERVING, checkpoint_version=saver_pb2.SaverDef.V2):
    """Freezes the graph in the files named (TF's `freeze_graph`); returns the GraphDef."""
    input_graph_def = None
    if input_graph and not input_saved_model_dir:
        input_graph_def = _parse(input_graph, graph_pb2.GraphDef(), input_binary, "graph")
    input_meta_graph_def = None
    if input_meta_graph:
        input_meta_graph_def = _parse(input_meta_graph, meta_graph_pb2.MetaGraphDef(),
                                      input_binary, "meta graph")
    input_saver_def = None
    if input_saver:
        input_saver_def = _parse(input_saver, saver_pb2.SaverDef(), input_binary, "saver")
    return freeze_graph_with_def_protos(
        input_graph_def, input_saver_def, input_checkpoint, output_node_names, output_graph,
        clear_devices, initializer_nodes, variable_names_whitelist, variable_names_blacklist,
        input_meta_graph_def, input_saved_model_dir,
        saved_model_tags.replace(" ", "").split(","), checkpoint_version)


def run(args):
    """Runs `trainflow freeze`; returns the exit status."""
    if not (args.input_graph or args.input_meta_graph or args.input_saved_model_dir):
        print("trainflow freeze: give --input_graph, --input_meta_graph or "
              "--input_saved_model_dir", file=sys.stderr)
        return 2
    try:
        graph_def = freeze_graph(
            args.input_graph, args.input_saver, args.input_binary, args.input_checkpoint,
            args.output_node_names, args.output_graph, args.clear_devices,
            args.initializer_nodes, args.variable_names_whitelist,
            args.variable_names_blacklist, args.input_meta_graph, args.input_saved_model_dir,
            args.saved_model_tags, args.checkpoint_version)
    except (ValueError, AssertionError, RuntimeError) as e:
        print(f"trainflow freeze: {e}", file=sys.stderr)
        return 1
    where = os.fspath(args.output_graph) if args.output_graph else "(not written)"
    print(f"{len(graph_def.node)} ops in the frozen graph: {where}")
    return 0
