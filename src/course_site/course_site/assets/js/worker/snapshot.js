/* Later visits boot from a memory snapshot of the bare interpreter, made in this
 * browser once Python is idle after a normal boot (in a worker of its own,
 * snapshot_maker.js, which a run stops), and kept in the Pyodide cache
 * (../protocol.js: snapshotURL, cleaned with that cache on a Pyodide upgrade).
 *
 * It uses Pyodide 0.27's private API (loadPyodide's _loadSnapshot and _makeSnapshot,
 * makeMemorySnapshot()); every way this can fail ends in a normal boot:
 *
 *   nothing kept, storage unavailable           normal boot
 *   kept for another build, version or stdlib   refused (record), deleted, normal boot
 *   corrupt (header, size or sha256)            refused, deleted, normal boot
 *   Pyodide rejects it                          deleted, normal boot
 *   makeMemorySnapshot missing                  nothing made
 *   Cache Storage full or denied (making one)   nothing stored
 *
 * What a restore does not restore by itself, and bootPyodide does: `random` is reseeded
 * (its state is in the heap) and os.environ gets options.env.  The str hash secret stays the
 * snapshot's (strings are hashed already): each learner's snapshot has its own random
 * secret, shared by that learner's restores, as under a fixed PYTHONHASHSEED.
 */
const FORMAT = 1;
const RECORD_HEADER = "X-Course-Snapshot"; // the record, as JSON, on the kept Response
const MAGIC = 0x706e7300; // Pyodide's snapshot header: "\0snp"
const BUILD_ID_BYTES = [16, 48]; // where the BUILD_ID is in that header

/** What a snapshot must match to be used here: {pyodideVersion, buildId, stdlibSha256}. */
function refusal(record, expected) {
  if (record?.format !== FORMAT) return `snapshot format ${record?.format}, expected ${FORMAT}`;
  if (record.pyodide_version !== expected.pyodideVersion) return `snapshot for Pyodide ${record.pyodide_version}`;
  if (record.build_id !== expected.buildId) return `snapshot for build ${record.build_id}`;
  if (record.stdlib_sha256 !== expected.stdlibSha256) return `snapshot for another stdlib (${record.stdlib_sha256})`;
  return null;
}

/* Why `bytes` are not the snapshot `record` describes, or null. */
async function corruption(bytes, record) {
  if (bytes.length < BUILD_ID_BYTES[1] || new DataView(bytes.buffer).getUint32(0, true) !== MAGIC) {
    return "corrupt snapshot: no snapshot header";
  }
  if (headerBuildId(bytes) !== record.build_id) return "corrupt snapshot: header of another build";
  if (bytes.length !== record.bytes) return `corrupt snapshot: ${bytes.length} bytes, expected ${record.bytes}`;
  const digest = await sha256Hex(bytes);
  return digest === record.sha256 ? null : `corrupt snapshot: sha256 ${digest}`;
}

/**
 * The snapshot kept under `key` in cache `cacheName` for `expected` (see refusal):
 * {bytes} to restore from, or {reason} why there is none.  A refused entry is deleted.
 */
export async function keptSnapshot(cacheName, key, expected) {
  try {
    const cache = await caches.open(cacheName);
    const response = await cache.match(key);
    if (!response) return { reason: "no snapshot" };
    const record = JSON.parse(response.headers.get(RECORD_HEADER) || "null");
    let reason = refusal(record, expected);
    const bytes = reason ? null : new Uint8Array(await response.arrayBuffer());
    reason ??= await corruption(bytes, record);
    if (!reason) return { bytes };
    await cache.delete(key);
    return { reason };
  } catch (err) {
    return { reason: `snapshot storage unavailable: ${err.name || err}` };
  }
}

/** Forget the snapshot under `key` (Pyodide rejected it). */
export async function dropSnapshot(cacheName, key) {
  await caches.open(cacheName).then((cache) => cache.delete(key)).catch(() => {});
}

/**
 * loadPyodide(options), from the snapshot `bytes` when they restore.  Returns
 * {pyodide, restored, reason}: reason says why the normal boot ran, or is null.
 */
export async function bootPyodide(options, bytes) {
  let pyodide;
  try {
    pyodide = await self.loadPyodide({ ...options, _loadSnapshot: bytes });
  } catch (err) {
    return { pyodide: await self.loadPyodide(options), restored: false, reason: `snapshot not used: ${err.message || err}` };
  }
  if (pyodide._module?.noInitialRun !== true) return { pyodide, restored: false, reason: "this Pyodide ignores _loadSnapshot" };
  afterRestore(pyodide, options.env || {});
  return { pyodide, restored: true, reason: null };
}

/* Make the restored interpreter look freshly started where the snapshot froze it. */
function afterRestore(pyodide, env) {
  const random = pyodide.pyimport("random");
  random.seed();
  random.destroy();
  const environ = pyodide.pyimport("os").environ;
  for (const [name, value] of Object.entries(env)) environ.__setitem__(name, String(value));
  environ.destroy();
}

/**
 * Make a snapshot of a bare interpreter (booted here with `options` and _makeSnapshot;
 * run in snapshot_maker.js, a worker of its own) and keep it under `key` with `record`
 * ({pyodide_version, build_id, stdlib_sha256}).  Returns {bytes: count stored} or {reason}
 * why nothing was stored (private API missing, storage full or denied).
 */
export async function makeSnapshot(options, cacheName, key, record) {
  const maker = await self.loadPyodide({ ...options, packages: [], _makeSnapshot: true });
  if (typeof maker.makeMemorySnapshot !== "function") return { reason: "makeMemorySnapshot missing" };
  const sys = maker.pyimport("sys");
  const path = sys.path;
  path.remove(""); // loadPyodide inserts it again after a restore
  path.destroy();
  sys.destroy();
  const bytes = maker.makeMemorySnapshot();
  const full = { format: FORMAT, ...record, bytes: bytes.length, sha256: await sha256Hex(bytes) };
  try {
    const cache = await caches.open(cacheName);
    const headers = { "Content-Type": "application/octet-stream", [RECORD_HEADER]: JSON.stringify(full) };
    await cache.put(key, new Response(bytes, { headers }));
  } catch (err) {
    return { reason: `not stored: ${err.name || err}` }; // QuotaExceededError, SecurityError
  }
  return { bytes: bytes.length };
}

function headerBuildId(bytes) {
  const [start, end] = BUILD_ID_BYTES;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + start, (end - start) / 4);
  return Array.from(words, (word) => word.toString(16).padStart(8, "0")).join("");
}

async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
