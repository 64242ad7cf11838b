"""tests/conform/check_reports.py: runs `tabi conform` on the reference plugin and
checks that it passes completely and that every report is well formed.

usage: check_reports.py TABI OUTDIR [extra tabi conform options...]
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    tabi, outdir = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    js, ju, md = (os.path.join(outdir, n) for n in ("ref.json", "ref.xml", "ref.md"))
    cmd = [tabi, "conform", "--plugin", "reference", "--jobs", "2", "--json", js,
           "--junit", ju, "--matrix", md] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(p.stdout[-4000:])
    sys.stderr.write(p.stderr[-2000:])
    errors = []
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0:
        errors.append("exit status %d, expected 0" % p.returncode)
    if not lines or not lines[-1].endswith("skipped") or " passed, " not in lines[-1]:
        errors.append("no closing 'N passed, N failed, N skipped' line")
    fails = [l for l in lines if l.startswith("FAIL ")]
    if fails:
        errors.append("%d FAIL line(s), first: %s" % (len(fails), fails[0]))
    j = json.load(open(js))
    s = j["summary"]
    if j["plugin"] != "reference" or s["failed"] != 0 or s["passed"] < 1000:
        errors.append("JSON summary %r" % s)
    if len(j["cases"]) != s["passed"] + s["failed"] + s["skipped"]:
        errors.append("JSON: %d cases, summary counts %r" % (len(j["cases"]), s))
    for c in j["cases"][:50]:
        for key in ("op", "dtype", "sample", "status", "kind", "detail"):
            if key not in c:
                errors.append("JSON case lacks %s: %r" % (key, c))
                break
    # Every op group ran: no op left without a sample generator.
    nogen = sorted({c["op"] for c in j["cases"] if "no sample generator" in c["detail"]})
    if nogen:
        errors.append("ops without a sample generator: %s" % ", ".join(nogen[:20]))
    ops = {c["op"] for c in j["cases"] if c["op"].startswith(("aten::", "prims::"))}
    if len(ops) < 250:
        errors.append("only %d ops checked" % len(ops))
    # Every op group also made its random calls, and passed them.
    robust = {c["op"] for c in j["cases"]
              if c["sample"] == "(random calls)" and c["status"] == "pass"}
    if ops - robust:
        errors.append("ops without passed random calls: %s" % ", ".join(sorted(ops - robust)[:20]))
    root = ET.parse(ju).getroot()
    tests = sum(int(ts.get("tests")) for ts in root.iter("testsuite"))
    if tests != len(j["cases"]) or root.find(".//failure") is not None:
        errors.append("JUnit: %d testcases (JSON %d), failures present: %s"
                      % (tests, len(j["cases"]), root.find(".//failure") is not None))
    rows = [l for l in open(md) if l.startswith("| aten::") or l.startswith("| prims::")]
    if len(rows) != len(ops) or any("FAIL" in r for r in rows):
        errors.append("matrix: %d rows for %d ops (or a FAIL cell)" % (len(rows), len(ops)))
    if not any("pass" in r for r in rows) or not any("unsupported" in r for r in rows):
        errors.append("matrix lacks pass/unsupported cells")
    for e in errors:
        print("CHECK failed:", e)
    print("%d passed, %d failed" % (1 if not errors else 0, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
