// Make a memory snapshot of the bare Pyodide interpreter, reproducibly, from the
// pinned and verified files in pyodide_assets/ (a derived file: never an official one).
//
//   node scripts/make_pyodide_snapshot.mjs [OUT_DIR]     (default: pyodide_assets/derived)
//
// Writes OUT_DIR/pyodide-snapshot-<build id>-<sha256>.bin.gz (the snapshot, gzip -9;
// hosts do not compress unknown binary types, so it ships compressed) and
// OUT_DIR/pyodide-snapshot.json, what a loader checks before use: Pyodide version,
// BUILD_ID, sha256 of the core files the snapshot belongs to, sha256 of the raw snapshot.
//
// Uses the pinned Pyodide's private API: loadPyodide({_makeSnapshot: true}), makeMemorySnapshot().
// What the snapshot freezes, and how this script keeps the bytes identical run to run:
// - str/bytes hash secret: chosen at interpreter start and kept in the heap, so every restore
//   hashes alike.  It is fixed here (PYTHONHASHSEED from the build id, then the variable is
//   removed from os.environ) so that two runs give the same bytes.
// - `random` (imported while Pyodide boots) is seeded here with a constant; a loader must
//   reseed it after the restore (random.seed()), as pyodide/pyodide#4652 says.
// - os.environ as it was at snapshot time: env passed to loadPyodide at restore time reaches
//   only the C environment, so a loader sets os.environ itself.
// - loadPyodide's steps after the bootstrap (sys.path.insert(0, "")) run again at every
//   restore, so their effect is undone here.
// - the wall clock: boot-time timestamps stay in the heap (the mtimes that importlib's
//   FileFinder caches, for one), so Date.now() is pinned to a past instant while booting
//   ($SOURCE_DATE_EPOCH, else 2000-01-01); the restored file system is newer, so those
//   caches are refreshed on first use.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const FORMAT = 1;
const CORE_FILES = ["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const assets = join(root, "pyodide_assets");
const files = join(assets, "files");
const outDir = process.argv[2] || join(assets, "derived");

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/* sha256 of each core file, after checking it against manifest.json. */
function verifiedCoreHashes(manifest) {
  const pinned = new Map(manifest.files.map((entry) => [entry.name, entry.sha256]));
  const hashes = {};
  for (const name of CORE_FILES) {
    const actual = sha256(readFileSync(join(files, name)));
    if (actual !== pinned.get(name)) {
      throw new Error(`${join(files, name)}: sha256 ${actual} is not the one in manifest.json (${pinned.get(name)}); run make assets`);
    }
    hashes[name] = actual;
  }
  return hashes;
}

/* The BUILD_ID that pyodide.js checks snapshots against. */
function buildId() {
  const match = readFileSync(join(files, "pyodide.js"), "utf8").match(/BUILD_ID:"([0-9a-f]{64})"/);
  if (!match) throw new Error(`${join(files, "pyodide.js")}: no BUILD_ID found; is this the pinned Pyodide?`);
  return match[1];
}

const BOOT_CLOCK_MS = 1000 * Number(process.env.SOURCE_DATE_EPOCH || 946684800);

/* The bare interpreter's snapshot, booted with the clock pinned. */
async function makeSnapshot(id) {
  const { loadPyodide } = createRequire(import.meta.url)(join(files, "pyodide.js"));
  const realNow = Date.now;
  Date.now = () => BOOT_CLOCK_MS;
  try {
    return await bootAndSnapshot(loadPyodide, id);
  } finally {
    Date.now = realNow;
  }
}

async function bootAndSnapshot(loadPyodide, id) {
  const pyodide = await loadPyodide({
    indexURL: files + "/",
    lockFileURL: join(assets, "pyodide-lock.json"),
    env: { PYTHONHASHSEED: String(parseInt(id.slice(0, 8), 16)) },
    _makeSnapshot: true,
  });
  if (typeof pyodide.makeMemorySnapshot !== "function") {
    throw new Error(`Pyodide ${pyodide.version} has no makeMemorySnapshot`);
  }
  pyodide.runPython(`
import os, random, sys
del os.environ["PYTHONHASHSEED"]
sys.path.remove("")
random.seed(0)
`);
  return { version: pyodide.version, bytes: pyodide.makeMemorySnapshot() };
}

const manifest = JSON.parse(readFileSync(join(assets, "manifest.json"), "utf8"));
const core = verifiedCoreHashes(manifest);
const id = buildId();
const { version, bytes } = await makeSnapshot(id);
if (version !== manifest.pyodide_version) {
  throw new Error(`pyodide.js says ${version}, manifest.json ${manifest.pyodide_version}`);
}
const raw = sha256(bytes);
const gz = gzipSync(bytes, { level: 9 });
const name = `pyodide-snapshot-${id.slice(0, 12)}-${raw.slice(0, 12)}.bin.gz`;
mkdirSync(outDir, { recursive: true });
for (const old of readdirSync(outDir)) if (/^pyodide-snapshot-.*\.bin\.gz$/.test(old)) rmSync(join(outDir, old));
writeFileSync(join(outDir, name), gz);
const record = {
  format: FORMAT,
  made_by: "scripts/make_pyodide_snapshot.mjs",
  file: name,
  pyodide_version: version,
  build_id: id,
  core_sha256: core,
  snapshot_sha256: raw,
  snapshot_bytes: bytes.length,
  gzip_sha256: sha256(gz),
  gzip_bytes: gz.length,
};
writeFileSync(join(outDir, "pyodide-snapshot.json"), JSON.stringify(record, null, 1) + "\n");
console.log(`wrote ${join(outDir, name)}: ${bytes.length} bytes, ${gz.length} gzipped`);
