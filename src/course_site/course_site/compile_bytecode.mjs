// Two derived zips of bytecode for what booting Python and importing the preloaded packages load:
//  - <out.zip>: the boot standard library: a .pyc (no .py) of each module of Pyodide's
//    python_stdlib.zip that booting Python, the worker's own modules (<module> ...) and the
//    <preloaded,...> packages import, entries in the official order with their dates, and
//    course-stdlib-index.json: the official zip's sha256 and every module it holds, which the
//    worker's stdlib_finder.py imports from the official zip on first use;
//  - <out-packages.zip>: the .pyc of the installed wheels' modules that importing the
//    <preloaded,...> packages loads, at the paths that sys.pycache_prefix = "/" + PACKAGES_PREFIX
//    gives them (the worker extracts it there at boot; matplotlib's would be 2.3 MB more).
// Compiled by Pyodide's own Python, so the magic number and flags match; unchecked-hash .pyc:
// the bytes depend on the inputs only.  The site build (derived_bytecode.py) runs it on verified files.
//   node compile_bytecode.mjs <pyodide files dir> <lock file> <out.zip> <out-packages.zip> <packages,...> <preloaded,...> <module> ...
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { BYTECODE_PREFIX } from "./assets/js/worker/places.js";

const [filesDir, lockFile, outFile, outPackagesFile, packageList, preloadedList, ...modules] = process.argv.slice(2);
if (!packageList) {
  console.error("usage: node compile_bytecode.mjs <pyodide files dir> <lock file> <out.zip> <out-packages.zip> <packages,...> <preloaded,...> <module> ...");
  process.exit(2);
}
const indexURL = resolve(filesDir) + "/";
const { loadPyodide } = createRequire(import.meta.url)(indexURL + "pyodide.js");

const COMPILE = `
import importlib, importlib.util, json, os, site, sys, zipfile
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

def module_name(path):
    name = path[: -len(".py")].replace("/", ".")
    return name.removesuffix(".__init__")

def pyc_entry(info, data):
    code = compile(data, STDLIB + info.filename, "exec", dont_inherit=True)
    entry = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
    entry.compress_type = zipfile.ZIP_DEFLATED
    return entry, bytes(_code_to_hash_pyc(code, importlib.util.source_hash(data), False))

with zipfile.ZipFile("/lib/python312.zip") as src, zipfile.ZipFile(TARGET, "w", zipfile.ZIP_DEFLATED) as out:
    for info in src.infolist():
        if info.filename in used and info.filename.endswith(".py"):
            out.writestr(*pyc_entry(info, src.read(info)))
    modules = sorted(module_name(info.filename) for info in src.infolist() if info.filename.endswith(".py"))
    index = zipfile.ZipInfo(INDEX, date_time=(1980, 1, 1, 0, 0, 0))
    index.compress_type = zipfile.ZIP_DEFLATED
    out.writestr(index, json.dumps({"official_sha256": OFFICIAL_SHA256, "modules": modules}, separators=(",", ":")))

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
const PACKAGES_PREFIX = BYTECODE_PREFIX.slice(1); // the worker extracts the packages' zip under "/" + this
pyodide.runPython(COMPILE, {
  globals: pyodide.toPy({
    TARGET: target, PACKAGES_TARGET: packagesTarget, PACKAGES_PREFIX, MODULES: modules,
    PRELOADED: preloadedList.split(",").filter(Boolean),
    INDEX: "course-stdlib-index.json", // stdlib_finder.py reads it from the boot stdlib
    OFFICIAL_SHA256: createHash("sha256").update(readFileSync(indexURL + "python_stdlib.zip")).digest("hex"),
  }),
});
writeFileSync(outFile, pyodide.FS.readFile(target));
writeFileSync(outPackagesFile, pyodide.FS.readFile(packagesTarget));
