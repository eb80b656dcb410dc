"""`trainflow serve` under load and bad input (issue 25): 32 concurrent clients send 10,000
requests to the command running in its own process, 20% of them malformed (bad JSON, wrong
shapes or dtypes, unknown signature or model, bodies over the size limit, clients that send
half a body and stall, clients that stall inside their headers). Prints the figures:
crashes, 5xx for valid requests, bad requests not answered with their 4xx and `error`,
p50/p99 latency of the valid ones, the server's RSS at start, peak and end.

  python benchmarks/serve_load.py [--requests 10000] [--clients 32] [--json]

The load driver is tests/helpers/serve_load.py (the CI test runs it short). trainflow only:
TF Serving is not a Python package to run beside it.
"""
import argparse
import json
import os
import sys
import tempfile

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_REPO, "tests", "helpers"))
sys.path.insert(0, os.path.join(_REPO, "src"))

import serve_load  # noqa: E402 - needs tests/helpers on sys.path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=10000)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--malformed", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the raw figures")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        r = serve_load.run(d, args.requests, args.clients, args.malformed, args.seed,
                           src=os.path.join(_REPO, "src"))
    if args.json:
        print(json.dumps(r, default=str))
        return 0
    c = r["counts"]
    rows = [
        ("requests", r["requests"]), ("clients", r["clients"]),
        ("malformed", f"{r['malformed']} {r['malformed_by_kind']}"),
        ("valid answered right", c.get("valid_ok", 0)),
        ("valid: 5xx", c.get("valid_5xx", 0)),
        ("valid: wrong answer / connection error",
         c.get("valid_wrong", 0) + c.get("valid_conn_error", 0)),
        ("bad: their 4xx + error", c.get("bad_ok", 0)),
        ("bad: 5xx / other", c.get("bad_5xx", 0) + c.get("bad_wrong", 0)
         + c.get("bad_conn_error", 0)),
        ("crashed", r["crashed"]), ("exit code on SIGTERM", r["exit_code"]),
        ("latency p50 / p99 (ms, valid)", f"{r['p50_ms']:.1f} / {r['p99_ms']:.1f}"),
        ("wall (s) / valid per s", f"{r['wall_s']:.1f} / {r['valid_per_s']:.0f}"),
        ("RSS start / peak / end (MB)",
         f"{r['rss_start_mb']:.1f} / {r['rss_peak_mb']:.1f} / {r['rss_end_mb']:.1f}"),
        ("bind line", r["bind_line"]),
    ]
    for name, value in rows:
        print(f"{name:40s} {value}")
    for failure in r["failures"]:
        print("failure:", failure)
    bad = (r["crashed"] or r["exit_code"] != 0 or c.get("valid_5xx", 0)
           or c.get("valid_wrong", 0) or c.get("bad_5xx", 0) or c.get("bad_wrong", 0))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
