#!/usr/bin/env python3
"""Issue 38, item 3: the Spartan proof's size, prover time and verifier time against the
executed constraints, 2^10 .. 2^20 (docs/prover.md, "Scaling").

The program family is one loop whose bound is a run-time input,

    def main(private field x, u32 n) -> field {
        field mut acc = x;
        for u32 i in 0..n { acc = acc * acc + x; acc = acc * acc + 1; }
        return acc;
    }

so the loop body is one block executed about `n` times (a data-parallel table of `n` rows) and
the executed constraints grow linearly in `n`. Per size `2^k` the script picks `n` from the
constraints one iteration executes (measured at n = 1000), reads the executed constraints back
from `zkbc report --format json`, and runs, with `RAYON_NUM_THREADS=1`, `--runs` times (default
3; medians)

    zkbc prove loop.zok --inputs loop.json --backend spartan --pk P -o PROOF --format json
    zkbc verify-proof loop.zok PROOF --vk P --public PUBLIC --format json

reading the proof's bytes, the prover's and the verifier's own CPU time (`prove_cpu_ms`,
`verify_cpu_ms`: user + system of the stage, not compiling or running the program; a loaded
machine stretches wall times, not these) and their ratio. Then the slope of log(proof bytes)
against log(executed constraints) by least squares: 0.5 would be square-root growth, 0
logarithmic; the script fails if it exceeds 0.5.

    python3 benches/spartan_scale.py [--zkbc target/release/zkbc] [--runs 3] [--max-log 16]

The default sweep stops at 2^16 (about a minute); `--max-log 20` is the whole sweep of the issue
(minutes: 2^20 executed constraints are about 115,000 block executions).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

SOURCE = """def main(private field x, u32 n) -> field {
    field mut acc = x;
    for u32 i in 0..n {
        acc = acc * acc + x;
        acc = acc * acc + 1;
    }
    return acc;
}
"""


def run_json(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def executed(zkbc, zok, inputs):
    report = run_json([zkbc, "report", zok, "--inputs", inputs, "--format", "json"])

    def find(v):
        if isinstance(v, dict):
            if "executed_constraints" in v:
                return v["executed_constraints"]
            for w in v.values():
                r = find(w)
                if r is not None:
                    return r
        return None

    n = find(report)
    if n is None:
        sys.exit("no executed_constraints in zkbc report --format json")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target/release/zkbc"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--min-log", type=int, default=10)
    ap.add_argument("--max-log", type=int, default=16)
    args = ap.parse_args()
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        zok = os.path.join(tmp, "loop.zok")
        with open(zok, "w") as f:
            f.write(SOURCE)
        inputs = os.path.join(tmp, "loop.json")

        def write_inputs(n):
            with open(inputs, "w") as f:
                json.dump({"x": "3", "n": str(n)}, f)

        write_inputs(1000)
        per_iteration = executed(args.zkbc, zok, inputs) / 1000
        params = os.path.join(tmp, "hyrax.bin")
        subprocess.run([args.zkbc, "setup", zok, "--backend", "spartan", "-o", params,
                        "--quiet"], check=True, capture_output=True)
        rows = []
        for k in range(args.min_log, args.max_log + 1):
            n = max(1, round((1 << k) / per_iteration))
            write_inputs(n)
            constraints = executed(args.zkbc, zok, inputs)
            proof, public = os.path.join(tmp, "p.bin"), os.path.join(tmp, "public.json")
            prove, verify, size = [], [], None
            for _ in range(args.runs):
                p = run_json([args.zkbc, "prove", zok, "--inputs", inputs, "--backend",
                              "spartan", "--pk", params, "-o", proof, "--public", public,
                              "--format", "json", "--quiet"], env)
                v = run_json([args.zkbc, "verify-proof", zok, proof, "--vk", params,
                              "--public", public, "--format", "json", "--quiet"], env)
                if not v["verified"]:
                    sys.exit(f"2^{k}: the proof does not verify: {v['rejected']}")
                prove.append(p["prove_cpu_ms"])
                verify.append(v["verify_cpu_ms"])
                size = p["proof_bytes"]
            row = (k, n, constraints, size, statistics.median(prove),
                   statistics.median(verify))
            rows.append(row)
            print(f"2^{k}: n={n} executed={constraints} proof={size} B "
                  f"prove={row[4]:.0f} ms verify={row[5]:.1f} ms", file=sys.stderr)
    print("| executed constraints | n | proof KB | proof KB / √constraints | prove CPU s "
          "| verify CPU ms | verify / prove |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k, n, c, size, p, v in rows:
        print(f"| {c:,} (2^{math.log2(c):.1f}) | {n:,} | {size / 1000:.1f} | "
              f"{size / 1000 / math.sqrt(c):.3f} | {p / 1000:.2f} | {v:.1f} | {v / p:.3f} |")
    xs = [math.log(c) for _, _, c, _, _, _ in rows]
    ys = [math.log(s) for _, _, _, s, _, _ in rows]
    if len(rows) >= 2:
        mx, my = statistics.mean(xs), statistics.mean(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum(
            (x - mx) ** 2 for x in xs)
        print(f"\nslope of log(proof bytes) on log(executed constraints): {slope:.3f} "
              "(0.5 = square root, 0 = logarithmic)")
        if slope > 0.5:
            sys.exit("the proof grows faster than the square root of the executed constraints")


if __name__ == "__main__":
    main()
