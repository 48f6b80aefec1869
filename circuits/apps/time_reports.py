#!/usr/bin/env python3
"""Times `zkbc report FILE -q` (default pipeline, executions counted statically),
`zkbc report FILE -q --monolithic` and `zkbc report FILE --inputs NAME.json -q` (block
formation profiled on the inputs) for every program of the application benchmark (or those
named) with /usr/bin/time, and prints a Markdown table with the wall times, peak memory and
the constraint counts the reports give.

    python3 circuits/apps/time_reports.py [--zkbc target/release/zkbc] [NAME...]
"""
import argparse
import glob
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
MONOLITHIC_FLAGS = {}


def timed(cmd):
    out = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True,
                         text=True)
    m = re.search(r"TIME ([\d.]+) (\d+)", out.stderr)
    wall, mem = float(m.group(1)), int(m.group(2)) // 1024
    fields = {}
    for key in ["constraints", "sumcheck cells", "blocks"]:
        mm = re.search(r"^" + key + r"\s+([\d,]+)", out.stdout, re.M)
        fields[key] = mm.group(1) if mm else "?"
    return out.returncode, wall, mem, fields


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target", "release", "zkbc"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    names = args.names or sorted(os.path.basename(p)[:-4]
                                 for p in glob.glob(os.path.join(HERE, "*.zok")))
    print("| program | default: wall s | MiB | constraints | sumcheck cells "
          "| --monolithic: wall s | MiB | constraints "
          "| --inputs: wall s | blocks | sumcheck cells |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        zok = os.path.join(HERE, name + ".zok")
        rc1, w1, m1, f1 = timed([args.zkbc, "report", zok, "-q"])
        rc2, w2, m2, f2 = timed([args.zkbc, "report", zok, "-q", "--monolithic"]
                                + MONOLITHIC_FLAGS.get(name, []))
        rc3, w3, _, f3 = timed([args.zkbc, "report", zok, "--inputs",
                                os.path.join(HERE, name + ".json"), "-q"])

        def show(rc, w):
            return f"{w:.2f}" if rc == 0 else f"{w:.2f} (exit {rc})"

        print(f"| `{name}` | {show(rc1, w1)} | {m1} | {f1['constraints']} "
              f"| {f1['sumcheck cells']} | {show(rc2, w2)} | {m2} | {f2['constraints']} "
              f"| {show(rc3, w3)} | {f3['blocks']} | {f3['sumcheck cells']} |", flush=True)


if __name__ == "__main__":
    main()
