"""`tf.gfile`: TF1's file API (`GFile`, `Exists`, `Glob` ...) for local files.

`GFile` behaves like TensorFlow's: the file is opened lazily (a file opened
for writing appears at the first write or `tell`), modes are r, w, a, r+, w+,
a+ with an optional b, text mode decodes UTF-8 without newline translation,
and every failure is a tf.errors exception naming the path. Paths may be
str, bytes, `os.PathLike` or `file://` URIs; other schemes raise
UnimplementedError. The lowercase names are `tf.io.gfile`'s.
"""
from trainflow._src.gfile.gfile import FastGFile, GFile  # noqa: F401
from trainflow._src.gfile.tf1_names import (  # noqa: F401
    Copy, DeleteRecursively, Exists, Glob, IsDirectory, ListDirectory, MakeDirs, MkDir, Open,
    Remove, Rename, Stat, Walk)

__all__ = sorted(n for n in dir() if not n.startswith("_"))
