// Compiles each FILE with zokrates-js (ZoKrates 0.8.8 as WebAssembly) RUNS times and prints one
// JSON line per file: the constraint count and the compile() times in seconds, measured inside
// node so that start-up and initialize() are excluded. Imports starting with ./ or ../ resolve
// beside the importing file, others under STDLIB (ZoKrates' own standard library).
//     node zokrates_compile.mjs STDLIB RUNS FILE...
import { initialize } from "zokrates-js";
import fs from "fs";
import path from "path";
const [stdlib, runs, ...files] = process.argv.slice(2);
const zokrates = await initialize();
const read = (p) => {
  for (const c of [p, p + ".zok"]) if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return null;
};
const resolveCallback = (from, imp) => {
  const rel = imp.startsWith("./") || imp.startsWith("../");
  const base = rel ? path.dirname(from) : stdlib;
  const file = read(path.resolve(base, imp));
  if (!file) return null;
  return { source: fs.readFileSync(file, "utf8"), location: file };
};
for (const f of files) {
  const times = [];
  let count = null;
  for (let i = 0; i < Number(runs); i++) {
    const t0 = process.hrtime.bigint();
    try {
      const a = zokrates.compile(fs.readFileSync(f, "utf8"), { location: path.resolve(f), resolveCallback });
      count = a.constraintCount;
    } catch (e) {
      count = "error: " + String(e).slice(0, 200);
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ file: f, constraints: count, median_s: times[Math.floor(times.length / 2)], times }));
}
