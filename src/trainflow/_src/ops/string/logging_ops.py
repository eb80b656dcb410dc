"""Logging ops: Assert, Print (TF1 `tf.Print`) and PrintV2 (`tf.print`)."""
__all__ = ["Print", "print"]

import collections
import logging
import os
import pprint
import random
import sys
import threading

import numpy as np

from trainflow._src import tf_logging
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.shape_inference import no_outputs, unchanged_shape
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor, is_tensor
from trainflow._src.framework import nest
from trainflow._src.ops.string.string_format import string_format
from trainflow._src.ops.string.summarize import summarize_value


def _data_text(data, summarize):
    return ["[" + summarize_value(d, summarize) + "]" for d in data]


# -- Assert -------------------------------------------------------------------------
def _assert_kernel(condition, data, *, summarize):
    cond = np.asarray(condition)
    if not (cond.ndim == 0 or (cond.ndim == 1 and cond.shape[0] == 1)):
        raise errors.InvalidArgumentError(
            None, None, "In[0] should be a scalar: [" + ",".join(map(str, cond.shape)) + "]")
    if cond.reshape(()):
        return None
    raise errors.InvalidArgumentError(
        None, None, "assertion failed: " + " ".join(_data_text(data, summarize)))


register_op("Assert", inputs=["condition: bool", "data: T"], outputs=[],
            attrs=["T: list(type) >= 1", "summarize: int = 3"], shape_fn=no_outputs,
            kernel=_assert_kernel, stateful=True)
NotDifferentiable("Assert")


def _convert_list(values, arg_name):
    """Converts a type-list input as TF does, naming constants `<arg>_<index>`."""
    return [v if isinstance(v, Tensor) else convert_to_tensor(v, name=f"{arg_name}_{i}")
            for i, v in enumerate(values)]


def assert_op(condition, data, summarize=None, name=None):
    """The raw Assert op (TF's `gen_logging_ops._assert`); see control_flow_assert.Assert."""
    kwargs = {} if summarize is None else {"summarize": summarize}
    with name_scope(name, "Assert", [condition] + list(data)) as scope:
        return apply_op("Assert", condition=condition, data=_convert_list(data, "data"),
                        name=scope, **kwargs)


# -- Print (TF1) ----------------------------------------------------------------------
def _print_kernel(input, data, *, message, first_n, summarize, ctx):  # noqa: A002 - TF's name
    if first_n >= 0:
        lock = ctx.state.setdefault("lock", threading.Lock())
        with lock:
            count = ctx.state.get("count", 0)
            if count >= first_n:
                return input
            ctx.state["count"] = count + 1
    text = message.decode("utf-8", errors="backslashreplace") + "".join(
        _data_text(data, summarize))
    sys.stderr.write(text + "\n")
    return input


register_op("Print", inputs=["input: T", "data: U"], outputs=["output: T"],
            attrs=["T: type", "U: list(type) >= 0", "message: string = ''",
                   "first_n: int = -1", "summarize: int = 3"],
            shape_fn=unchanged_shape, kernel=_print_kernel, stateful=True,
            output_aliases_input=True)


@RegisterGradient("Print")
def _print_grad(op, *grads):
    """Print passes its input through; the printed data gets no gradient."""
    return list(grads) + [None] * (len(op.inputs) - 1)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802
    """Identity of `input_` that writes `message` and the values of `data` to stderr
    each time it runs (TF1 `tf.Print`).

    Args:
      input_: the tensor passed through.
      data: list of tensors whose values are printed, each as "[...]".
      message: text printed first.
      first_n: print only the first `first_n` times (-1 or None: always).
      summarize: number of elements printed per tensor (default 3).
      name: op name.

    Returns:
      a tensor equal to `input_`.
    """
    kwargs = {}
    if message is not None:
        kwargs["message"] = message
    if first_n is not None:
        kwargs["first_n"] = first_n
    if summarize is not None:
        kwargs["summarize"] = summarize
    with name_scope(name, "Print", [input_] + list(data)) as scope:
        return apply_op("Print", input=input_, data=_convert_list(data, "data"), name=scope,
                        **kwargs).outputs[0]


# -- PrintV2 (tf.print) ---------------------------------------------------------------
_VALID_STREAMS = ("stdout", "stderr", "log(info)", "log(warning)", "log(error)")
_LOG_FUNCTIONS = {"log(info)": tf_logging.info, "log(warning)": tf_logging.warning,
                  "log(error)": tf_logging.error}


