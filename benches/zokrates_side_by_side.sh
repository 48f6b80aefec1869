#!/usr/bin/env bash
# Issue 21's side-by-side run: ZoKrates 0.8.8 and zkbc compile
#     for u32 i in 0..N { acc = acc * acc + x; }
# to one circuit, alternately, in one sitting, and the medians of wall time and peak resident
# memory (GNU time's %e and %M) are printed for each.
#
# ZoKrates runs as zokrates-js 1.1.9 (ZoKrates 0.8.8 built to WebAssembly, on node), the build a
# registry this machine reaches has: `initialize()` then `compile(source)`, the whole node
# process measured. zkbc runs `zkbc report --monolithic` without inputs (compile, lower, count
# and report). Not part of the tests: it takes a minute at N = 200,000.
#
# Usage: bash benches/zokrates_side_by_side.sh [N] [runs]     (defaults: 200000 3)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
runs=${2:-3}

command -v node >/dev/null || { echo "node is needed for zokrates-js" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "GNU time (/usr/bin/time, Debian's 'time') is needed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== npm install zokrates-js@1.1.9 (in $work)"
npm install --prefix "$work" --no-audit --no-fund zokrates-js@1.1.9 >/dev/null
cat >"$work/compile.mjs" <<'EOF'
import { initialize } from "zokrates-js";
import fs from "fs";
const zokrates = await initialize();
const artifacts = zokrates.compile(fs.readFileSync(process.argv[2], "utf8"));
console.log(`${artifacts.constraintCount} constraints`);
EOF
cat >"$work/loop.zok" <<EOF
def main(private field x) -> field {
    field mut acc = x;
    for u32 i in 0..$n {
        acc = acc * acc + x;
    }
    return acc;
}
EOF

echo "== cargo build --release"
cargo build --release --quiet
zkbc=target/release/zkbc

: >"$work/zokrates.txt"
: >"$work/zkbc.txt"
for k in $(seq "$runs"); do
  (cd "$work" && /usr/bin/time -f "%e %M" -a -o "$work/zokrates.txt" node compile.mjs loop.zok)
  /usr/bin/time -f "%e %M" -a -o "$work/zkbc.txt" \
    "$zkbc" report "$work/loop.zok" --monolithic --max-unrolled 100000000 --quiet >/dev/null
  echo "run $k of $runs: zokrates $(tail -1 "$work/zokrates.txt"), zkbc $(tail -1 "$work/zkbc.txt") (s KiB)"
done

# The median of column $1 of file $2.
median() { sort -n -k"$1","$1" "$2" | awk -v c="$1" '{v[NR]=$c} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
zt=$(median 1 "$work/zokrates.txt"); zm=$(median 2 "$work/zokrates.txt")
kt=$(median 1 "$work/zkbc.txt"); km=$(median 2 "$work/zkbc.txt")
echo
echo "N = $n, medians of $runs runs"
echo "ZoKrates 0.8.8 (zokrates-js): $zt s, $((zm / 1024)) MiB"
echo "zkbc report --monolithic:     $kt s, $((km / 1024)) MiB"
awk -v zt="$zt" -v zm="$zm" -v kt="$kt" -v km="$km" \
  'BEGIN {printf "zkbc is %.1fx faster and uses 1/%.1f of the memory\n", zt / kt, zm / km}'
