#!/usr/bin/env python3
"""Issue 36's profiling budget: `zkbc profile` costs at most 1.5x the time of `zkbc report` on
ZoKrates' standard-library yardsticks (`../shared/peers/zokrates-stdlib/yardsticks/*.zok`,
compiled with `--stdlib-path ../shared/peers/zokrates-stdlib/stdlib`, no inputs).

For every yardstick, `zkbc report FILE -q` and `zkbc profile FILE -q -o /dev/null` are each run
`--runs` times, interleaved; the CPU time of each run (user + system of the child, from
`os.wait4`) is taken, and the medians and their ratio are printed as a Markdown table, slowest
ratio first, with the geometric mean and the count within 1.5x.

    python3 benches/profile_vs_report.py [--runs 3] [--zkbc target/release/zkbc] [NAME...]

NAME filters yardsticks by file stem. Not part of the tests: a full run takes a few minutes.
Build zkbc first (`cargo build --release`).
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PEER = os.path.normpath(os.path.join(ROOT, "..", "shared", "peers", "zokrates-stdlib"))


def cpu(cmd):
    """The CPU seconds (user + system) of running `cmd`; exits on failure."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{err}")
    return usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target", "release", "zkbc"))
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    stdlib = os.path.join(PEER, "stdlib")
    files = sorted(glob.glob(os.path.join(PEER, "yardsticks", "*.zok")))
    if a.names:
        files = [f for f in files if os.path.basename(f)[:-4] in a.names]
    rows = []
    for f in files:
        common = [f, "-q", "--stdlib-path", stdlib]
        rep, prof = [], []
        for _ in range(a.runs):
            rep.append(cpu([a.zkbc, "report"] + common))
            prof.append(cpu([a.zkbc, "profile"] + common + ["-o", os.devnull]))
        r, p = statistics.median(rep), statistics.median(prof)
        rows.append((p / r if r > 0 else float("inf"), os.path.basename(f)[:-4], r, p))
        print(f"{rows[-1][1]}: {r:.3f} {p:.3f} {rows[-1][0]:.2f}", file=sys.stderr)
    rows.sort(reverse=True)
    print(f"| yardstick | report CPU s | profile CPU s | ratio |")
    print(f"|---|---:|---:|---:|")
    for ratio, name, r, p in rows:
        print(f"| {name} | {r:.3f} | {p:.3f} | {ratio:.2f} |")
    ratios = [x[0] for x in rows]
    gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    within = sum(1 for x in ratios if x <= 1.5)
    print(f"\n{len(rows)} yardsticks, medians of {a.runs} runs: geometric mean {gm:.2f}x, "
          f"{within} within 1.5x, largest {max(ratios):.2f}x ({rows[0][1]})")


if __name__ == "__main__":
    main()
