"""TF1's capitalised `tf.gfile` functions, each a thin call of its `tf.io.gfile` name."""

from trainflow._src.gfile.file_ops import (
    copy, exists, isdir, listdir, makedirs, mkdir, remove, rename, rmtree, stat, walk)
from trainflow._src.gfile.glob import glob
from trainflow._src.gfile.gfile import GFile

Open = GFile


def Exists(filename):  # noqa: N802 - TF1 names
    """True if `filename` exists (see `exists`)."""
    return exists(filename)


def MakeDirs(dirname):  # noqa: N802
    """Creates `dirname` and its missing parents (see `makedirs`)."""
    makedirs(dirname)


def MkDir(dirname):  # noqa: N802
    """Creates `dirname`; its parent must exist (see `mkdir`)."""
    mkdir(dirname)


def DeleteRecursively(dirname):  # noqa: N802
    """Deletes `dirname` and everything under it (see `rmtree`)."""
    rmtree(dirname)


def Remove(filename):  # noqa: N802
    """Deletes the file `filename` (see `remove`)."""
    remove(filename)


def Glob(filename):  # noqa: N802
    """The paths matching a pattern or list of patterns (see `glob`)."""
    return glob(filename)


def ListDirectory(dirname):  # noqa: N802
    """The entries of directory `dirname` (see `listdir`)."""
    return listdir(dirname)


def IsDirectory(dirname):  # noqa: N802
    """True if `dirname` is a directory (see `isdir`)."""
    return isdir(dirname)


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    """Copies a file (see `copy`)."""
    copy(oldpath, newpath, overwrite)


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    """Renames a file or directory (see `rename`)."""
    rename(oldname, newname, overwrite)


def Stat(filename):  # noqa: N802
    """A FileStatistics for `filename` (see `stat`)."""
    return stat(filename)


def Walk(top, in_order=True):  # noqa: N802
    """Walks the tree under `top`: pre-order if `in_order`, else post-order (see `walk`)."""
    return walk(top, topdown=in_order)
