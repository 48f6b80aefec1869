// Checks every exported block of a directory in one node process (snarkjs as a library, so
// the corpus takes seconds, not a process start per file): `r1cs.info` reads each NAME.r1cs,
// `wtns.check` checks NAME.wtns against it as it is (execution 0, its type-2 section) and each
// later execution (a type-3 section) as a one-witness file cut out of it: the file's first 64
// bytes (head and header section) and a type-2 section of that execution's values. Prints one
// line per block and a summary; exits 1 if a witness is incorrect, 2 if snarkjs cannot be
// loaded.
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
// The files to check for a block's .wtns: itself, then one file per type-3 section.
function executions(file) {
  const bytes = fs.readFileSync(file);
  const files = [file];
  let pos = 12;
  for (let s = 0; s < bytes.readUInt32LE(8); s++) {
    const kind = bytes.readUInt32LE(pos);
    const size = Number(bytes.readBigUInt64LE(pos + 4));
    if (kind === 3) {
      const head = Buffer.from(bytes.subarray(0, 64));
      head.writeUInt32LE(2, 8);
      const section = Buffer.alloc(12);
      section.writeUInt32LE(2, 0);
      section.writeBigUInt64LE(BigInt(size), 4);
      const single = file.replace(/\.wtns$/, "_e" + files.length + ".wtns");
      fs.writeFileSync(single, Buffer.concat([head, section, bytes.subarray(pos + 12, pos + 12 + size)]));
      files.push(single);
    }
    pos += 12 + size;
  }
  return files;
}
const quiet = { info() {}, warn() {}, debug() {}, error(m) { console.error(m); } };
(async () => {
  const dir = process.argv[2];
  let ok = 0, bad = 0;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".r1cs")).sort()) {
    const r1cs = path.join(dir, f);
    const info = await snarkjs.r1cs.info(r1cs, quiet);
    const stem = f.slice(0, -5);
    const wtns = path.join(dir, stem + ".wtns");
    for (const w of fs.existsSync(wtns) ? executions(wtns) : []) {
      const res = await snarkjs.wtns.check(r1cs, w, quiet);
      if (res) ok++; else { bad++; console.log("NOT CORRECT " + w); }
    }
    console.log(f + " constraints=" + info.nConstraints + " wires=" + info.nVars);
  }
  console.log("witnesses correct=" + ok + " incorrect=" + bad);
  process.exit(bad ? 1 : 0);
})();
