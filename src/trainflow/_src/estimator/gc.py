"""Garbage collection of exports (TF's estimator gc.py): filters over `Path(path,
export_version)` lists that pick which export directories to keep."""
import collections
import heapq
import math
import os

from trainflow._src.gfile import file_ops

Path = collections.namedtuple("Path", "path export_version")


def _largest_export_versions(n):
    """A filter keeping the n paths with the largest export versions."""
    def keep(paths):
        heap = []
        for idx, path in enumerate(paths):
            if path.export_version is not None:
                heapq.heappush(heap, (path.export_version, idx))
        keepers = [paths[i] for _, i in heapq.nlargest(n, heap)]
        return sorted(keepers)
    return keep


def _one_of_every_n_export_versions(n):
    """A filter keeping, in each interval of n versions, the largest path."""
    def keep(paths):
        keeper_map = {}
        for p in paths:
            if p.export_version is None:
                continue
            interval = math.floor((p.export_version - 1) / n) if p.export_version else 0
            existing = keeper_map.get(interval, None)
            if (not existing) or (existing.export_version < p.export_version):
                keeper_map[interval] = p
        return sorted(keeper_map.values())
    return keep


def _mod_export_version(n):
    """A filter keeping the paths whose version is a multiple of n."""
    def keep(paths):
        return sorted(p for p in paths if p.export_version % n == 0)
    return keep


def _union(lf, rf):
    """A filter keeping what either filter keeps."""
    def keep(paths):
        return sorted(set(lf(paths)) | set(rf(paths)))
    return keep


def _negation(f):
    """A filter keeping what f drops."""
    def keep(paths):
        return sorted(set(paths) - set(f(paths)))
    return keep


def _get_paths(base_dir, parser):
    """The Paths under base_dir that `parser(Path(path, None))` accepts."""
    raw_paths = file_ops.listdir(base_dir)
    paths = []
    for r in raw_paths:
        r = r.decode() if isinstance(r, bytes) else r
        p = parser(Path(os.path.join(base_dir, r.rstrip("/")), None))
        if p:
            paths.append(p)
    return sorted(paths)
