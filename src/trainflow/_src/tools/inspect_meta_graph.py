"""`trainflow inspect FILE.meta`: a MetaGraphDef's ops by type, its collections and the
signature of its saver (text or JSON)."""
import collections
import json

from trainflow._src.framework.meta_graph_import import read_meta_graph_file


def looks_like_meta_graph(path):
    """True for a path named like a meta graph file (`.meta`, `.pbtxt` of a MetaGraphDef)."""
    return str(path).endswith((".meta", ".meta.pbtxt", ".meta.txt"))


def describe(mgd):
    """A dict: tensorflow_version, op counts by type, collections (kind, size), saver."""
    ops = collections.Counter(n.op for n in mgd.graph_def.node)
    cols = {}
    for key in sorted(mgd.collection_def):
        col = mgd.collection_def[key]
        kind = col.WhichOneof("kind")
        cols[key] = {"kind": kind, "size": len(getattr(col, kind).value) if kind else 0}
    doc = {"tensorflow_version": mgd.meta_info_def.tensorflow_version,
           "tensorflow_git_version": mgd.meta_info_def.tensorflow_git_version,
           "nodes": len(mgd.graph_def.node),
           "ops_by_type": dict(sorted(ops.items(), key=lambda kv: (-kv[1], kv[0]))),
           "stripped_op_list": [o.name for o in mgd.meta_info_def.stripped_op_list.op],
           "collections": cols}
    if mgd.HasField("saver_def"):
        d = mgd.saver_def
        doc["saver"] = {"filename_tensor_name": d.filename_tensor_name,
                        "save_tensor_name": d.save_tensor_name,
                        "restore_op_name": d.restore_op_name,
                        "version": "V1" if d.version == 1 else "V2",
                        "sharded": d.sharded, "max_to_keep": d.max_to_keep,
                        "keep_checkpoint_every_n_hours": d.keep_checkpoint_every_n_hours}
    return doc


def show(path, as_json=False, out=print):
    """Prints the description of the meta graph file `path`.

    Raises:
      IOError: the file is missing or not a MetaGraphDef.
    """
    doc = describe(read_meta_graph_file(str(path)))
    if as_json:
        out(json.dumps(dict({"meta_graph": str(path)}, **doc), indent=1))
        return
    out(f"meta graph {path} (tensorflow_version {doc['tensorflow_version'] or '?'}, "
        f"tensorflow_git_version {doc['tensorflow_git_version'] or '?'}, {doc['nodes']} nodes)")
    out("ops by type:")
    for op_type, n in doc["ops_by_type"].items():
        out(f"  {op_type:<28} {n}")
    out("collections:")
    for key, col in doc["collections"].items():
        out(f"  {key:<28} {col['kind']} x{col['size']}")
    saver = doc.get("saver")
    if saver:
        out(f"saver ({saver['version']}{', sharded' if saver['sharded'] else ''}, "
            f"max_to_keep {saver['max_to_keep']}):")
        out(f"  filename tensor: {saver['filename_tensor_name']}")
        out(f"  save tensor:     {saver['save_tensor_name']}")
        out(f"  restore op:      {saver['restore_op_name']}")
