"""`tf.gfile` (TF1 names) and `tf.io.gfile` (lowercase names) for local files.

`GFile` behaves like TensorFlow's: the file is opened lazily (a file opened
for writing appears at the first write or `tell`), modes are r, w, a, r+, w+,
a+ with an optional b, text mode decodes UTF-8 without newline translation,
and every failure is a tf.errors exception naming the path. Paths may be
str, bytes, `os.PathLike` or `file://` URIs; other schemes raise
UnimplementedError.
"""
from trainflow._src.gfile.file_ops import (  # noqa: F401
    FileStatistics, copy, exists, get_registered_schemes, isdir, join, listdir, makedirs, mkdir,
    remove, rename, rmtree, stat, walk)
from trainflow._src.gfile.gfile import FastGFile, GFile  # noqa: F401
from trainflow._src.gfile.glob import glob  # noqa: F401
from trainflow._src.gfile.tf1_names import (  # noqa: F401
    Copy, DeleteRecursively, Exists, Glob, IsDirectory, ListDirectory, MakeDirs, MkDir, Open,
    Remove, Rename, Stat, Walk)

__all__ = [
    # tf.gfile (TF1)
    "GFile", "Open", "FastGFile", "Exists", "MakeDirs", "MkDir", "DeleteRecursively", "Remove",
    "Glob", "ListDirectory", "IsDirectory", "Copy", "Rename", "Stat", "Walk",
    # tf.io.gfile
    "exists", "makedirs", "mkdir", "glob", "listdir", "isdir", "copy", "rename", "remove",
    "rmtree", "stat", "walk", "join", "get_registered_schemes", "FileStatistics",
]
