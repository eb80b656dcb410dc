"""Reading a vocabulary text file into (key, value) pairs, as TF's
InitializeTableFromTextFileV2 kernel does (lookup_util's TextFileLineIterator)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.gfile.gfile import GFile

WHOLE_LINE = -2
LINE_NUMBER = -1


def _lines(filename):
    with GFile(filename, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]


def _convert(token, dtype, filename, lineno):
    if np.dtype(dtype).kind == "O":
        return token
    try:
        if np.issubdtype(dtype, np.integer):
            value = int(token)
            np.array(value, dtype=dtype)  # out of range raises OverflowError
            return value
        return float(token)
    except (ValueError, OverflowError):
        kind = "int64" if np.issubdtype(dtype, np.integer) else np.dtype(dtype).name
        raise errors.InvalidArgumentError(
            None, None, f"Field {token.decode(errors='replace')} in line {lineno} is not a "
                        f"valid {kind}.") from None


def _field(line, tokens, index, lineno, offset, dtype, filename):
    if index == LINE_NUMBER:
        return lineno + offset
    if index == WHOLE_LINE:
        return _convert(line, dtype, filename, lineno)
    return _convert(tokens[index], dtype, filename, lineno)


def read_pairs(filename, key_index, value_index, vocab_size, delimiter, offset, key_dtype,
               value_dtype):
    """The (key, value) pairs of `filename`; InvalidArgumentError for a short line, a
    bad field or a vocab_size the file does not have."""
    lines = _lines(filename)
    if vocab_size >= 0:
        lines = lines[:vocab_size]
    delim = delimiter.encode() if isinstance(delimiter, str) else delimiter
    need = max(key_index, value_index)
    pairs = []
    for lineno, line in enumerate(lines):
        tokens = line.split(delim) if delim else [bytes([c]) for c in line]
        if need >= len(tokens):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {filename} line {lineno} "
                            f"({line.decode(errors='replace')}) : expected {need} got "
                            f"{len(tokens)}")
        pairs.append((_field(line, tokens, key_index, lineno, 0, key_dtype, filename),
                      _field(line, tokens, value_index, lineno, offset, value_dtype,
                             filename)))
    if vocab_size >= 0 and len(pairs) != vocab_size:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid vocab_size in {filename}: expected: {vocab_size} but got: "
                        f"{len(pairs)}")
    return pairs
