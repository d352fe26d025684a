// Build matplotlib's font list inside Pyodide once, so learners don't wait for it.
//
// Pyodide's matplotlib keeps its font cache in site-packages/matplotlib/fontlist.json;
// the file in the pinned Pyodide's wheel has the wrong format version (390, not 330), so every
// first import rebuilds it (seconds, in the browser). This script runs that
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
// The marker becomes an attribute of the loaded FontManager, so tests can tell
// that the prebuilt list was used rather than rebuilt in the browser.
const fontList = JSON.parse(pyodide.FS.readFile(path, { encoding: "utf8" }));
fontList._course_prebuilt = `Pyodide ${pyodide.version}, scripts/matplotlib_font_cache.mjs`;
const out = join(assets, "matplotlib-fontlist.json");
writeFileSync(out, JSON.stringify(fontList, null, 1) + "\n");
console.log(`wrote ${out}`);
