"""Every summary kernel against TensorFlow's on one table of inputs (summary_cases.py):
the same Summary bytes (PNG and WAV files included) and the same errors."""
import io
import os
import zlib

import numpy as np
import pytest

import summary_cases
from tf_interop import needs_tf, run_json
from trainflow._src.protos import summary_pb2

_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(summary_cases.__file__)),
                       "summary_cases.py")


@pytest.fixture(scope="module")
def results():
    code = ("import runpy, sys; sys.argv = [sys.argv[0], 'tensorflow.compat.v1']; "
            f"runpy.run_path({_SCRIPT!r}, run_name='__main__')")
    return run_json(code), summary_cases.run_cases("trainflow.compat.v1")


def _comparable(hex_summary):
    """The Summary as text, PNGs replaced by their decoded pixels."""
    from PIL import Image
    summary = summary_pb2.Summary.FromString(bytes.fromhex(hex_summary))
    pixels = []
    for value in summary.value:
        if value.HasField("image"):
            png = value.image.encoded_image_string
            pixels.append(np.asarray(Image.open(io.BytesIO(png))).tolist())
            value.image.ClearField("encoded_image_string")
    return str(summary), pixels


@needs_tf
@pytest.mark.parametrize("case", list(summary_cases.case_ids()))
def test_same_as_tensorflow(results, case):
    theirs, ours = results[0][case], results[1][case]
    if "error" in theirs or "error" in ours:
        assert ours == theirs
        return
    if case.startswith("image"):  # first the pixels, for a readable failure
        assert _comparable(ours["hex"]) == _comparable(theirs["hex"])
        if "ng" in zlib.ZLIB_RUNTIME_VERSION:  # deflate's bytes are zlib's own
            return
    assert ours["hex"] == theirs["hex"]  # byte for byte, PNGs and WAVs included
