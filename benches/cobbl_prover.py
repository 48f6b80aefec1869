#!/usr/bin/env python3
"""Issue 38's prover table: `zkbc prove --backend spartan` and `zkbc verify-proof` on our versions
of CoBBl's seven benchmarks at the sizes of CoBBl's recorded prover times, with one rayon thread
and with all, beside CoBBl's recorded numbers.

Per program and thread count, `--runs` runs (default 3) of

    /usr/bin/time -f "%U %S %M" zkbc prove FILE --inputs FILE.json --backend spartan \\
        --pk PARAMS -o PROOF --public PUBLIC --format json
    /usr/bin/time -f "%U %S %M" zkbc verify-proof FILE PROOF --vk PARAMS --public PUBLIC \\
        --format json

and the medians of: the prover's wall time (`prove_ms`: the prover alone, not compiling, running
or assigning), the whole prove command's CPU time (user + system: compile, run, assign and
prove; an upper bound on the prover's CPU time, and the number to read when the shared machine
is loaded, since a loaded machine stretches wall times, not CPU times), the verifier's wall time
(`verify_ms`, the check alone) and the verify command's CPU time, the proof's size and the
prove command's peak memory (max RSS). The outputs are checked against FILE.expected.json
(computed in Python, independently of zkbc) and every proof must verify. `uptime` is printed
before and after: the machine is shared.

CoBBl's numbers are its COBBL_WHILE 100 runs (O3) in `zok_tests/raw/NAME_result.raw` of
cmu-snarks/CoBBl (the first of five repeats, which agree within a few percent): prover time,
verifier time and proof bytes, on its authors' machine, one thread, over curve25519 (ours is
BN254: another machine and another curve).

    python3 benches/cobbl_prover.py [--zkbc target/release/zkbc] [--runs 3] [--threads 1,0]

`--threads 0` means rayon's default (all cores).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# (benchmark, size, program, CoBBl prover s, verifier ms, proof bytes)
ROWS = [
    ("find_min", "max_high 200", "circuits/cobbl_find_min.zok", 0.932, 68.2, 152641),
    ("mat_mult", "max_n 8", "circuits/cobbl_sizes/cobbl_mat_mult_8.zok", 2.925, 139.6, 293259),
    ("kmp_search", "480/48", "circuits/cobbl_sizes/cobbl_kmp_search_480.zok", 4.240, 153.6,
     320421),
    ("dna_align", "max_n 5", "circuits/cobbl_dna_align.zok", 1.934, 142.1, 380811),
    ("rle_codec", "max_n 60", "circuits/cobbl_sizes/cobbl_rle_codec_60.zok", 1.517, 121.1,
     297837),
    ("sha256", "max_n 6", "circuits/cobbl_sizes/cobbl_sha256_6.zok", 7.308, 177.0, 334977),
    ("poseidon", "max_n 6", "circuits/cobbl_sizes/cobbl_poseidon_6.zok", 13.314, 286.3, 525809),
]


def timed(cmd, threads):
    """Runs `cmd` under /usr/bin/time; gives its JSON output, CPU seconds and max RSS in KB."""
    env = dict(os.environ)
    env.pop("RAYON_NUM_THREADS", None)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        out = subprocess.run(["/usr/bin/time", "-o", tf.name, "-f", "%U %S %M"] + cmd,
                             capture_output=True, text=True, cwd=ROOT, env=env)
        if out.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed\n{out.stderr}")
        user, system, rss = tf.read().split()[-3:]
    return json.loads(out.stdout), float(user) + float(system), int(rss)


def measure(zkbc, path, params, threads, runs, work):
    base = os.path.join(ROOT, path[:-4])
    proof, public = os.path.join(work, "proof.bin"), os.path.join(work, "public.json")
    expected = json.load(open(base + ".expected.json"))["outputs"]
    rows = []
    for _ in range(runs):
        p, p_cpu, rss = timed([zkbc, "prove", path, "--inputs", base + ".json", "--backend",
                               "spartan", "--pk", params, "-o", proof, "--public", public,
                               "--format", "json"], threads)
        outputs = p["public"][:len(expected)]
        if [str(v) for v in expected] != outputs:
            sys.exit(f"{path}: outputs {outputs} != expected {expected}")
        v, v_cpu, _ = timed([zkbc, "verify-proof", path, proof, "--vk", params, "--public",
                             public, "--format", "json"], threads)
        if not v["verified"]:
            sys.exit(f"{path}: the proof did not verify: {v['rejected']}")
        rows.append((p["prove_ms"] / 1e3, p_cpu, v["verify_ms"], v_cpu, p["proof_bytes"], rss))
    return [statistics.median(col) for col in zip(*rows)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--zkbc", default=os.path.join(ROOT, "target", "release", "zkbc"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", default="1,0", help="comma-separated; 0 = all cores")
    ap.add_argument("--only", help="comma-separated benchmark names")
    a = ap.parse_args()
    zkbc = os.path.abspath(a.zkbc)
    only = set(a.only.split(",")) if a.only else None
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout
          .strip(), file=sys.stderr)
    with tempfile.TemporaryDirectory() as work:
        params = os.path.join(work, "params.bin")
        subprocess.run([zkbc, "setup", "--backend", "spartan", ROWS[0][2], "-o", params],
                       check=True, capture_output=True, cwd=ROOT)
        print("| benchmark | size | threads | prover s (wall) | prove CPU s (command) | "
              "CoBBl prover s | verifier ms (wall) | verify CPU s (command) | CoBBl verifier "
              "ms | proof KB | CoBBl proof KB | peak MB |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for bench, size, path, c_prove, c_verify, c_bytes in ROWS:
            if only and bench not in only:
                continue
            for threads in (int(t) for t in a.threads.split(",")):
                prove, p_cpu, verify, v_cpu, size_b, rss = measure(zkbc, path, params, threads,
                                                                   a.runs, work)
                print(f"| {bench} | {size} | {threads or 'all'} | {prove:.2f} | {p_cpu:.2f} | "
                      f"{c_prove:.2f} | {verify:.0f} | {v_cpu:.2f} | {c_verify:.0f} | "
                      f"{size_b / 1e3:.1f} | {c_bytes / 1e3:.1f} | {rss / 1e3:.0f} |",
                      flush=True)
    print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout
          .strip(), file=sys.stderr)


if __name__ == "__main__":
    main()
