#!/usr/bin/env python3
"""Fits the Spartan prover's time to what `zkbc report` counts (docs/prover.md).

For every corpus program (circuits/*.zok with inputs) and a few standard-library programs of
circuits/apps/ (Merkle paths, EdDSA, Keccak, SHA-256), it runs `zkbc report --predict-prover`
once (the features) and `zkbc prove --backend spartan --format json` RUNS times (the prover's
own CPU time, `prove_cpu_ms`: user + system of the prover's threads, not compiling or running
the program; `--wall` fits its wall time `prove_ms` instead), takes the median, and fits

    time = a + b·cells + c·committed + d·tables + e·nonzeros

by least squares weighted by 1/time, printing R² (of the absolute times, unweighted), the
median and largest |residual|/time, the coefficients and every program's residual. The features
are the ones `zkbc report --predict-prover` prints (src/prove/spartan/cost.rs defines them):
the report's sumcheck cells, the committed table cells, the committed tables and the executed
nonzero matrix entries.

Usage: RAYON_NUM_THREADS=1 python3 benches/spartan_fit.py [--runs 5] [--zkbc PATH]
       [--out fit.json] [--times OLD.json] [--wall] [NAME..]
(release binary; other builds running at the same time stretch wall times, which is why CPU
time is the default; on one thread it is the prover's time on an idle machine). `--times`
takes the medians of an earlier run's JSON instead of proving again (when only the features
changed).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPS = [
    "poseidon_merkle16",
    "poseidon_merkle20",
    "eddsa_vote",
    "password_sha3",
    "sha256_preimage",
    "keccak_batch",
    "sha256_merkle16",
]


def pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def features(zkbc, p):
    """The features `zkbc report --predict-prover` prints (src/prove/spartan/cost.rs)."""
    out = subprocess.run([zkbc, "report", p + ".zok", "--inputs", p + ".json",
                          "--predict-prover"], capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-300:])
    for line in out.stdout.splitlines():
        if line.startswith("prover features: "):
            return {k: float(v) for k, v in (kv.split("=") for kv in line.split()[2:])}
    raise RuntimeError("no prover features: " + out.stdout.strip()[-300:])


def solve(a, y):
    """Least squares by the normal equations (a few columns, scaled): the coefficients."""
    n = len(a[0])
    scale = [max(abs(row[j]) for row in a) or 1.0 for j in range(n)]
    x = [[row[j] / scale[j] for j in range(n)] for row in a]
    m = [[sum(r[i] * r[j] for r in x) for j in range(n)] + [sum(r[i] * v for r, v in zip(x, y))]
         for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [u - f * v for u, v in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] / scale[i] for i in range(n)]


def r_squared(a, y, coef):
    mean = sum(y) / len(y)
    res = [v - sum(c * x for c, x in zip(coef, row)) for row, v in zip(a, y)]
    ss_res = sum(r * r for r in res)
    ss_tot = sum((v - mean) ** 2 for v in y)
    return 1 - ss_res / ss_tot, res


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-300:])
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--zkbc", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "zkbc"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--times", default=None)
    ap.add_argument("--wall", action="store_true", help="fit prove_ms, not prove_cpu_ms")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    programs = []
    for f in sorted(os.listdir(os.path.join(ROOT, "circuits"))):
        if f.endswith(".zok") and os.path.exists(os.path.join(ROOT, "circuits", f[:-4] + ".json")):
            programs.append(os.path.join(ROOT, "circuits", f[:-4]))
    programs += [os.path.join(ROOT, "circuits", "apps", a) for a in APPS]
    if args.names:
        programs = [p for p in programs if os.path.basename(p) in args.names]
    tmp = tempfile.mkdtemp(prefix="spartan_fit")
    params = os.path.join(tmp, "params.bin")
    subprocess.run([args.zkbc, "setup", programs[0] + ".zok", "--backend", "spartan", "-o",
                    params, "--quiet"], check=True)
    old = {}
    if args.times:
        with open(args.times) as f:
            old = {r["name"]: r for r in json.load(f)["programs"]}
    rows = []
    for p in programs:
        name = os.path.basename(p)
        try:
            feats = features(args.zkbc, p)
            times, size = [], None
            if old:
                if name not in old:
                    continue
                times, size = old[name]["times"], old[name]["proof_bytes"]
            for _ in range(0 if old else args.runs):
                out = run([args.zkbc, "prove", p + ".zok", "--inputs", p + ".json", "--backend",
                           "spartan", "--pk", params, "-o", os.path.join(tmp, "proof.bin"),
                           "--public", os.path.join(tmp, "public.json"), "--format", "json",
                           "--quiet"])
                times.append(out["prove_ms"] if args.wall else out["prove_cpu_ms"])
                size = out["proof_bytes"]
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print(f"{name}: skipped ({e})", file=sys.stderr)
            continue
        row = dict(feats, name=name, ms=statistics.median(times), times=times,
                   proof_bytes=size)
        rows.append(row)
        print(f"{name:<28} cells {row['cells']:>12.0f} committed {row['committed']:>12.0f} "
              f"tables {row['tables']:>4.0f} nonzeros {row['nonzeros']:>12.0f}  "
              f"median {row['ms']:>10.1f} ms  ({len(times)} runs)", flush=True)
    y = [r["ms"] for r in rows]
    fits = {}
    full = ["cells", "committed", "tables", "nonzeros"]
    for label, cols in [("cells", ["cells"]), ("cells+committed+tables",
                                               ["cells", "committed", "tables"]),
                        ("+".join(full), full)]:
        a = [[1.0] + [float(r[c]) for c in cols] for r in rows]
        # Weights 1/time: a residual counts by its square over the time, between absolute
        # least squares (the largest programs decide everything) and relative (the smallest).
        coef = solve([[x / v ** 0.5 for x in row] for row, v in zip(a, y)],
                     [v ** 0.5 for v in y])
        r2, res = r_squared(a, y, coef)
        fits[label] = {"columns": ["intercept"] + cols, "coefficients_ms": coef, "r_squared": r2,
                       "residuals_ms": {r["name"]: e for r, e in zip(rows, res)}}
        rel = sorted(abs(e) / v for e, v in zip(res, y))
        fits[label]["median_relative_error"] = statistics.median(rel)
        terms = " + ".join(f"{c:.6g}·{n}" for c, n in zip(coef[1:], cols))
        print(f"\nfit {label}: ms = {coef[0]:.4g} + {terms}   R² = {r2:.4f} ({len(rows)} "
              f"programs); |residual|/time: median {statistics.median(rel):.2f}, "
              f"max {rel[-1]:.2f}")
    best = fits["+".join(full)]
    print("\nresiduals of the full fit (measured − predicted, ms):")
    for r in rows:
        print(f"  {r['name']:<28} {r['ms']:>10.1f} {best['residuals_ms'][r['name']]:>+10.1f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"threads": os.environ.get("RAYON_NUM_THREADS", "all"), "runs": args.runs,
                       "time": "prove_ms" if args.wall else "prove_cpu_ms",
                       "programs": rows, "fits": fits}, f, indent=1)


if __name__ == "__main__":
    main()
