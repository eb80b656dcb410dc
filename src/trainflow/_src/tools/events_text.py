"""Text views of event files for `trainflow events`: a table per kind (histograms with a
sparkline of their distribution), the tag list, CSV, and extraction of images, audio
and text into files."""
import csv
import os
import re
import sys

import numpy as np

from trainflow._src.protos import types_pb2
from trainflow._src.tools import event_data

_BLOCKS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
_ASCII = ".:-=+*#@"
_SPARK_WIDTH = 24
_TEXT_WIDTH = 60


def print_table(rows, header, out=None):
    """Left-aligned columns, two spaces apart, no trailing blanks."""
    out = out or sys.stdout
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(), file=out)
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip(), file=out)


def _fmt(number):
    # str() of a NumPy scalar is the shortest text that reads back at its own precision.
    return str(number)


def _g(number):
    return "%.6g" % number


def sparkline(histo, width=_SPARK_WIDTH, blocks=None):
    """The distribution of a HistogramProto over `width` equal bins from min to max,
    each bucket's count placed at its middle (clamped to [min, max])."""
    blocks = blocks or _blocks()
    counts = np.asarray(histo.bucket, np.float64)
    if counts.sum() <= 0:
        return ""
    limits = np.asarray(histo.bucket_limit, np.float64)
    lefts = np.concatenate([[histo.min], limits[:-1]])
    middles = (np.clip(lefts, histo.min, histo.max) + np.clip(limits, histo.min, histo.max)) / 2
    span = histo.max - histo.min
    if span <= 0:
        bins = np.zeros(width)
        bins[width // 2] = counts.sum()
    else:
        index = np.clip(((middles - histo.min) / span * width).astype(int), 0, width - 1)
        bins = np.bincount(index, weights=counts, minlength=width)
    # An empty bin is a blank; any count shows at least the lowest block.
    levels = np.where(bins > 0, 1 + np.round(bins / bins.max() * (len(blocks) - 1)), 0)
    return "".join((" " + blocks)[int(k)] for k in levels)


def _blocks():
    """Unicode blocks where stdout can encode them, else ASCII."""
    try:
        _BLOCKS.encode(sys.stdout.encoding or "ascii")
        return _BLOCKS
    except (UnicodeEncodeError, LookupError):
        return _ASCII


def _one_line(text, width=_TEXT_WIDTH):
    flat = text.replace("\r", "").replace("\n", "\\n")
    return flat if len(flat) <= width else flat[:width - 3] + "..."


def _rows(runs, kind, fields):
    with_run = len(runs) > 1
    rows = []
    for run in runs:
        for step, tag, payload, wall_time in run.records[kind]:
            row = [str(step), tag] + fields(payload, wall_time)
            rows.append(([run.name] if with_run else []) + row)
    return rows


def _tensor_shape(tensor):
    return "[" + ",".join(str(d.size) for d in tensor.tensor_shape.dim) + "]"


_VIEWS = {
    "scalar": (["value", "wall_time"], lambda v, w: [_fmt(v), "%.6f" % w]),
    "histogram": (["num", "min", "max", "mean", "distribution"],
                  lambda h, w: [_g(h.num), _g(h.min), _g(h.max),
                                _g(h.sum / h.num) if h.num else "nan", sparkline(h)]),
    "image": (["width", "height", "channels", "bytes"],
              lambda i, w: [str(i.width), str(i.height), str(i.colorspace),
                            str(len(i.encoded_image_string))]),
    "audio": (["sample_rate", "channels", "frames", "seconds"],
              lambda a, w: [_g(a.sample_rate), str(a.num_channels), str(a.length_frames),
                            _g(a.length_frames / a.sample_rate) if a.sample_rate else "?"]),
    "text": (["text"], lambda t, w: [_one_line(" | ".join(event_data.text_of(t)))]),
    "tensor": (["dtype", "shape"],
               lambda t, w: [_dtype_name(t.dtype), _tensor_shape(t)]),
}


_TITLES = {"scalar": "scalars", "histogram": "histograms", "image": "images",
           "audio": "audio", "text": "text", "tensor": "tensors"}


def _dtype_name(enum):
    return types_pb2.DataType.Name(enum)[3:].lower()


def print_all(runs):
    """The scalar table, then a table for each other kind present; section titles
    only when more than one kind is present."""
    present = [k for k in event_data.KINDS if any(r.records[k] for r in runs)]
    with_run = ["run"] if len(runs) > 1 else []
    titled = len(present) > 1
    for n, kind in enumerate(present):
        columns, fields = _VIEWS[kind]
        if titled:
            print(("\n" if n else "") + _TITLES[kind] + ":")
        print_table(_rows(runs, kind, fields), with_run + ["step", "tag"] + columns)
    if not present:
        print_table([], with_run + ["step", "tag", "value", "wall_time"])


def print_tags(runs):
    """tag, kind, count (and run) of every tag."""
    with_run = len(runs) > 1
    rows = [([r.name] if with_run else []) + [tag, kind, str(count)]
            for r in runs for tag, (kind, count) in sorted(r.tags.items())]
    print_table(rows, (["run"] if with_run else []) + ["tag", "kind", "count"])


def write_csv(runs):
    """The scalars as CSV: step,tag,value,wall_time (run first with several runs)."""
    with_run = len(runs) > 1
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow((["run"] if with_run else []) + ["step", "tag", "value", "wall_time"])
    for run in runs:
        for step, tag, value, wall_time in run.records["scalar"]:
            out.writerow(([run.name] if with_run else []) +
                         [step, tag, _fmt(value), "%.6f" % wall_time])


def _file_stem(tag, step):
    return re.sub(r"[^-\w.]", "_", tag) + f".step{step}"


def extract(runs, folder):
    """Writes images (.png), audio (.wav) and text (.txt) under `folder` (a sub-folder
    per run with several runs); returns the paths written."""
    written = []
    for run in runs:
        base = folder if len(runs) == 1 else os.path.join(folder, run.name)
        for kind, suffix in (("image", ".png"), ("audio", ".wav"), ("text", ".txt")):
            for step, tag, payload, _ in run.records[kind]:
                os.makedirs(base, exist_ok=True)
                path = os.path.join(base, _file_stem(tag, step) + suffix)
                if kind == "image":
                    data = payload.encoded_image_string
                elif kind == "audio":
                    data = payload.encoded_audio_string
                else:
                    data = "\n".join(event_data.text_of(payload)).encode("utf-8")
                with open(path, "wb") as f:
                    f.write(data)
                written.append(path)
    return written
