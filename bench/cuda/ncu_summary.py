#!/usr/bin/env python3
"""bench/cuda/ncu_summary.py CSV [OUT.md]: one line a kernel from Nsight
Compute's raw CSV (`ncu --csv --page raw --print-units base ...`, one row a
launch), for gpu_session.sh's profile phase.

A kernel's launches are summed: count, total and mean time, the bytes it
moved through device memory over its time (against the copy's ~4.2 TB/s on
an H200), how busy memory and the SMs were (percent of peak, time-weighted),
achieved occupancy, registers a thread, the largest grid and block. Most
time first: the top rows are where a slow benchmark row spends it.
Standard library only: the device machine's python3 and CI's both run it."""
import csv
import sys

SCALE = {  # the units ncu prints, long and short (ncu 2025 on an H200: "ns", "byte")
    "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
    "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
    "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12,
    "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
}
TIME, RD, WR = "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"
DRAM_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
SM_PCT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
REGS = "launch__registers_per_thread"


def num(text, unit=""):
    """A cell as a float in base units (ncu may group digits with commas)."""
    try:
        return float(text.replace(",", "")) * SCALE.get(unit, 1.0)
    except ValueError:
        return None


def read(path):
    """(per kernel name: its launches' {metric: value} dicts) and the number of launches."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if head is None:
        raise SystemExit(f"ncu_summary: no 'Kernel Name' header in {path} (not ncu's raw CSV?)")
    cols = rows[head]
    units = {}
    body = rows[head + 1:]
    if body and num(body[0][0] if body[0] else "") is None:  # the units row: its ID cell is not a number
        units = dict(zip(cols, body[0]))
        body = body[1:]
        for m in (TIME, RD, WR):  # a unit read as 1 would print figures off by 1e9, as once happened
            if units.get(m) and units[m] not in SCALE:
                raise SystemExit(f"ncu_summary: unknown unit '{units[m]}' for {m} in {path}")
    kernels, launches = {}, 0
    for r in body:
        if len(r) != len(cols):
            continue  # a line ncu printed between launches
        d = dict(zip(cols, r))
        vals = {m: num(d.get(m, ""), units.get(m, "")) for m in (TIME, RD, WR, DRAM_PCT, SM_PCT, OCC, REGS)}
        vals["grid"] = d.get("Grid Size", "") or d.get("launch__grid_size", "")
        vals["block"] = d.get("Block Size", "") or d.get("launch__block_size", "")
        kernels.setdefault(d["Kernel Name"], []).append(vals)
        launches += 1
    return kernels, launches


def weighted(ls, m):
    """m over the launches, weighted by their time (None when ncu gave none)."""
    pairs = [(v[m], v[TIME] or 0.0) for v in ls if v[m] is not None]
    tot = sum(t for _, t in pairs)
    if not pairs:
        return None
    return sum(x * t for x, t in pairs) / tot if tot > 0 else sum(x for x, _ in pairs) / len(pairs)


def table(kernels, launches):
    out = [f"{launches} launches, {len(kernels)} kernels; most time first", "",
           "| kernel | launches | total us | mean us | DRAM GB/s | DRAM % | SM % | occupancy % | regs | grid | block |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    def total(ls):
        return sum(v[TIME] or 0.0 for v in ls)
    for name, ls in sorted(kernels.items(), key=lambda kv: -total(kv[1])):
        t = total(ls)
        moved = sum((v[RD] or 0.0) + (v[WR] or 0.0) for v in ls)
        def pct(m):
            x = weighted(ls, m)
            return "" if x is None else f"{x:.0f}"
        regs = weighted(ls, REGS)
        short = name if len(name) <= 70 else name[:67] + "..."
        out.append(f"| `{short}` | {len(ls)} | {t * 1e6:.1f} | {t * 1e6 / len(ls):.1f} | "
                   f"{(moved / t / 1e9) if t > 0 else 0:.0f} | {pct(DRAM_PCT)} | {pct(SM_PCT)} | {pct(OCC)} | "
                   f"{'' if regs is None else f'{regs:.0f}'} | {ls[-1]['grid']} | {ls[-1]['block']} |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    kernels, launches = read(argv[1])
    if not launches:
        raise SystemExit(f"ncu_summary: no launches in {argv[1]}")
    text = table(kernels, launches)
    if len(argv) > 2:
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
