"""RegexFullMatch and StaticRegexFullMatch: whether each string matches a pattern entirely
(Python's `re` stands in for RE2; the two agree on the patterns TF programs use)."""
__all__ = ["regex_full_match"]

import re

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_util import constant_value


def _compile(pattern):
    text = pattern.decode("utf-8") if isinstance(pattern, bytes) else str(pattern)
    try:
        return re.compile(text, re.DOTALL)
    except re.error as e:
        raise errors.InvalidArgumentError(None, None, f"Invalid pattern: {text}, error: {e}") \
            from None


def _match(inputs, regex):
    arr = np.asarray(inputs, dtype=object)
    flat = [regex.fullmatch(x.decode("utf-8", "surrogateescape") if isinstance(x, bytes)
                            else str(x)) is not None for x in arr.reshape(-1).tolist()]
    return np.array(flat, dtype=bool).reshape(arr.shape)


def _static_kernel(input, *, pattern):  # noqa: A002 - TF's argument name
    return _match(input, _compile(pattern))


def _dynamic_kernel(input, pattern):  # noqa: A002
    return _match(input, _compile(np.asarray(pattern, dtype=object).reshape(-1)[0]))


register_op("StaticRegexFullMatch", inputs=["input: string"], outputs=["output: bool"],
            attrs=["pattern: string"], shape_fn=lambda op: [op._inputs[0]._shape],
            kernel=_static_kernel)
register_op("RegexFullMatch", inputs=["input: string", "pattern: string"],
            outputs=["output: bool"], shape_fn=lambda op: [op._inputs[0]._shape],
            kernel=_dynamic_kernel)
NotDifferentiable("StaticRegexFullMatch")
NotDifferentiable("RegexFullMatch")


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """True where a string of `input` matches `pattern` entirely (`tf.strings.regex_full_match`);
    a constant pattern builds a StaticRegexFullMatch op, as TF does."""
    if isinstance(pattern, (str, bytes)):
        return apply_op("StaticRegexFullMatch", input=input, pattern=pattern,
                        name=name).outputs[0]
    static = constant_value(pattern) if hasattr(pattern, "op") else None
    if static is not None:
        return apply_op("StaticRegexFullMatch", input=input,
                        pattern=np.asarray(static, dtype=object).reshape(-1)[0],
                        name=name).outputs[0]
    return apply_op("RegexFullMatch", input=input, pattern=pattern, name=name).outputs[0]
