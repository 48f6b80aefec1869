#!/usr/bin/env python3
"""Issue 32's compile-time benchmark, side by side in one sitting: for every program of the
application benchmark (`circuits/apps/*.zok`) and the three compile reproducers
(`../shared/reproducers/compile/`), the wall time of

- `zkbc report FILE -q` (the default pipeline, the main job, no inputs),
- `zkbc report FILE -q --monolithic` (one block: the circuit ZoKrates would emit),
- ZoKrates 0.8.8 compiling the same file, with ZoKrates' own standard library from
  `../shared/peers/zokrates-stdlib/stdlib`: native `zokrates compile` when `--zokrates-bin`
  names it (built by `../shared/tools/build-zokrates.sh`; the whole process timed), otherwise
  zokrates-js 1.1.9 (ZoKrates built to WebAssembly, installed from npm into a temporary
  folder, `compile()` timed inside node, start-up and `initialize()` excluded). The
  WebAssembly build is much slower than the native one on small programs (n_choose_k: 4.4 s
  against 0.20 s), so prefer the native binary for the ratio,

each run `--runs` times, interleaved, medians printed as a Markdown table with the ratios and
issue 32's goals per program: default at most 1.5x `--monolithic`, at most 10 s, and at most
max(1/5 of ZoKrates' time, 0.1 s). zkbc's peak memory (GNU time's %M, the default run's
median) is listed too.

    python3 benches/compile_side_by_side.py [--runs 3] [--zkbc target/release/zkbc]
                                            [--zokrates-bin PATH | --no-zokrates]
                                            [--with-inputs] [NAME...]

`--with-inputs` times `report FILE --inputs FILE.json` (both zkbc columns; formation profiled on
the inputs, the run checked), for the programs with inputs beside them (`circuits/apps/`).

NAME filters programs by file stem. Not part of the tests: a full run takes several minutes.
Build zkbc first (`cargo build --release`).
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
STDLIB = os.path.join(SHARED, "peers", "zokrates-stdlib", "stdlib")


def programs():
    """(name, path, extra zkbc flags) of every program measured."""
    out = [(os.path.basename(p)[:-4], p, [])
           for p in sorted(glob.glob(os.path.join(ROOT, "circuits", "apps", "*.zok")))]
    zokrates_lib = ["--stdlib-path", STDLIB]
    for path in [
        os.path.join(SHARED, "reproducers", "compile", "unrolled_poseidon_t7.zok"),
        os.path.join(SHARED, "peers", "zokrates-stdlib", "yardsticks", "pedersen_512bit.zok"),
        os.path.join(SHARED, "peers", "zokrates-examples", "n_choose_k.zok"),
    ]:
        if os.path.exists(path):
            out.append((os.path.basename(path)[:-4], path, zokrates_lib))
    return out


def timed(cmd):
    """Wall seconds and peak KiB of `cmd` under GNU time, and its exit status. The wall time is
    taken here to the microsecond (GNU time's %e has 10 ms steps, too coarse for the programs
    that take 30 ms); it includes starting GNU time, about a millisecond."""
    start = time.perf_counter()
    out = subprocess.run(["/usr/bin/time", "-f", "TIME %M"] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    m = re.search(r"TIME (\d+)", out.stderr)
    return elapsed, int(m.group(1)), out.returncode


def install_zokrates_js(work):
    subprocess.run(["npm", "install", "--prefix", work, "--no-audit", "--no-fund",
                    "zokrates-js@1.1.9"], check=True, stdout=subprocess.DEVNULL)
    shutil.copy(os.path.join(ROOT, "benches", "zokrates_compile.mjs"), work)


def zokrates_time(work, path):
    """The constraint count and compile() time of one run of zokrates-js on `path`."""
    out = subprocess.run(["node", os.path.join(work, "zokrates_compile.mjs"), STDLIB, "1", path],
                         capture_output=True, text=True, cwd=work)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or not lines:
        return None, None
    r = json.loads(lines[-1])
    return r["constraints"], r["times"][0]


def native_zokrates_time(binary, path, work):
    """The constraint count and wall time of one `zokrates compile` of `path`."""
    out_file = os.path.join(work, "out")
    start = time.perf_counter()
    out = subprocess.run([binary, "compile", "-i", path, "--stdlib-path", STDLIB, "-o", out_file,
                          "-s", os.path.join(work, "abi.json"), "-r", os.path.join(work, "r1cs")],
                         capture_output=True, text=True, cwd=work)
    elapsed = time.perf_counter() - start
    m = re.search(r"Number of constraints: (\d+)", out.stdout)
    if out.returncode != 0:
        return None, None
    return (int(m.group(1)) if m else None), elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target", "release", "zkbc"))
    ap.add_argument("--no-zokrates", action="store_true", help="zkbc's columns only")
    ap.add_argument("--zokrates-bin", help="native ZoKrates 0.8.8 (`zokrates`) instead of "
                    "zokrates-js")
    ap.add_argument("--with-inputs", action="store_true",
                    help="zkbc reports with the inputs beside each program (FILE.json); "
                    "programs without inputs are left out")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    chosen = [p for p in programs() if not args.names or p[0] in args.names]
    if args.with_inputs:
        chosen = [(name, path, flags + ["--inputs", path[:-4] + ".json"])
                  for name, path, flags in chosen if os.path.exists(path[:-4] + ".json")]
    work = tempfile.mkdtemp()
    try:
        if not args.no_zokrates and not args.zokrates_bin:
            install_zokrates_js(work)
        print(f"medians of {args.runs} runs, interleaved; load average before: "
              f"{os.getloadavg()[0]:.2f}", file=sys.stderr)
        print("| program | default s | `--monolithic` s | default / mono | ZoKrates s "
              "| ZoKrates constraints | default / ZoKrates | default MiB | goals |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        met = 0
        for name, path, flags in chosen:
            default, mono, zok, mem, count, failed = [], [], [], [], None, []
            for _ in range(args.runs):
                t, m, rc = timed([args.zkbc, "report", path, "-q"] + flags)
                default.append(t), mem.append(m)
                failed += ["default"] if rc else []
                t, _, rc = timed([args.zkbc, "report", path, "-q", "--monolithic"] + flags)
                mono.append(t)
                failed += ["monolithic"] if rc else []
                if args.zokrates_bin:
                    count, t = native_zokrates_time(args.zokrates_bin, path, work)
                    if t is not None:
                        zok.append(t)
                elif not args.no_zokrates:
                    count, t = zokrates_time(work, path)
                    if t is not None:
                        zok.append(t)
            d, m = statistics.median(default), statistics.median(mono)
            z = statistics.median(zok) if zok else None
            goals = []
            if "monolithic" not in failed:
                goals.append(("<= 1.5x mono", d <= 1.5 * m))
            goals.append(("<= 10 s", d <= 10))
            if z is not None:
                goals.append(("<= max(ZoK/5, 0.1 s)", d <= max(z / 5, 0.1)))
            missed = [g for g, ok in goals if not ok]
            met += not missed and "default" not in failed
            verdict = "met" if not missed else "missed: " + ", ".join(missed)
            if failed:
                verdict += f" (failed: {', '.join(sorted(set(failed)))})"
            zs = f"{z:.2f}" if z is not None else "-"
            ratio_z = f"{d / z:.2f}" if z else "-"
            print(f"| `{name}` | {d:.3f} | {m:.3f} | {d / m:.2f}x | {zs} | {count or '-'} "
                  f"| {ratio_z} | {statistics.median(mem) // 1024} | {verdict} |", flush=True)
        print(f"\nall goals met on {met} of {len(chosen)} programs", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
