#!/usr/bin/env python3
"""Runs every program of the application benchmark (or those named) through a built zkbc:
`zkbc run` must print NAME.expected.json's outputs (compared as JSON) and
`zkbc check -q` must exit 0; with --monolithic, `zkbc check --monolithic -q` too (with the
extra flags MONOLITHIC_FLAGS gives a program).

    python3 circuits/apps/check.py [--zkbc target/release/zkbc] [--monolithic] [NAME...]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

# Programs whose --monolithic unrolling needs more than the default instruction budget (the
# limit is counted before folding: see README.md).
MONOLITHIC_FLAGS = {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target", "release", "zkbc"))
    ap.add_argument("--monolithic", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    names = args.names or sorted(os.path.basename(p)[:-4]
                                 for p in glob.glob(os.path.join(HERE, "*.zok")))
    failed = []
    for name in names:
        zok = os.path.join(HERE, name + ".zok")
        inp = os.path.join(HERE, name + ".json")
        with open(os.path.join(HERE, name + ".expected.json")) as fh:
            expected = json.load(fh)
        t0 = time.time()
        run = subprocess.run([args.zkbc, "run", zok, "--inputs", inp, "-q"],
                             capture_output=True, text=True)
        ok_run = run.returncode == 0 and json.loads(run.stdout or "null") == expected
        check = subprocess.run([args.zkbc, "check", zok, "--inputs", inp, "-q"],
                               capture_output=True, text=True)
        ok_check = check.returncode == 0
        ok_mono = True
        if args.monolithic:
            mono = subprocess.run([args.zkbc, "check", zok, "--inputs", inp, "-q", "--monolithic"]
                                  + MONOLITHIC_FLAGS.get(name, []), capture_output=True, text=True)
            ok_mono = mono.returncode == 0
        status = "ok" if ok_run and ok_check and ok_mono else "FAIL"
        print(f"{status:4}  {name:32} run={'ok' if ok_run else 'FAIL'} "
              f"check={'ok' if ok_check else 'FAIL'}"
              + (f" monolithic={'ok' if ok_mono else 'FAIL'}" if args.monolithic else "")
              + f"  ({time.time() - t0:.1f} s)")
        if not ok_run:
            print("   run:", run.returncode, run.stdout[:400], run.stderr[:800])
        if not ok_check:
            print("   check:", check.returncode, check.stderr[:800])
        if args.monolithic and not ok_mono:
            print("   monolithic:", mono.returncode, mono.stderr[:800])
        if status != "ok":
            failed.append(name)
    print(f"{len(names) - len(failed)} of {len(names)} pass")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
