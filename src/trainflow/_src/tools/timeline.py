"""`Timeline` (TensorFlow's `tensorflow.python.client.timeline`): the step stats of a
traced `Session.run` (RunOptions(trace_level=FULL_TRACE) -> RunMetadata.step_stats) as a
Chrome trace (open it at chrome://tracing or in Perfetto).

One trace process per device shows its ops ("<device> Compute"), one more its tensors
("<device> Tensors"); ops that overlap in time go to separate lanes, and arrows show the
tensors passed between lanes and devices.
"""
import json
import re

_LABEL = re.compile(r"(.*) = (.*)\((.*)\)")


def _parse_label(label):
    """(node name, op type, input names) of a timeline label "name = Op(a, b)"."""
    match = _LABEL.match(label)
    if match is None:
        return "unknown", "unknown", []
    name, op, inputs = match.groups()
    return name, op, inputs.split(", ") if inputs else []


class Timeline:
    """A Chrome trace of one step's StepStats.

    Args:
      step_stats: a StepStats proto (RunMetadata.step_stats).
      graph: the Graph that ran (accepted for TensorFlow's signature; unused).
    """

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False,
                                     op_time="schedule"):
        """The trace as a JSON string ({"traceEvents": [...]}).

        Args:
          show_dataflow: draw an arrow for each tensor passed between lanes or devices.
          show_memory: add a counter of the bytes each allocator held, from the node
            stats' outputs (TensorFlow's tensor snapshots are left out).
          op_time: "schedule", "gpu" or "all" (accepted as TensorFlow; the start and
            duration of every op are its all_start_micros and all_end_rel_micros).

        Raises:
          ValueError: for an unknown `op_time`.
        """
        if op_time not in ("schedule", "gpu", "all"):
            raise ValueError(f"Unknown op_time {op_time!r}: use 'schedule', 'gpu' or 'all'")
        metadata, events = [], []

        def process(name):
            metadata.append({"name": "process_name", "ph": "M", "pid": len(metadata),
                             "args": {"name": name}})
            return len(metadata) - 1

        allocators_pid = process("Allocators")
        devices = []
        for dev in self._step_stats.dev_stats:
            devices.append((dev, process(dev.device + " Compute")))
            process(dev.device + " Tensors")
        lanes = []  # per device, per node stats: its lane
        produced = {}  # tensor name -> (start, end, pid, lane, bytes, allocator)
        for dev, pid in devices:
            busy = []
            lanes.append([])
            for ns in dev.node_stats:
                start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
                lane = next((i for i, t in enumerate(busy) if start > t), len(busy))
                busy[lane:lane + 1] = [end]
                lanes[-1].append(lane)
                for i, out in enumerate(ns.output):
                    alloc = out.tensor_description.allocation_description
                    name = ns.node_name if i == 0 else f"{ns.node_name}:{i}"
                    produced[name] = (start, end, pid, lane, alloc.requested_bytes,
                                      alloc.allocator_name)
        flow_ids = iter(range(1 << 62))
        for (dev, pid), dev_lanes in zip(devices, lanes):
            for ns, lane in zip(dev.node_stats, dev_lanes):
                _, op, inputs = _parse_label(ns.timeline_label)
                args = {"name": ns.node_name, "op": op}
                args.update((f"input{i}", name) for i, name in enumerate(inputs))
                events.append({"ph": "X", "cat": "Op", "name": op, "pid": pid, "tid": lane,
                               "ts": ns.all_start_micros, "dur": ns.all_end_rel_micros,
                               "args": args})
                if show_dataflow:
                    _flows(events, ns.all_start_micros, pid, lane, inputs, produced,
                           flow_ids)
        if show_memory:
            _memory_counters(events, produced, allocators_pid)
        return json.dumps({"traceEvents": metadata + events}, indent=4,
                          separators=(",", ": "))


def _flows(events, start, pid, lane, inputs, produced, flow_ids):
    """Arrows from the producers of `inputs` (on another lane or device) to an op."""
    for name in inputs:
        if name not in produced and name.rfind("/_") > 0:
            name = name[:name.rfind("/_")]  # a partition's _Recv: from the original node
        src = produced.get(name)
        if src is None or (src[2], src[3]) == (pid, lane):
            continue
        flow_id = next(flow_ids)
        events.append({"ph": "s", "cat": "DataFlow", "name": name, "pid": src[2],
                       "tid": src[3], "ts": src[1], "id": flow_id})
        events.append({"ph": "t", "cat": "DataFlow", "name": name, "pid": pid, "tid": lane,
                       "ts": start, "id": flow_id})


def _memory_counters(events, produced, pid):
    """A counter per allocator of the bytes its tensors held over the step."""
    changes = {}
    for start, end, _, _, num_bytes, allocator in produced.values():
        changes.setdefault(allocator, []).extend([(start, num_bytes), (end, -num_bytes)])
    for allocator, series in sorted(changes.items()):
        total = 0
        for ts, delta in sorted(series, key=lambda c: c[0]):
            total += delta
            events.append({"ph": "C", "cat": "Memory", "name": allocator, "pid": pid,
                           "tid": 0, "ts": ts, "args": {allocator: total}})
