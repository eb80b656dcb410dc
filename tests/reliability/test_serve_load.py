"""`trainflow serve` under load and bad input, short form (benchmarks/serve_load.py is the
long one: 10,000 requests from 32 clients): 16 clients send 300 requests, a fifth of them
malformed (bad JSON, wrong shapes and dtypes, unknown signature and model, a body over the
size limit, half a body then a stall, a stall inside the headers). The server never
crashes, answers no valid request with a 5xx, answers every bad one with its 4xx and an
`error` naming the problem, keeps its memory bounded and stops cleanly on SIGTERM."""
import os

import serve_load

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def test_serve_under_load_and_bad_input(tmp_path):
    r = serve_load.run(str(tmp_path), requests=300, clients=16, malformed=0.2, seed=1,
                       src=os.path.abspath(SRC))
    counts = r["counts"]
    assert not r["crashed"] and r["exit_code"] == 0, r
    assert counts.get("valid_5xx", 0) == 0 and counts.get("valid_conn_error", 0) == 0, r
    assert counts.get("valid_wrong", 0) == 0, r
    assert counts.get("bad_5xx", 0) == 0 and counts.get("bad_wrong", 0) == 0, r
    assert counts.get("bad_conn_error", 0) == 0, r
    assert counts["bad_ok"] == r["malformed"] and r["malformed"] >= 40, r
    assert counts["valid_ok"] == r["requests"] - r["malformed"], r
    assert all(r["malformed_by_kind"][k] for k, _, _ in serve_load.BAD_KINDS), r
    assert r["rss_peak_mb"] < r["rss_start_mb"] + 200, r
    assert r["bind_line"].startswith("trainflow serve: listening on 127.0.0.1:"), r
