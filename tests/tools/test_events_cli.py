"""`trainflow events`: table, tags, CSV and plot of event files."""
import csv
import io
import os
import sys

import pytest

from trainflow.cli import main
from trainflow.protos import summary_pb2
from trainflow.formats.tensor_proto import make_tensor_proto
from trainflow.summary.writer import FileWriter

from fixture_paths import EVENTS, events_file

needs_fixtures = pytest.mark.skipif(not os.path.isdir(EVENTS), reason="fixtures not available")


@needs_fixtures
def test_default_table_lists_every_scalar(capsys):
    assert main(["events", events_file()]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["step", "tag", "value", "wall_time"]
    rows = [line.split() for line in lines[1:]]
    loss = [(int(r[0]), r[2]) for r in rows if r[1] == "train/loss"]
    assert loss == [(0, "1.0"), (1, "0.75"), (2, "0.5"), (3, "0.3125"), (4, "0.2"), (6, "0.125")]
    assert ["6", "py/simple", "2.5"] == rows[-1][:3]
    assert len(rows) == 14   # 6 loss + 7 accuracy + 1 py/simple


@needs_fixtures
def test_directory_and_tags(capsys):
    assert main(["events", EVENTS, "--tags"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["train/loss"] == ["scalar", "6"]
    assert rows["weights"] == ["histogram", "3"]
    assert rows["rgb/image/0"] == ["image", "2"]
    assert rows["notes"] == ["text", "2"]
    assert rows["sine/audio"] == ["audio", "2"]
    assert rows["step_3"] == ["run_metadata", "1"]


@needs_fixtures
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


@needs_fixtures
def test_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "scalars.png"
    assert main(["events", EVENTS, "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "3 scalar tags" in capsys.readouterr().out


@needs_fixtures
def test_plot_without_matplotlib_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import now fails
    assert main(["events", EVENTS, "--plot", str(tmp_path / "x.png")]) == 1
    assert "pip install 'trainflow[plot]'" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_missing_path_and_empty_directory(tmp_path, capsys):
    assert main(["events", str(tmp_path / "nope")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    assert main(["events", str(tmp_path)]) == 1
    assert "no event files" in capsys.readouterr().err


@needs_fixtures
def test_corrupt_file_prints_what_it_read_then_the_error(tmp_path, capsys):
    with open(events_file(), "rb") as f:
        data = f.read()
    bad = tmp_path / "events.out.tfevents.1.host"
    bad.write_bytes(data[:5000])   # cut inside a later record
    assert main(["events", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "train/loss" in captured.out
    assert "truncated record at" in captured.err and str(bad) in captured.err
