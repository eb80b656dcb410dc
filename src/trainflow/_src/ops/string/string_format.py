"""StringFormat: render tensors into a template string (`tf.strings.format`)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import is_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.string.summarize import summarize_value


def _string_format_kernel(inputs, *, template, placeholder, summarize):
    pieces = template.decode("utf-8", errors="surrogateescape").split(
        placeholder.decode("utf-8", errors="surrogateescape"))
    if len(pieces) - 1 != len(inputs):
        raise errors.InvalidArgumentError(
            None, None, f"num placeholders in template and num inputs must match: "
                        f"{len(pieces) - 1} vs {len(inputs)}")
    out = [pieces[0]]
    for value, piece in zip(inputs, pieces[1:]):
        out.append(summarize_value(value, summarize, print_v2=True))
        out.append(piece)
    text = "".join(out).encode("utf-8", errors="surrogateescape")
    return np.array(text, dtype=object)


register_op("StringFormat", inputs=["inputs: T"], outputs=["output: string"],
            attrs=["T: list(type) >= 0", "template: string = '%s'",
                   "placeholder: string = '%s'", "summarize: int = 3"],
            shape_fn=lambda op: [TensorShape([])], kernel=_string_format_kernel)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """A scalar string: `template` with each `placeholder` replaced by the text of
    the corresponding tensor of `inputs` (`tf.strings.format`).

    Args:
      template: the format string.
      inputs: a Tensor or list of Tensors.
      placeholder: the marker replaced in `template`.
      summarize: elements shown from each end of each dimension (-1: all).
      name: op name.

    Raises:
      ValueError: if the placeholders and inputs differ in number.
    """
    if is_tensor(inputs) or isinstance(inputs, Tensor):
        inputs = [inputs]
    pieces = template.split(placeholder)
    if len(inputs) != len(pieces) - 1:
        raise ValueError(f"num placeholders in template and num inputs must match: "
                         f"{len(pieces) - 1} vs {len(inputs)}")
    return apply_op("StringFormat", inputs=list(inputs), template=template,
                    placeholder=placeholder, summarize=summarize, name=name).outputs[0]
