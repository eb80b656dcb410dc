"""Chrome trace files from step stats (what `ProfilerHook` writes): one process per device,
one complete ("X") event per op, so chrome://tracing and Perfetto can open them."""
import json
import re

from trainflow._src.gfile.gfile import GFile

_LABEL = re.compile(r"^(?P<name>[^=]+?) = (?P<op>[^(]+)\((?P<inputs>.*)\)$")


def _op_and_inputs(node_stats):
    m = _LABEL.match(node_stats.timeline_label or "")
    if m is None:
        return node_stats.node_name, []
    inputs = [i.strip() for i in m.group("inputs").split(",") if i.strip()]
    return m.group("op").strip(), inputs


def chrome_trace(step_stats):
    """The Chrome trace (a dict with `traceEvents`) of a StepStats proto.

    Args:
      step_stats: a `StepStats` proto (RunMetadata.step_stats after a FULL_TRACE run).

    Returns:
      a JSON-serializable dict.
    """
    events = []
    for pid, dev in enumerate(step_stats.dev_stats):
        events.append({"name": "process_name", "ph": "M", "pid": pid,
                       "args": {"name": f"{dev.device} Compute"}})
        events.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                       "args": {"sort_index": pid}})
        for ns in dev.node_stats:
            op_type, inputs = _op_and_inputs(ns)
            args = {"name": ns.node_name, "op": op_type}
            args.update({f"input{i}": name for i, name in enumerate(inputs)})
            events.append({"name": op_type, "ph": "X", "cat": "Op", "pid": pid,
                           "tid": 0, "ts": ns.all_start_micros,
                           "dur": max(ns.all_end_rel_micros, 0), "args": args})
    return {"traceEvents": events}


def write_chrome_trace(step_stats, path):
    """Writes `chrome_trace(step_stats)` as JSON to `path` (through gfile)."""
    with GFile(path, "w") as f:
        f.write(json.dumps(chrome_trace(step_stats), indent=2))
