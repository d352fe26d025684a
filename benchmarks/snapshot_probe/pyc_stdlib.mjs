// The pre-compiled stdlib lever, measured in Node: derived copies of python_stdlib.zip with
// an unchecked-hash .pyc beside each .py, compiled by Pyodide's own Python: "all" (every
// module) and "used" (only the modules that booting and importing numpy and matplotlib
// load); then standard boots to "numpy imported" with the official and the "all" zip,
// interleaved.  The zips are left in OUT_DIR for run.py --only pyc.
//   node benchmarks/snapshot_probe/pyc_stdlib.mjs [PAIRS] [OUT_DIR]
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const files = join(root, "pyodide_assets/files") + "/";
const lockFileURL = join(root, "pyodide_assets/pyodide-lock.json");
const { loadPyodide } = createRequire(import.meta.url)(join(files, "pyodide.js"));

const COMPILE = `
import importlib.util, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
STDLIB = "/lib/python312.zip/"
used = {m.__file__[len(STDLIB):] for m in list(sys.modules.values()) if (getattr(m, "__file__", None) or "").startswith(STDLIB)}
with zipfile.ZipFile("/lib/python312.zip") as src, zipfile.ZipFile(TARGET, "w", zipfile.ZIP_DEFLATED) as out:
    for info in src.infolist():
        data = src.read(info)
        out.writestr(info, data)
        if info.filename.endswith(".py") and (not ONLY_USED or info.filename in used):
            try:
                code = compile(data, "/lib/python312.zip/" + info.filename, "exec", dont_inherit=True)
            except SyntaxError:
                continue
            pyc = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
            pyc.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(pyc, bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False)))
`;

/* Both derived zips, written to outDir; returns their paths. */
async function derivedZips(outDir) {
  const pyodide = await loadPyodide({ indexURL: files, lockFileURL, packages: ["numpy", "matplotlib"], stdout: () => {} });
  pyodide.runPython("import os; os.environ['MPLBACKEND'] = 'agg'; import numpy, matplotlib.pyplot");
  const paths = {};
  for (const [name, onlyUsed] of [["all", false], ["used", true]]) {
    const target = `/tmp/stdlib-${name}.zip`;
    pyodide.runPython(COMPILE, { globals: pyodide.toPy({ TARGET: target, ONLY_USED: onlyUsed }) });
    paths[name] = join(outDir, `python_stdlib-pyc-${name}.zip`);
    writeFileSync(paths[name], pyodide.FS.readFile(target));
  }
  return paths;
}

async function timeToNumpy(stdLibURL) {
  const start = performance.now();
  const pyodide = await loadPyodide({ indexURL: files, lockFileURL, stdLibURL, packages: ["numpy"], stdout: () => {} });
  const booted = performance.now();
  pyodide.runPython("import numpy");
  return { boot: booted - start, total: performance.now() - start };
}

const pairs = Number(process.argv[2] || 3);
const outDir = process.argv[3] || mkdtempSync(join(tmpdir(), "stdlib-pyc-"));
const zips = await derivedZips(outDir);
const derived = zips.all;
const size = (path) => statSync(path).size;
console.log(`official ${size(join(files, "python_stdlib.zip"))} bytes; all ${size(zips.all)}; used ${size(zips.used)} (in ${outDir})`);
for (let pair = 0; pair < pairs; pair++) {
  const order = pair % 2 ? [derived, undefined] : [undefined, derived];
  for (const zip of order) {
    const { boot, total } = await timeToNumpy(zip);
    console.log(`${zip ? "pyc" : "official"}  loadPyodide+numpy ${boot.toFixed(0)} ms, numpy imported ${total.toFixed(0)} ms`);
  }
}
