#!/usr/bin/env python3
"""Two builds of zkbc side by side on the application benchmark with its inputs: for every
program of `circuits/apps/` (or the NAMEs given), the wall time of

    zkbc report FILE --inputs FILE.json -q               (the default)
    zkbc report FILE --inputs FILE.json -q --monolithic

for the build before (`--before`) and the build after (`--after`), run `--runs` times,
interleaved, and the peak RSS of the default runs (`wait4`'s `ru_maxrss`). Prints a Markdown
table of medians with the ratios after/before and the after build's default/`--monolithic`.

    python3 benches/report_before_after.py --before OLD/zkbc --after NEW/zkbc [--runs 3] [NAME...]

Not part of the tests: build both first (`cargo build --release` at each commit, in separate
target directories).
"""
import argparse
import glob
import os
import statistics
import subprocess
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
APPS = os.path.join(ROOT, "circuits", "apps")


def timed(cmd):
    """Wall seconds and peak RSS (MiB) of one run of `cmd`, which must succeed."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return wall, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="the zkbc binary before the change")
    ap.add_argument("--after", required=True, help="the zkbc binary after the change")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("names", nargs="*", help="program stems (default: every application)")
    args = ap.parse_args()
    names = args.names or sorted(
        os.path.basename(p)[:-4] for p in glob.glob(os.path.join(APPS, "*.zok"))
        if os.path.exists(p[:-4] + ".json"))
    print("| program | before default s | after default s | before mono s | after mono s "
          "| default after/before | mono after/before | after default/mono "
          "| peak MiB before → after (default) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in names:
        base = os.path.join(APPS, name)
        cmd = ["report", base + ".zok", "--inputs", base + ".json", "-q"]
        runs = {"bd": [], "ad": [], "bm": [], "am": []}
        peaks = {"bd": [], "ad": []}
        for _ in range(args.runs):
            for key, zkbc, extra in (("bd", args.before, []), ("ad", args.after, []),
                                     ("bm", args.before, ["--monolithic"]),
                                     ("am", args.after, ["--monolithic"])):
                wall, peak = timed([zkbc] + cmd + extra)
                runs[key].append(wall)
                if key in peaks:
                    peaks[key].append(peak)
        m = {k: statistics.median(v) for k, v in runs.items()}
        p = {k: statistics.median(v) for k, v in peaks.items()}
        print(f"| `{name}` | {m['bd']:.3f} | {m['ad']:.3f} | {m['bm']:.3f} | {m['am']:.3f} "
              f"| {m['ad'] / m['bd']:.2f} | {m['am'] / m['bm']:.2f} | {m['ad'] / m['am']:.2f}x "
              f"| {p['bd']:.0f} → {p['ad']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
