// Checks every exported block of a directory in one node process (snarkjs as a library, so
// the corpus takes seconds, not a process start per file): `r1cs.info` reads each NAME.r1cs,
// `wtns.check` checks each NAME_eK.wtns against it. Prints one line per block and a summary;
// exits 1 if a witness is incorrect, 2 if snarkjs cannot be loaded.
//
// usage: node snarkjs_check_all.js DIR
const path = require("path");
const fs = require("fs");
const { execSync } = require("child_process");
let snarkjs;
try {
  snarkjs = require("snarkjs");
} catch (_) {
  try {
    const root = execSync("npm root -g", { stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    snarkjs = require(path.join(root, "snarkjs"));
  } catch (e) {
    console.error("cannot load snarkjs: " + e.message);
    process.exit(2);
  }
}
const quiet = { info() {}, warn() {}, debug() {}, error(m) { console.error(m); } };
(async () => {
  const dir = process.argv[2];
  let ok = 0, bad = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".r1cs")).sort()) {
    const r1cs = path.join(dir, f);
    const info = await snarkjs.r1cs.info(r1cs, quiet);
    const stem = f.slice(0, -5);
    for (const w of fs.readdirSync(dir).filter((w) => w.startsWith(stem + "_e") && w.endsWith(".wtns"))) {
      const res = await snarkjs.wtns.check(r1cs, path.join(dir, w), quiet);
      if (res) ok++; else { bad++; console.log("NOT CORRECT " + w); }
    }
    console.log(f + " constraints=" + info.nConstraints + " wires=" + info.nVars);
  }
  console.log("witnesses correct=" + ok + " incorrect=" + bad);
  process.exit(bad ? 1 : 0);
})();
