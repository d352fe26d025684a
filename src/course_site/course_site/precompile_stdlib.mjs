// A derived copy of Pyodide's python_stdlib.zip with a .pyc beside each .py that booting
// Python and importing the preloaded packages, numpy and matplotlib load (the .py stay, for
// tracebacks).  Compiled by Pyodide's own Python, so the magic number and flags match;
// unchecked-hash .pyc, entries in the official order with their dates: the bytes depend on
// the inputs only.  The site build (derived_stdlib.py) runs it on verified files.
//   node precompile_stdlib.mjs <pyodide files dir> <lock file> <out.zip> <packages,...> <module> ...
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const [filesDir, lockFile, outFile, packageList, ...modules] = process.argv.slice(2);
if (!packageList) {
  console.error("usage: node precompile_stdlib.mjs <pyodide files dir> <lock file> <out.zip> <packages,...> <module> ...");
  process.exit(2);
}
const indexURL = resolve(filesDir) + "/";
const { loadPyodide } = createRequire(import.meta.url)(indexURL + "pyodide.js");

const COMPILE = `
import importlib, importlib.util, os, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
os.environ["MPLBACKEND"] = "agg"
for name in MODULES:
    importlib.import_module(name)
STDLIB = "/lib/python312.zip/"
used = {m.__file__[len(STDLIB):] for m in list(sys.modules.values())
        if (getattr(m, "__file__", None) or "").startswith(STDLIB)}
with zipfile.ZipFile("/lib/python312.zip") as src, zipfile.ZipFile(TARGET, "w", zipfile.ZIP_DEFLATED) as out:
    for info in src.infolist():
        data = src.read(info)
        out.writestr(info, data)
        if info.filename in used and info.filename.endswith(".py"):
            code = compile(data, STDLIB + info.filename, "exec", dont_inherit=True)
            pyc = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
            pyc.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(pyc, bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False)))
`;

const packages = packageList.split(",").filter(Boolean);
const pyodide = await loadPyodide({ indexURL, lockFileURL: resolve(lockFile), packages, stdout: () => {}, stderr: () => {} });
const target = "/tmp/python_stdlib-pyc.zip";
pyodide.runPython(COMPILE, { globals: pyodide.toPy({ TARGET: target, MODULES: modules }) });
writeFileSync(outFile, pyodide.FS.readFile(target));
