"""The JSON text TF Serving writes: rapidjson's PrettyWriter layout (4-space indents, arrays on
one line where TF Serving asks for it) and its number formatting (floats in the shortest of
six digits or full precision that reads back equal, whole numbers with `.0`, NaN/Infinity)."""
import math

import numpy as np


def format_decimal(value, bits=32):
    """A float as TF Serving writes it (json_tensor.cc's WriteDecimal)."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "-Infinity" if value < 0 else "Infinity"
    text = "%.6g" % value
    cast = np.float32 if bits == 32 else np.float64
    if cast(float(text)) != cast(value):
        text = "%.*g" % (9 if bits == 32 else 17, value)
    if "." not in text and "e" not in text:
        text += ".0"
    return text


# rapidjson's escapes: the short ones, \u00XX (upper-case hex) for the other control
# characters; everything else, non-ASCII included, as it is.
_ESCAPES = {i: f"\\u{i:04X}" for i in range(0x20)}
_ESCAPES.update({ord("\b"): "\\b", ord("\f"): "\\f", ord("\n"): "\\n", ord("\r"): "\\r",
                 ord("\t"): "\\t", ord('"'): '\\"', ord("\\"): "\\\\"})


def _string(text):
    """A JSON string literal as rapidjson writes it (bytes that are not UTF-8 travel as
    surrogate escapes and go back to the raw bytes when the document is encoded)."""
    return '"' + text.translate(_ESCAPES) + '"'


class PrettyWriter:
    """Writes a JSON document the way rapidjson's PrettyWriter does: one event at a time
    (start_object, key, value, end_array ...), with `single_line_arrays` switchable between
    events as TF Serving switches kFormatSingleLineArray."""

    def __init__(self, indent=4):
        self._parts = []
        self._stack = []  # [in_array, value_count] per open container
        self._indent = indent
        self.single_line_arrays = False

    def _write_indent(self):
        self._parts.append(" " * (self._indent * len(self._stack)))

    def _prefix(self):
        if not self._stack:
            return
        level = self._stack[-1]
        if level[0]:
            if level[1] > 0:
                self._parts.append(", " if self.single_line_arrays else ",")
            if not self.single_line_arrays:
                self._parts.append("\n")
                self._write_indent()
        else:
            if level[1] > 0:
                self._parts.append(",\n" if level[1] % 2 == 0 else ": ")
            else:
                self._parts.append("\n")
            if level[1] % 2 == 0:
                self._write_indent()
        level[1] += 1

    def raw(self, text):
        """A scalar already formatted (a number, true/false, null)."""
        self._prefix()
        self._parts.append(text)

    def string(self, text):
        self.raw(_string(text))

    key = string

    def start_object(self):
        self._prefix()
        self._stack.append([False, 0])
        self._parts.append("{")

    def end_object(self):
        _, count = self._stack.pop()
        if count:
            self._parts.append("\n")
            self._write_indent()
        self._parts.append("}")

    def start_array(self):
        self._prefix()
        self._stack.append([True, 0])
        self._parts.append("[")

    def end_array(self):
        _, count = self._stack.pop()
        if count and not self.single_line_arrays:
            self._parts.append("\n")
            self._write_indent()
        self._parts.append("]")

    def text(self):
        return "".join(self._parts)


def error_json(message):
    """TF Serving's error body: `{"error": message}`, pretty-printed."""
    w = PrettyWriter()
    w.start_object()
    w.key("error")
    w.string(message)
    w.end_object()
    return w.text()


def encode(text):
    """The document as bytes (surrogate escapes back to the raw bytes they stand for)."""
    return text.encode("utf-8", "surrogateescape")
