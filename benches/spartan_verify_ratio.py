#!/usr/bin/env python3
"""Issue 38's verifier ratio: `zkbc verify-proof`'s time over `zkbc prove --backend spartan`'s
on one program (default `circuits/cobbl_kmp_search.zok`, the corpus program with the most cells
and executed constraints), medians of `--runs` (default 5), with `--threads` rayon threads
(`all`: rayon's default).

Runs `zkbc setup --backend spartan --vk KEY` once, then per run `zkbc prove ... --format json`
and `zkbc verify-proof ... --vk KEY --format json` (with `--no-key`, `--vk` the parameters: the
verifier then compiles the program and derives the generators), and prints four ratios: the stages' CPU time
(`verify_cpu_ms / prove_cpu_ms`: the verifier reading and checking the proof, the prover
proving, neither compiling nor running), the stages' wall time (`verify_ms / prove_ms`), and
the whole commands' CPU (user + system of the child process) and wall time. The load average
is printed: the machine may be shared. Exits 1 when the stages' CPU ratio or the whole
commands' CPU ratio is not below 0.10 (#38's done-means).

    python3 benches/spartan_verify_ratio.py [--zkbc target/release/zkbc] [--runs 5] \\
        [--threads 1] [--no-key] [PROGRAM.zok]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def timed(args, env):
    """The command's JSON output, its CPU seconds (user + system) and its wall seconds."""
    t0, w0 = os.times(), time.time()
    out = subprocess.run(args, env=env, capture_output=True, text=True, cwd=ROOT)
    t1, w1 = os.times(), time.time()
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)} failed\n{out.stderr}")
    cpu = (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
    return json.loads(out.stdout), cpu, w1 - w0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target", "release", "zkbc"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", default="1", help="a count, or `all`")
    ap.add_argument("--no-key", action="store_true",
                    help="verify with the parameters (compiling the program) instead of the key")
    ap.add_argument("program", nargs="?", default="circuits/cobbl_kmp_search.zok")
    a = ap.parse_args()
    env = dict(os.environ)
    env.pop("RAYON_NUM_THREADS", None)
    if a.threads != "all":
        env["RAYON_NUM_THREADS"] = a.threads
    base = a.program[:-4]
    with tempfile.TemporaryDirectory() as work:
        params, key, proof, public = (os.path.join(work, f)
                                      for f in ("p.bin", "k.bin", "x.proof", "x.json"))
        subprocess.run([a.zkbc, "setup", a.program, "--backend", "spartan", "-o", params,
                        "--vk", key, "-q"], check=True, cwd=ROOT)
        vk = params if a.no_key else key
        prove, verify = [], []
        for _ in range(a.runs):
            j, cpu, wall = timed([a.zkbc, "prove", a.program, "--inputs", base + ".json",
                                  "--backend", "spartan", "--pk", params, "-o", proof,
                                  "--public", public, "--format", "json", "-q"], env)
            prove.append((j["prove_cpu_ms"], j["prove_ms"], cpu * 1e3, wall * 1e3))
            size = j["proof_bytes"]
            j, cpu, wall = timed([a.zkbc, "verify-proof", a.program, proof, "--public", public,
                                  "--vk", vk, "--format", "json"], env)
            if not j["verified"]:
                sys.exit(f"the proof did not verify: {j['rejected']}")
            verify.append((j["verify_cpu_ms"], j["verify_ms"], cpu * 1e3, wall * 1e3))
    print(f"{a.program}: threads {a.threads}, {a.runs} runs, proof {size} bytes, "
          f"verifier {'parameters (compiles)' if a.no_key else 'key'}, "
          f"load average {os.getloadavg()[0]:.1f}")
    ratios = []
    for k, name in enumerate(["stages, CPU ms", "stages, wall ms", "commands, CPU ms",
                              "commands, wall ms"]):
        p = statistics.median(r[k] for r in prove)
        v = statistics.median(r[k] for r in verify)
        ratios.append(v / p)
        print(f"  {name:18} prove {p:8.1f}  verify {v:7.1f}  verify/prove {v / p:.3f}")
    if ratios[0] >= 0.10:
        sys.exit(f"the verifier's stage takes {ratios[0]:.3f} of the prover's, not under 0.10")
    if ratios[2] >= 0.10:
        sys.exit(f"the verify-proof command takes {ratios[2]:.3f} of prove's CPU, not under 0.10")


if __name__ == "__main__":
    main()
