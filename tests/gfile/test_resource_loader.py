"""`tf.resource_loader`, as TensorFlow's behaves outside a bazel runfiles tree: paths are
the calling script's directory (the data files path's directory for the root, TF's own
frame rule), readahead is the path itself, and load_resource reads relative to the
module's directory."""
import os
import pathlib

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.gfile import resource_loader

HERE = os.path.dirname(os.path.abspath(__file__))


def test_data_files_path_is_the_callers_directory():
    assert tf.resource_loader.get_data_files_path() == HERE


def test_path_to_datafile_joins_the_callers_directory():
    assert tf.resource_loader.get_path_to_datafile("a/b.txt") == os.path.join(HERE, "a/b.txt")


def test_root_dir_without_runfiles_is_the_loader_modules_directory():
    # TF's get_data_files_path looks one frame up from itself, which here is the loader.
    assert tf.resource_loader.get_root_dir_with_all_resources() == \
        os.path.dirname(resource_loader.__file__)


def test_root_dir_under_runfiles(tmp_path, monkeypatch):
    deep = tmp_path / "prog.runfiles" / "repo" / "pkg"
    deep.mkdir(parents=True)
    monkeypatch.setattr(resource_loader, "get_data_files_path", lambda: str(deep))
    assert resource_loader.get_root_dir_with_all_resources() == \
        str(tmp_path / "prog.runfiles" / "repo")


def test_readahead_is_the_path():
    assert tf.resource_loader.readahead_file_path("/x/y", readahead="1M") == "/x/y"


def test_load_resource_reads_beside_the_module():
    name = pathlib.Path(resource_loader.__file__).name
    assert tf.resource_loader.load_resource(name) == \
        pathlib.Path(resource_loader.__file__).read_bytes()
    with pytest.raises(IOError):
        tf.resource_loader.load_resource("no_such_resource.txt")
