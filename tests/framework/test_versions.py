"""`tf.version` and the top-level version names: the namespace reports the TF API level it
implements (so TF1 code branching on `tf.__version__` takes its TF1 branch), the package its
own version (`trainflow._version`, `trainflow --version`)."""
import pathlib
import re

import pytest

import trainflow
import trainflow._version
import trainflow.compat.v1 as tf
from trainflow._src.framework import versions

from tf_interop import needs_tf, run_json

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("namespace", [trainflow, tf])
def test_the_namespace_reports_the_tf1_api_level(namespace):
    assert namespace.__version__ == namespace.VERSION == namespace.version.VERSION == "1.15.0"
    assert namespace.__version__.startswith("1.")
    assert namespace.version.GIT_VERSION == namespace.GIT_VERSION
    assert namespace.version.COMPILER_VERSION == namespace.COMPILER_VERSION


def test_the_package_version_is_the_project_version():
    project = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert trainflow._version.__version__ == project.group(1)
    assert tf.version.GIT_VERSION == "trainflow-" + trainflow._version.__version__


@pytest.mark.parametrize("name", ["GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
                                  "GRAPH_DEF_VERSION_MIN_PRODUCER"])
def test_graph_def_versions_are_top_level_too(name):
    assert getattr(tf, name) == getattr(tf.version, name) == getattr(versions, name)


def test_graph_defs_carry_the_graph_def_version():
    with tf.Graph().as_default() as g:
        tf.constant(1.0)
    assert g.as_graph_def().versions.producer == tf.version.GRAPH_DEF_VERSION


@needs_tf
def test_graph_def_versions_match_tensorflow():
    """The GraphDef versions are those of the TensorFlow release whose op set we follow."""
    theirs = run_json("""
import json
import tensorflow.compat.v1 as tf
v = tf.version
print(json.dumps([v.GRAPH_DEF_VERSION, v.GRAPH_DEF_VERSION_MIN_CONSUMER,
                  v.GRAPH_DEF_VERSION_MIN_PRODUCER, sorted(n for n in dir(v) if n.isupper())]))
""")
    v = tf.version
    assert [v.GRAPH_DEF_VERSION, v.GRAPH_DEF_VERSION_MIN_CONSUMER,
            v.GRAPH_DEF_VERSION_MIN_PRODUCER] == theirs[:3]
    assert sorted(n for n in dir(v) if n.isupper()) == theirs[3]
