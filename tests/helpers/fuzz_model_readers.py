"""The readers fuzz_worker runs on mutated model files and tf.data inputs: a SavedModel
loaded by tf.saved_model.loader.load and its serving_default signature run; the same
directory shown by `trainflow saved-model show --all`; a frozen GraphDef imported and run;
TFRecordDataset (plain, GZIP, ZLIB), TextLineDataset (plain, GZIP) and
FixedLengthRecordDataset read to the end in a Session.

Each returns a summary of what it read; a tf.errors class is raised as it comes (with what
a dataset produced before it, through `partial`)."""
import contextlib
import hashlib
import io

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src import cli
from trainflow._src.framework import errors

FIXED_HEADER, FIXED_RECORD, FIXED_FOOTER = 3, 5, 2


class Partial(Exception):
    """Carries what a reader produced before it raised a tf.errors class."""

    def __init__(self, error, partial):
        super().__init__(str(error))
        self.error = error
        self.partial = partial


def _digest(value):
    arr = np.asarray(value)
    return hashlib.sha1(repr((arr.dtype.str, arr.shape)).encode()
                        + (arr.tobytes() if arr.dtype != object else repr(arr.tolist()).encode())
                        ).hexdigest()[:16]


def _run_signature(sess, meta):
    """Runs serving_default (when the model still has it) on x = [1, 2]."""
    sig = meta.signature_def["serving_default"] if "serving_default" in meta.signature_def \
        else None
    if sig is None or not sig.outputs:
        return None
    feeds = {sig.inputs[k].name: np.array([1.0, 2.0], np.float32) for k in sig.inputs}
    fetches = {k: sig.outputs[k].name for k in sorted(sig.outputs)}
    return {k: _digest(v) for k, v in sess.run(fetches, feeds).items()}


def read_saved_model(path):
    """loader.load of the directory `path` (tag "serve") and one run of serving_default."""
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        return _run_signature(sess, meta)


def show_saved_model(path):
    """`trainflow saved-model show --all --dir path`: {"rc", "out" digest, "err"}."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(["saved-model", "show", "--all", "--dir", path])
    return {"rc": rc, "out": hashlib.sha1(out.getvalue().encode()).hexdigest()[:16],
            "err": err.getvalue()[-400:]}


def read_frozen_graph(path):
    """A frozen GraphDef (x -> y) parsed, imported and run on x = [1, 2]."""
    with open(path, "rb") as f:
        graph_def = tf.GraphDef.FromString(f.read())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        with tf.Session(graph=g) as sess:
            return _digest(sess.run("y:0", {"x:0": np.array([1.0, 2.0], np.float32)}))


def _read_dataset(dataset):
    out = []
    with tf.Graph().as_default() as g:
        nxt = dataset().make_one_shot_iterator().get_next()
        with tf.Session(graph=g) as sess:
            try:
                while True:
                    out.append(hashlib.sha1(sess.run(nxt)).hexdigest()[:16])
            except errors.OutOfRangeError:
                return out
            except errors.OpError as e:
                raise Partial(e, out) from None


READERS = {
    "saved_model": read_saved_model,
    "saved_model_show": show_saved_model,
    "frozen_graph": read_frozen_graph,
    "dataset_tfrecord": lambda p: _read_dataset(lambda: tf.data.TFRecordDataset(p)),
    "dataset_tfrecord-gzip": lambda p: _read_dataset(
        lambda: tf.data.TFRecordDataset(p, compression_type="GZIP")),
    "dataset_tfrecord-zlib": lambda p: _read_dataset(
        lambda: tf.data.TFRecordDataset(p, compression_type="ZLIB")),
    "dataset_text": lambda p: _read_dataset(lambda: tf.data.TextLineDataset(p)),
    "dataset_text-gzip": lambda p: _read_dataset(
        lambda: tf.data.TextLineDataset(p, compression_type="GZIP")),
    "dataset_fixed": lambda p: _read_dataset(lambda: tf.data.FixedLengthRecordDataset(
        p, FIXED_RECORD, header_bytes=FIXED_HEADER, footer_bytes=FIXED_FOOTER)),
}

# Classes TF itself raises for such inputs (the test checks which, and that a file error
# names the file): IOError from the SavedModel parse, RuntimeError for a tag set not
# there, ValueError/TypeError from import_graph_def and feeds, KeyError for a tensor name
# the graph lacks.
TF_LIKE = (OSError, RuntimeError, ValueError, TypeError, KeyError)
