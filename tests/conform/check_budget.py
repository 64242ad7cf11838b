"""tests/conform/check_budget.py: `tabi conform --budget` on the reference plugin.

A run whose budget runs out must still end on its own with every report
written: the groups it did not run or finish are skipped with kind "budget"
(never passed, never failed), every planned group appears in the report, the
matrix says "not run" for them, and the exit status is 3. A budget that does
not run out changes nothing (exit 0, no "budget" case).

usage: check_budget.py TABI OUTDIR
"""
import json
import os
import re
import subprocess
import sys
import time


def run(tabi, outdir, name, extra):
    js, md = os.path.join(outdir, name + ".json"), os.path.join(outdir, name + ".md")
    cmd = [tabi, "conform", "--plugin", "reference", "--jobs", "1", "--json", js,
           "--matrix", md] + extra
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    took = time.time() - t0
    sys.stdout.write(p.stdout[-1500:])
    return p, js, md, took


def main():
    tabi, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    errors = []

    # 1. A budget far shorter than the run (the reference's ~300 groups, one job).
    p, js, md, took = run(tabi, outdir, "short", ["--budget", "2"])
    if p.returncode != 3:
        errors.append("short budget: exit status %d, expected 3" % p.returncode)
    if took > 2 + 60:  # the budget, and at most one group's wind-down
        errors.append("short budget: the run took %.0f s" % took)
    m = re.search(r"ran out: (\d+) of (\d+) group\(s\)", p.stdout)
    if not m:
        errors.append("short budget: no 'ran out: N of M group(s)' line")
    try:
        d = json.load(open(js))
    except (OSError, ValueError) as e:
        errors.append("short budget: JSON report unreadable: %s" % e)
        d = {"cases": [], "summary": {}}
    cases = d["cases"]
    budget = [c for c in cases if c["kind"] == "budget"]
    if any(c["status"] != "skip" for c in budget):
        errors.append("a budget case is not a skip")
    not_run = [c for c in budget if c["detail"].startswith("not run:")]
    if not not_run:
        errors.append("no group reported 'not run'")
    if any(c["status"] == "fail" for c in cases):
        errors.append("short budget: a case failed")
    s = d.get("summary", {})
    counted = {k: sum(1 for c in cases if c["status"] == v)
               for k, v in (("passed", "pass"), ("failed", "fail"))}
    if s.get("passed") != counted["passed"] or s.get("failed") != counted["failed"]:
        errors.append("summary %s does not match the cases %s" % (s, counted))
    if m:
        left, total = int(m.group(1)), int(m.group(2))
        if left != len(budget):
            errors.append("the last line says %d groups left, the report has %d" % (left, len(budget)))
        groups = {c["op"] for c in cases}
        if len(groups) != total:
            errors.append("%d groups planned, %d in the report" % (total, len(groups)))
        if not 0 < left < total:
            errors.append("expected some groups run and some left, got %d of %d left" % (left, total))
    try:
        if "| not run |" not in open(md).read():
            errors.append("the matrix has no 'not run' cell")
    except OSError as e:
        errors.append("matrix unreadable: %s" % e)

    # 2. A budget that does not run out.
    p, js, md, _ = run(tabi, outdir, "ample", ["--budget", "600", "--ops", "aten::add.Tensor"])
    if p.returncode != 0:
        errors.append("ample budget: exit status %d, expected 0" % p.returncode)
    try:
        d = json.load(open(js))
        if any(c["kind"] == "budget" for c in d["cases"]):
            errors.append("ample budget: a case of kind budget")
        if not any(c["status"] == "pass" for c in d["cases"]):
            errors.append("ample budget: nothing passed")
    except (OSError, ValueError) as e:
        errors.append("ample budget: JSON report unreadable: %s" % e)
    if "ran out" in p.stdout:
        errors.append("ample budget: says the budget ran out")

    for e in errors:
        print("check_budget: " + e)
    print("check_budget: %s" % ("FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
