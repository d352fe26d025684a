// Two derived zips of bytecode for what booting Python and importing the preloaded packages,
// numpy and matplotlib load:
//  - <out.zip>: a copy of Pyodide's python_stdlib.zip with a .pyc beside each such .py (the .py
//    stay, for tracebacks), entries in the official order with their dates;
//  - <out-packages.zip>: the .pyc of the installed wheels' modules that importing the
//    <preloaded,...> packages loads, at the paths that sys.pycache_prefix = "/" + PACKAGES_PREFIX
//    gives them (the worker extracts it there at boot; matplotlib's would be 2.3 MB more).
// Compiled by Pyodide's own Python, so the magic number and flags match; unchecked-hash .pyc:
// the bytes depend on the inputs only.  The site build (derived_bytecode.py) runs it on verified files.
//   node compile_bytecode.mjs <pyodide files dir> <lock file> <out.zip> <out-packages.zip> <packages,...> <preloaded,...> <module> ...
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const [filesDir, lockFile, outFile, outPackagesFile, packageList, preloadedList, ...modules] = process.argv.slice(2);
if (!packageList) {
  console.error("usage: node compile_bytecode.mjs <pyodide files dir> <lock file> <out.zip> <out-packages.zip> <packages,...> <preloaded,...> <module> ...");
  process.exit(2);
}
const indexURL = resolve(filesDir) + "/";
const { loadPyodide } = createRequire(import.meta.url)(indexURL + "pyodide.js");

const COMPILE = `
import importlib, importlib.util, os, site, sys, zipfile
from importlib._bootstrap_external import _code_to_hash_pyc
os.environ["MPLBACKEND"] = "agg"
SITE_PACKAGES = site.getsitepackages()[0] + "/"
for name in PRELOADED:
    importlib.import_module(name)
preloaded = sorted(m.__file__ for m in list(sys.modules.values())
                   if (getattr(m, "__file__", None) or "").startswith(SITE_PACKAGES) and m.__file__.endswith(".py"))
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

sys.pycache_prefix = "/" + PACKAGES_PREFIX
with zipfile.ZipFile(PACKAGES_TARGET, "w", zipfile.ZIP_DEFLATED) as out:
    for path in preloaded:
        with open(path, "rb") as source:
            data = source.read()
        code = compile(data, path, "exec", dont_inherit=True)
        pyc = zipfile.ZipInfo(importlib.util.cache_from_source(path)[len(sys.pycache_prefix) + 1:])
        pyc.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(pyc, bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False)))
`;

const packages = packageList.split(",").filter(Boolean);
const pyodide = await loadPyodide({ indexURL, lockFileURL: resolve(lockFile), packages, stdout: () => {}, stderr: () => {} });
const [target, packagesTarget] = ["/tmp/python_stdlib-pyc.zip", "/tmp/site-packages-pyc.zip"];
const PACKAGES_PREFIX = "course-pyc"; // worker/boot.js extracts the packages' zip under "/" + this
pyodide.runPython(COMPILE, {
  globals: pyodide.toPy({
    TARGET: target, PACKAGES_TARGET: packagesTarget, PACKAGES_PREFIX, MODULES: modules,
    PRELOADED: preloadedList.split(",").filter(Boolean),
  }),
});
writeFileSync(outFile, pyodide.FS.readFile(target));
writeFileSync(outPackagesFile, pyodide.FS.readFile(packagesTarget));
