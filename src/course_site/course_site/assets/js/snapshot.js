/* Boot Pyodide from a memory snapshot of the bare interpreter, when a valid one exists.
 *
 * The snapshot is a derived file (scripts/make_pyodide_snapshot.mjs) described by a
 * record (pyodide-snapshot.json, carried in runtime.json): its file name, the Pyodide
 * version and BUILD_ID it was made with, the sha256 of the core files and of the raw
 * snapshot.  It uses the pinned Pyodide's private API (loadPyodide's _loadSnapshot and
 * _makeSnapshot, makeMemorySnapshot()); every way this can fail ends in a normal boot:
 *
 *   no record, another version/build/wasm      refused before any download
 *   download fails, sha256 or header mismatch  refused; the normal boot runs after
 *   Pyodide rejects the snapshot               the normal boot runs after
 *   _loadSnapshot ignored (API gone)           Pyodide booted normally: nothing to do
 *   Cache Storage full or denied (making one)  nothing stored; the next visit boots normally
 *
 * What a restore does not restore by itself, and bootPyodide does: `random` is reseeded
 * (its state is in the snapshot), os.environ gets options.env (the snapshot holds the
 * environment of the interpreter that made it).  The str hash secret stays the snapshot's
 * (hash randomisation cannot be redone once strings are hashed): every restore of one
 * snapshot hashes alike, as under a fixed PYTHONHASHSEED.
 */

export const SNAPSHOT_FORMAT = 1;
const MAGIC = 0x706e7300; // Pyodide's snapshot header: "\0snp"
const HEADER_BUILD_ID = [16, 48]; // bytes of the BUILD_ID in that header

/* Why `record` may not be used with the running Pyodide, or null if it may.
 * expected: {pyodideVersion, buildId, wasmSha256, stdlibSha256}, from the site's own
 * manifest.  The stdlib zip must be the same bytes too: zipimport's index of it is in the heap. */
export function refusal(record, expected) {
  if (!record) return "no snapshot";
  if (record.format !== SNAPSHOT_FORMAT) return `snapshot format ${record.format}, expected ${SNAPSHOT_FORMAT}`;
  if (record.pyodide_version !== expected.pyodideVersion) {
    return `snapshot for Pyodide ${record.pyodide_version}, running ${expected.pyodideVersion}`;
  }
  if (record.build_id !== expected.buildId) return `snapshot for build ${record.build_id}, running ${expected.buildId}`;
  if (record.core_sha256?.["pyodide.asm.wasm"] !== expected.wasmSha256) return "snapshot for another pyodide.asm.wasm";
  if (record.core_sha256?.["python_stdlib.zip"] !== expected.stdlibSha256) return "snapshot for another python_stdlib.zip";
  return null;
}

/* The snapshot's raw bytes, checked against its record; rejects on any mismatch.
 * url: where the gzipped file is (the record's `file`, resolved by the caller). */
export async function fetchSnapshot(record, url, fetchFn = fetch) {
  const response = await fetchFn(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const raw = response.body.pipeThrough(new DecompressionStream("gzip"));
  const bytes = new Uint8Array(await new Response(raw).arrayBuffer());
  if (bytes.length !== record.snapshot_bytes) throw new Error(`${url}: ${bytes.length} bytes, expected ${record.snapshot_bytes}`);
  const digest = await sha256Hex(bytes);
  if (digest !== record.snapshot_sha256) throw new Error(`${url}: sha256 ${digest}, expected ${record.snapshot_sha256}`);
  const header = headerBuildId(bytes);
  if (header !== record.build_id) throw new Error(`${url}: header says build ${header}, record ${record.build_id}`);
  return bytes;
}

/* The shipped snapshot's bytes (a promise that rejects on any failure), or null when
 * it is refused before download; report(reason) hears why.  Call it first thing (it
 * needs no Pyodide), so that the download runs beside the wasm's.
 * settings: {record, url (of its file), expected (see refusal)}. */
export function loadSnapshotIfValid(settings, fetchFn = fetch, report = () => {}) {
  const refused = refusal(settings?.record, settings?.expected || {});
  if (refused) {
    report(refused);
    return null;
  }
  return fetchSnapshot(settings.record, settings.url, fetchFn);
}

/* Like loadPyodide(options), from `bytes` (a promise of a snapshot, or null) when it
 * restores.  Returns {pyodide, restored, reason}: why the normal boot ran, or null.
 * Pass the promise before it settles: it downloads while Pyodide fetches its wasm. */
export async function bootPyodide(options, bytes) {
  if (!bytes) return { pyodide: await self.loadPyodide(options), restored: false, reason: "no snapshot" };
  let pyodide;
  try {
    pyodide = await self.loadPyodide({ ...options, _loadSnapshot: bytes });
  } catch (err) {
    Promise.resolve(bytes).catch(() => {}); // its rejection, if any, is the error caught here
    return { pyodide: await self.loadPyodide(options), restored: false, reason: `snapshot not used: ${err.message || err}` };
  }
  if (!restoredFromSnapshot(pyodide)) return { pyodide, restored: false, reason: "this Pyodide ignores _loadSnapshot" };
  afterRestore(pyodide, options.env || {});
  return { pyodide, restored: true, reason: null };
}

/* True when loadPyodide took the snapshot path (it then skips the C main). */
function restoredFromSnapshot(pyodide) {
  return pyodide._module?.noInitialRun === true;
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

/* Make a snapshot of a second, bare interpreter (booted here with _makeSnapshot) and
 * keep it in Cache Storage under `key`.  Returns the stored byte count, or null with
 * nothing stored (private API missing, storage full or denied).  Costs one bare boot. */
export async function makeAndStoreSnapshot(options, cacheName, key) {
  if (typeof self.loadPyodide !== "function" || !self.caches) return null;
  const maker = await self.loadPyodide({ ...options, packages: [], _makeSnapshot: true });
  if (typeof maker.makeMemorySnapshot !== "function") return null;
  const sys = maker.pyimport("sys");
  const path = sys.path;
  path.remove(""); // loadPyodide inserts it again after a restore
  path.destroy();
  sys.destroy();
  const bytes = maker.makeMemorySnapshot();
  try {
    const cache = await caches.open(cacheName);
    await cache.put(key, new Response(bytes, { headers: { "Content-Type": "application/octet-stream" } }));
  } catch {
    return null; // QuotaExceededError, SecurityError: the next visit boots normally
  }
  return bytes.length;
}

/* The kept snapshot's bytes, or null; they are used only with the Pyodide they were made
 * by (loadPyodide checks the BUILD_ID in their header and throws otherwise). */
export async function keptSnapshot(cacheName, key) {
  try {
    const response = await (await caches.open(cacheName)).match(key);
    if (!response) return null;
    const bytes = new Uint8Array(await response.arrayBuffer());
    return new Uint32Array(bytes.buffer, 0, 1)[0] === MAGIC ? bytes : null;
  } catch {
    return null;
  }
}

function headerBuildId(bytes) {
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset + HEADER_BUILD_ID[0], (HEADER_BUILD_ID[1] - HEADER_BUILD_ID[0]) / 4);
  return Array.from(words, (word) => word.toString(16).padStart(8, "0")).join("");
}

async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
