"""`trainflow events`: table, tags, CSV and plot of event files."""
import csv
import io
import os
import sys

import pytest

from trainflow._src.cli import main
from trainflow._src.protos import summary_pb2
from trainflow._src.formats.tensor_proto import make_tensor_proto
from trainflow._src.summary.writer import FileWriter

from fixture_paths import EVENTS, events_file



def _section(out, title):
    """The rows (split on blanks) of one titled section of the default listing."""
    lines = out.split(title + ":\n", 1)[1].split("\n\n")[0].splitlines()
    return lines[0].split(), [line.split() for line in lines[1:]]


def test_default_listing_shows_every_kind(capsys):
    assert main(["events", events_file()]) == 0
    out = capsys.readouterr().out
    header, rows = _section(out, "scalars")
    assert header == ["step", "tag", "value", "wall_time"]
    loss = [(int(r[0]), r[2]) for r in rows if r[1] == "train/loss"]
    assert loss == [(0, "1.0"), (1, "0.75"), (2, "0.5"), (3, "0.3125"), (4, "0.2"), (6, "0.125")]
    assert ["6", "py/simple", "2.5"] == rows[-1][:3]
    assert len(rows) == 14   # 6 loss + 7 accuracy + 1 py/simple
    header, rows = _section(out, "histograms")
    assert header == ["step", "tag", "num", "min", "max", "mean", "distribution"]
    assert [r[:5] for r in rows] == [["1", "weights", "47", "-3.5", "100"],
                                     ["5", "weights", "47", "-3.5", "100"],
                                     ["6", "weights", "47", "-3.5", "100"],
                                     ["6", "py/histo", "2", "-1", "1"]]
    assert len(rows[0][6]) >= 2  # the sparkline
    header, rows = _section(out, "images")
    assert rows[:3] == [["2", "rgb/image/0", "4", "4", "3", "83"],
                        ["2", "gray/image/0", "4", "4", "1", "85"],
                        ["2", "gray/image/1", "4", "4", "1", "79"]]
    header, rows = _section(out, "audio")
    assert rows[0] == ["3", "sine/audio", "8000", "2", "40", "0.005"]
    assert "4     notes  **hello** trainflow" in out.split("text:\n")[1]


def test_values_after_the_first_keep_the_tags_kind(tmp_path, capsys):
    import trainflow.compat.v1 as tf
    with tf.Graph().as_default():
        note = tf.placeholder(tf.string, [])
        summary = tf.summary.text("notes", note)
        with tf.Session() as sess, FileWriter(str(tmp_path)) as writer:
            for step in range(3):
                writer.add_summary(sess.run(summary, {note: f"line {step}\nmore"}), step)
    assert main(["events", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["step  tag    text", "0     notes  line 0\\nmore",
                     "1     notes  line 1\\nmore", "2     notes  line 2\\nmore"]


def test_directory_and_tags(capsys):
    assert main(["events", EVENTS, "--tags"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["train/loss"] == ["scalar", "6"]
    assert rows["weights"] == ["histogram", "3"]
    assert rows["rgb/image/0"] == ["image", "2"]
    assert rows["notes"] == ["text", "2"]
    assert rows["sine/audio"] == ["audio", "2"]
    assert rows["step_3"] == ["run_metadata", "1"]


def test_csv(capsys):
    assert main(["events", EVENTS, "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    accuracy = [float(r["value"]) for r in rows if r["tag"] == "train/accuracy"]
    assert accuracy == [0.1, 0.4, 0.6, 0.7, 0.9, 0.95, 0.97]
    assert all(float(r["wall_time"]) > 1e9 for r in rows)


def test_several_runs_and_tensor_scalars(tmp_path, capsys):
    for run, scale in (("a", 1.0), ("b", 2.0)):
        with FileWriter(str(tmp_path / run)) as writer:
            for step in range(3):
                value = summary_pb2.Summary.Value(
                    tag="loss", tensor=make_tensor_proto(scale * step, dtype="float64"))
                value.metadata.plugin_data.plugin_name = "scalars"
                writer.add_summary(summary_pb2.Summary(value=[value]), step)
    assert main(["events", str(tmp_path), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["run"], r["step"], r["value"]) for r in rows] == [
        ("a", "0", "0.0"), ("a", "1", "1.0"), ("a", "2", "2.0"),
        ("b", "0", "0.0"), ("b", "1", "2.0"), ("b", "2", "4.0")]


def test_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "scalars.png"
    assert main(["events", EVENTS, "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "(3 scalar tags, 2 histogram tags)" in capsys.readouterr().out


def test_plot_of_picked_tags(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "picked.png"
    assert main(["events", EVENTS, "--plot", str(out), "--tags", "train/*"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "(2 scalar tags)" in capsys.readouterr().out
    assert main(["events", EVENTS, "--plot", str(out), "--tags", "rgb/*"]) == 1
    assert "no scalars or histograms to plot" in capsys.readouterr().err


def test_tags_filter_with_globs(capsys):
    assert main(["events", EVENTS, "--csv", "--tags", "train/l*,py/simple"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["tag"] for r in rows} == {"train/loss", "py/simple"}


def test_extract_images_audio_and_text(tmp_path, capsys):
    import json
    from PIL import Image
    import numpy as np
    assert main(["events", EVENTS, "--extract", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    names = sorted(os.listdir(tmp_path))
    assert sorted(os.path.basename(p) for p in printed) == names
    assert "rgb_image_0.step2.png" in names and "sine_audio.step3.wav" in names
    with open(os.path.join(EVENTS, "events.json")) as f:
        written = {e["written_as"]: e for e in json.load(f)["events"]}
    pixels = np.asarray(Image.open(tmp_path / "gray_image_1.step2.png"))
    expected = written["image gray (batch of 2)"]["values"][1]["image"]["decoded_pixels_hwc"]
    np.testing.assert_array_equal(pixels, np.array(expected)[..., 0])
    wav = (tmp_path / "sine_audio.step3.wav").read_bytes()
    assert wav.hex() == written["audio sine"]["values"][0]["audio"]["encoded_hex"]
    assert (tmp_path / "notes.step4.txt").read_text() == "**hello** trainflow"


def test_plot_without_matplotlib_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import now fails
    assert main(["events", EVENTS, "--plot", str(tmp_path / "x.png")]) == 1
    assert "pip install 'trainflow[plot]'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_missing_path_and_empty_directory(tmp_path, capsys):
    assert main(["events", str(tmp_path / "nope")]) == 1  # a missing file, as inspect
    assert "no such file or directory" in capsys.readouterr().err
    assert main(["events", str(tmp_path)]) == 1
    assert "no event files" in capsys.readouterr().err


def test_corrupt_file_prints_what_it_read_then_the_error(tmp_path, capsys):
    with open(events_file(), "rb") as f:
        data = f.read()
    bad = tmp_path / "events.out.tfevents.1.host"
    bad.write_bytes(data[:5000])   # cut inside a later record
    assert main(["events", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "train/loss" in captured.out
    assert "truncated record at" in captured.err and str(bad) in captured.err