def _print_v2_kernel(input, *, output_stream, end):  # noqa: A002 - TF's name
    arr = np.asarray(input)
    if arr.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, "Input is expected to be scalar, but got [" +
                        ",".join(map(str, arr.shape)) + "]")
    value = arr[()]
    text = (value if isinstance(value, bytes) else str(value).encode()).decode(
        "utf-8", errors="backslashreplace") + end.decode("utf-8", errors="backslashreplace")
    stream = output_stream.decode()
    if stream in ("stdout", "stderr"):
        out = sys.stdout if stream == "stdout" else sys.stderr
        out.write(text)
        out.flush()
    elif stream in _LOG_FUNCTIONS:
        _LOG_FUNCTIONS[stream]("%s", text[:-1] if text.endswith("\n") else text)
    elif stream.startswith("file://"):
        with open(stream[len("file://"):], "a", encoding="utf-8") as f:
            f.write(text)
    else:
        raise errors.InvalidArgumentError(
            None, None, f"Unknown output stream: {stream}, Valid streams are: " +
                        " ".join(_VALID_STREAMS))
    return None


_PRINT_V2 = register_op("PrintV2", inputs=["input: string"], outputs=[],
                        attrs=["output_stream: string = 'stderr'", "end: string = ''"],
                        shape_fn=no_outputs, kernel=_print_v2_kernel, stateful=True)
# The signature syntax cannot spell a newline default; set TF's default directly.
_PRINT_V2.op_def.attrs["end"].default = b"\n"


def _stream_name(output_stream):
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    table = [(sys.stdout, "stdout"), (sys.stderr, "stderr"),
             (tf_logging.info, "log(info)"), (tf_logging.warning, "log(warning)"),
             (tf_logging.error, "log(error)"), (logging.info, "log(info)"),
             (logging.warning, "log(warning)"), (logging.error, "log(error)")]
    for obj, text in table:
        if output_stream is obj:
            return text
    levels = {logging.INFO: "log(info)", logging.WARNING: "log(warning)",
              logging.ERROR: "log(error)"}
    if isinstance(output_stream, int) and not isinstance(output_stream, bool):
        if output_stream in levels:
            return levels[output_stream]
    raise ValueError("Unsupported output stream, logging level, or file." +
                     str(output_stream) + ". Supported streams are sys.stdout, sys.stderr, "
                     "tf.logging.info, tf.logging.warning, tf.logging.error. File needs to "
                     "be in the form of 'file://<filepath>'.")


def _placeholder_for(text, default="{}"):
    """A placeholder string that does not occur in `text` (TF's choice, seeded)."""
    placeholder = default
    rng = random.Random(5)
    while placeholder in text:
        placeholder = placeholder + str(rng.randint(0, 9))
    return placeholder


def _is_tf_value(x):
    return is_tensor(x)


def print_v2(*inputs, **kwargs):
    """Prints `inputs` when the returned op runs (`tf.print`).

    Tensors print in TensorFlow's summarized layout; other Python values print as
    `pprint` does; nested structures keep their brackets.

    Args:
      *inputs: tensors, Python values, or nested structures of them.
      output_stream: sys.stderr (default), sys.stdout, a tf.logging/logging function
        or level, or "file://<path>".
      summarize: elements shown from each end of each dimension (default 3; -1: all).
      sep: text between inputs (default " ").
      end: text after the last input (default os.linesep).
      name: op name.

    Returns:
      the PrintV2 Operation.

    Raises:
      ValueError: for unknown keyword arguments or output streams.
    """
    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError("Unrecognized keyword arguments for tf.print: %s" % kwargs)
    stream = _stream_name(output_stream)
    format_name = name + "_format" if name else None
    if (len(inputs) == 1 and _is_tf_value(inputs[0]) and
            getattr(inputs[0], "dtype", None) is not None and
            inputs[0].dtype.base_dtype.name == "string" and
            getattr(inputs[0], "shape", None) is not None and inputs[0].shape.ndims == 0):
        formatted = inputs[0]
    else:
        sorted_inputs = [collections.OrderedDict(sorted(x.items()))
                         if isinstance(x, collections.OrderedDict) else x for x in inputs]
        tensor_free = nest.map_structure(lambda x: "" if _is_tf_value(x) else x,
                                         sorted_inputs)
        placeholder = _placeholder_for(" ".join(pprint.pformat(x) for x in tensor_free))
        templates, tensors = [], []
        for input_ in inputs:
            marks = []
            for x in nest.flatten(input_):
                if _is_sparse(x):
                    tensors.extend([x.indices, x.values, x.dense_shape])
                    marks.append("SparseTensor(indices={0}, values={0}, shape={0})".format(
                        placeholder))
                elif _is_tf_value(x):
                    tensors.append(x)
                    marks.append(placeholder)
                else:
                    marks.append(x)
            if isinstance(input_, str):
                templates.append(input_)
            else:
                templates.append(pprint.pformat(nest.pack_sequence_as(input_, marks)))
        template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
        formatted = string_format(template, tensors, placeholder=placeholder,
                                  summarize=summarize, name=format_name)
    return apply_op("PrintV2", input=formatted, output_stream=stream, end=end, name=name)


def _is_sparse(x):
    return type(x).__name__ == "SparseTensor" and hasattr(x, "dense_shape")


print = print_v2  # noqa: A001 - `tf.print` shadows the builtin, as in TensorFlow
