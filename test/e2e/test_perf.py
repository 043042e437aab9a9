# SPDX-License-Identifier: BSD-3-Clause
"""The perf harness end to end on its smoke scenario (config/perf/smoke.toml:
vfwd at two burst sizes and testpmd io, two interleaved rounds of short
cells): a well-formed CSV with a row per cell and figures in it, the JSON,
the markdown table and an SVG plot. The figures themselves are not judged
here (a shared 2-CPU machine); doc/perf.md has the measured ones."""

import csv
import json
import os
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

from vfwdtest import check, ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
import perf  # noqa: E402


def test_smoke_scenario_makes_csv_markdown_and_plot():
    out = tempfile.mkdtemp(prefix="vfwd-perf-")
    try:
        rc = perf.main(["--scenarios", "smoke", "--rounds", "2", "--secs", "1", "--out", out])
        check(rc == 0, "perf.py exit %d" % rc)
        with open(os.path.join(out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        check([r["variant"] for r in rows] == ["burst=16", "burst=32", "testpmd-io"],
              "rows: %s" % [r["variant"] for r in rows])
        for r in rows:
            for k in ("mpps", "mpps_min", "mpps_max", "cyc_pkt", "cpu_pct", "lat_p99"):
                check(r[k] and float(r[k]) > 0, "%s: %s empty or zero: %s" % (r["variant"], k, r))
            check(float(r["mpps_min"]) <= float(r["mpps"]) <= float(r["mpps_max"]),
                  "median outside min-max: %s" % r)
            check(r["errors"] == "0", "reorder/dup/corrupt through %s: %s" % (r["variant"], r))
        check(rows[0]["busy_pct"] and rows[0]["forwarder"] == "vfwd", "vfwd busy share: %s" % rows[0])
        with open(os.path.join(out, "results.json")) as f:
            res = json.load(f)
        check(len(res["runs"]) == 6 and all("metrics" in r for r in res["runs"]),
              "runs: %s" % [r.get("error", "ok")[:200] for r in res["runs"]])
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
        check("| forwarder | Mpps | cycles/pkt |" in md, "no table header:\n" + md[:1500])
        for v in ("burst=16", "burst=32", "testpmd-io"):
            check("| %s |" % v in md, "no row %s in the table" % v)
        svg = os.path.join(out, "smoke-1.svg")
        check(os.path.exists(svg), "no plot: %s" % os.listdir(out))
        root = ET.parse(svg).getroot()
        check(root.tag.endswith("svg") and len(list(root.iter())) > 20, "plot is not a drawing")
        check("smoke-1.svg" in md, "the markdown does not show the plot")
    finally:
        shutil.rmtree(out, ignore_errors=True)
