// Build matplotlib's font list inside Pyodide once, so learners don't wait for it.
//
// Pyodide's matplotlib keeps its font cache in site-packages/matplotlib/fontlist.json
// and builds it on the first import (seconds, in the browser). This script runs that
// build in Node with the pinned, verified Pyodide files and writes the result to
// pyodide_assets/matplotlib-fontlist.json, which the site ships and the worker installs.
// Run it after bumping Pyodide:  make assets && node scripts/matplotlib_font_cache.mjs
import { cpSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const assets = join(root, "pyodide_assets");
const index = mkdtempSync(join(tmpdir(), "pyodide-"));
for (const name of readdirSync(join(assets, "files"))) cpSync(join(assets, "files", name), join(index, name));
cpSync(join(assets, "pyodide-lock.json"), join(index, "pyodide-lock.json"));

const { loadPyodide } = createRequire(import.meta.url)(join(index, "pyodide.js"));
const pyodide = await loadPyodide({ indexURL: index + "/" });
await pyodide.loadPackage(["matplotlib"], { messageCallback: () => {} });
const path = pyodide.runPython(`
import os
os.environ["MPLBACKEND"] = "agg"
from matplotlib import font_manager
str(font_manager.Path(font_manager.__file__).with_name("fontlist.json"))
`);
const out = join(assets, "matplotlib-fontlist.json");
writeFileSync(out, pyodide.FS.readFile(path));
console.log(`wrote ${out}`);
