/* Later visits boot from a memory snapshot of the bare interpreter, made in this
 * browser once Python is idle after a normal boot (in a worker of its own,
 * snapshot_maker.js, which a run stops), and kept in the origin private file system:
 * one file per site (SNAPSHOT_FILE), whatever the Pyodide version (one of another version
 * is refused by its record and replaced).  main.js has it read (readKeptFile) at once by a
 * worker of its own, snapshot_reader.js, with a synchronous access handle, and hashed there:
 * the 21 MB snapshot and numpy's 12 MB of files cost the Python worker's thread, which loads
 * Pyodide's scripts meanwhile, no time (read and hashed on that thread they took ~150 ms of
 * it on a later visit); Cache Storage took 0.5-0.9 s to hand them over (its bytes come through
 * the browser process, busy serving the page).  The file holds the
 * snapshot, then the preloaded packages' installed files (package_files.js), then its record
 * (JSON), the record's length (uint32, little-endian) and TRAILER_MAGIC.
 *
 * It uses Pyodide 0.27's private API (loadPyodide's _loadSnapshot and _makeSnapshot,
 * makeMemorySnapshot()); every way this can fail ends in a normal boot:
 *
 *   nothing kept, storage unavailable           normal boot (no origin private file system or no
 *                                               synchronous access handles: none is made either)
 *   the file held by another tab's worker       read as a File instead of with a sync access handle
 *   the file system or the reader silent 20 s   normal boot (main.js READ_MS); its compiled libraries
 *                                               silent 20 s: the loader compiles them itself
 *   kept for another build, version or stdlib   refused (record), deleted, normal boot
 *   corrupt (trailer, header, size or sha256)   refused, deleted, normal boot
 *   its package files corrupt (sha256, layout)  restored, the wheels unpacked, deleted
 *   restored, then Python fails to start        deleted (boot.js), so the next visit boots normally
 *   Pyodide rejects it                          deleted, normal boot
 *   makeMemorySnapshot missing                  nothing made
 *   storage full or denied (making one)         nothing stored
 *
 * What a restore does not restore by itself, and bootPyodide does: `random` is reseeded
 * (its state is in the heap) and os.environ gets options.env.  The str hash secret stays the
 * snapshot's (strings are hashed already): each learner's snapshot has its own random
 * secret, shared by that learner's restores, as under a fixed PYTHONHASHSEED.
 */
const SNAPSHOT_DIRECTORY = "course-snapshots"; // in the origin private file system
/* The site's snapshot file: named after the site's assets/course/ (this file is in its
 * runner-<hash>/js/worker/), so that every build of the site keeps one file, in one place. */
const SNAPSHOT_FILE = `${encodeURIComponent(new URL("../../../", import.meta.url).href)}.bin`;

const FORMAT = 3; // 1: kept in Cache Storage; 2: without the package files
const MAGIC = 0x706e7300; // Pyodide's snapshot header: "\0snp"
const BUILD_ID_BYTES = [16, 48]; // where the BUILD_ID is in that header
const TRAILER_MAGIC = 0x31736373; // "scs1", the file's last 4 bytes
const TRAILER_BYTES = 8; // the record's length, then TRAILER_MAGIC

/** What a snapshot must match to be used here: {pyodideVersion, buildId, stdlibSha256}. */
function refusal(record, expected) {
  if (record?.format !== FORMAT) return `snapshot format ${record?.format}, expected ${FORMAT}`;
  if (record.pyodide_version !== expected.pyodideVersion) return `snapshot for Pyodide ${record.pyodide_version}`;
  if (record.build_id !== expected.buildId) return `snapshot for build ${record.build_id}`;
  if (record.stdlib_sha256 !== expected.stdlibSha256) return `snapshot for another stdlib (${record.stdlib_sha256})`;
  return null;
}

/* Why `bytes` (whose sha256 is `digest`) are not the snapshot `record` describes, or null. */
function corruption(bytes, digest, record) {
  if (!Array.isArray(record.packages?.wheels)) return "corrupt snapshot: no package files in its record";
  if (bytes.length < BUILD_ID_BYTES[1] || new DataView(bytes.buffer).getUint32(0, true) !== MAGIC) {
    return "corrupt snapshot: no snapshot header";
  }
  if (headerBuildId(bytes) !== record.build_id) return "corrupt snapshot: header of another build";
  if (bytes.length !== record.bytes) return `corrupt snapshot: ${bytes.length} bytes, expected ${record.bytes}`;
  return digest === record.sha256 ? null : `corrupt snapshot: sha256 ${digest}`;
}

/* The directory of the snapshots (a FileSystemDirectoryHandle), created if asked. */
async function snapshotDirectory(create) {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(SNAPSHOT_DIRECTORY, { create });
}

/* The site's snapshot file (a FileSystemFileHandle), created if asked. */
async function snapshotFile(create) {
  return (await snapshotDirectory(create)).getFileHandle(SNAPSHOT_FILE, { create });
}

/** Why this browser cannot keep a snapshot here (no origin private file system, or no synchronous
 * access handles to write one with, as in a page's own thread), or null when it can.  Feature
 * detection: WebKitGTK, for one, ships with the origin private file system off. */
export function missingStorage() {
  if (typeof globalThis.navigator?.storage?.getDirectory !== "function") return "no origin private file system";
  if (typeof globalThis.FileSystemSyncAccessHandle !== "function") return "no synchronous access handles";
  return null;
}

/** Why the site has no kept snapshot file ("no snapshot", or the storage's problem), or null when it has one. */
export async function missingSnapshotFile() {
  if (typeof globalThis.navigator?.storage?.getDirectory !== "function") {
    return "snapshot storage unavailable: no origin private file system";
  }
  try {
    await snapshotFile(false);
    return null;
  } catch (err) {
    return storageProblem(err);
  }
}

/**
 * Read the site's kept snapshot file and compute its sha256 digests (run in snapshot_reader.js,
 * a worker of its own, so that the Python worker's thread spends none of its time on the 33 MB):
 * {file: {bytes, packageBytes, record, sha256: {snapshot, packages}}}, or {reason} why there is
 * none, with `drop` when the file is corrupt and is to be deleted.
 */
export async function readKeptFile() {
  let handle;
  try {
    handle = await openForReading(await snapshotFile(false));
  } catch (err) {
    return { reason: storageProblem(err) };
  }
  let file;
  try {
    file = readSnapshotFile(handle);
  } catch (err) {
    return { reason: storageProblem(err) };
  } finally {
    handle.close();
  }
  if (file.reason) return { reason: file.reason, drop: true };
  const sha256 = { snapshot: await sha256Hex(file.bytes), packages: await sha256Hex(file.packageBytes) };
  return { file: { ...file, sha256 } };
}

/* The kept file open for reading: a synchronous access handle (exclusive: only Chromium knows a
 * read-only mode), or, where sync access handles are missing or the file is held (another tab's
 * worker reads or writes it), its bytes read as a File.  Either answers getSize(), read(view, {at})
 * and close(). */
async function openForReading(fileHandle) {
  if (typeof fileHandle.createSyncAccessHandle === "function") {
    try {
      return await fileHandle.createSyncAccessHandle();
    } catch (err) {
      if (err.name !== "NoModificationAllowedError") throw err;
    }
  }
  return bytesReader(new Uint8Array(await (await fileHandle.getFile()).arrayBuffer()));
}

/* A sync access handle's reading methods over `bytes`. */
function bytesReader(bytes) {
  return {
    getSize: () => bytes.length,
    read(view, { at }) {
      const part = bytes.subarray(at, at + view.byteLength);
      new Uint8Array(view.buffer, view.byteOffset, view.byteLength).set(part);
      return part.length;
    },
    close() {},
  };
}

function storageProblem(err) {
  return err.name === "NotFoundError" ? "no snapshot" : `snapshot storage unavailable: ${err.name || err}`;
}

/* {bytes, packageBytes, record} from the open `handle`, or {reason} why the file is not a kept snapshot. */
function readSnapshotFile(handle) {
  const size = handle.getSize();
  const trailer = new DataView(new ArrayBuffer(TRAILER_BYTES));
  if (size < TRAILER_BYTES || handle.read(trailer, { at: size - TRAILER_BYTES }) !== TRAILER_BYTES
      || trailer.getUint32(4, true) !== TRAILER_MAGIC) {
    return { reason: "corrupt snapshot: no record" };
  }
  const recordBytes = trailer.getUint32(0, true);
  const payloadBytes = size - TRAILER_BYTES - recordBytes;
  if (payloadBytes < 0) return { reason: "corrupt snapshot: no record" };
  const recordText = new Uint8Array(recordBytes);
  handle.read(recordText, { at: payloadBytes });
  let record;
  try {
    record = JSON.parse(new TextDecoder().decode(recordText));
  } catch {
    return { reason: "corrupt snapshot: no record" };
  }
  const snapshotBytes = Number(record?.bytes);
  if (!(snapshotBytes >= 0 && snapshotBytes <= payloadBytes)) return { reason: "corrupt snapshot: size in its record" };
  const bytes = new Uint8Array(snapshotBytes);
  handle.read(bytes, { at: 0 });
  const packageBytes = new Uint8Array(payloadBytes - snapshotBytes);
  handle.read(packageBytes, { at: snapshotBytes });
  return { bytes, packageBytes, record };
}

/**
 * Start compiling the shared libraries among the kept package files of `file` (readKeptFile's),
 * numpy's 19 among them, so that a restore does not wait for them while it installs the
 * packages (run in snapshot_reader.js).  Their bytes are copied now.  Returns a Map: library
 * path -> promise of its WebAssembly.Module (rejected if it does not compile).
 */
export function compileKeptLibraries(file) {
  const compiling = new Map();
  for (const wheel of file.record.packages?.wheels || []) {
    const libraries = new Set(wheel.dynlibs);
    let at = wheel.offset;
    for (const [path, size] of wheel.files) {
      if (libraries.has(path)) compiling.set(path, WebAssembly.compile(file.packageBytes.subarray(at, at + size)));
      at += size;
    }
  }
  return compiling;
}

/**
 * The kept snapshot, from `reading` (a promise of readKeptFile's answer), for `expected`
 * (see refusal): {bytes, packages} to restore from, or {reason} why there is none.  A refused
 * file is deleted.  packages is a promise of the kept package files ({wheels, blob, libraries},
 * see package_files.js; libraries: `reading`'s promise of their compiled shared libraries, a
 * Map path -> WebAssembly.Module), or of null when corrupt.
 */
export async function keptSnapshot(reading, expected) {
  const { file, reason: unread, drop, libraries } = await reading;
  const reason = file ? refusal(file.record, expected) ?? corruption(file.bytes, file.sha256.snapshot, file.record) : unread;
  if (!reason) return { bytes: file.bytes, packages: checkedPackages(file, libraries) };
  if (file || drop) await dropSnapshot();
  return { reason };
}

/* The kept package files of `file` (readKeptFile's) {wheels, blob, libraries} if they are what
 * its record says, else null (the file is deleted). */
async function checkedPackages({ packageBytes: blob, sha256: { packages: digest }, record: { packages: described } }, libraries) {
  const why = blob.length !== described.bytes ? `sha256 of ${blob.length} bytes`
    : digest !== described.sha256 ? `sha256 ${digest}` : layoutProblem(described.wheels, blob.length);
  if (!why) return { wheels: described.wheels, blob, libraries };
  console.info(`course: kept package files not used (corrupt: ${why})`);
  await dropSnapshot();
  return null;
}

/* Why the wheels' files (each wheel's at its offset, one after another) do not tile `length` bytes, or null. */
function layoutProblem(wheels, length) {
  let at = 0;
  for (const wheel of wheels) {
    if (wheel.offset !== at || !Array.isArray(wheel.files) || !Array.isArray(wheel.dynlibs)) return `the record of ${wheel.file_name}`;
    for (const [path, size] of wheel.files) {
      if (typeof path !== "string" || !path.startsWith("/") || !(Number.isInteger(size) && size >= 0)) return `the record of ${wheel.file_name}`;
      at += size;
    }
  }
  return at === length ? null : `files of ${at} bytes in ${length}`;
}

/** Forget the kept snapshot (refused, or Pyodide rejected it). */
export async function dropSnapshot() {
  try {
    await (await snapshotDirectory(false)).removeEntry(SNAPSHOT_FILE);
  } catch {
    // nothing kept, or no storage: nothing to forget
  }
}

/**
 * loadPyodide(options), from the snapshot `bytes` when they restore, else bootNormally()
 * (a promise of a normally booted Pyodide).  Returns {pyodide, restored, reason}: reason
 * says why the normal boot ran, or is null.
 */
export async function bootPyodide(options, bytes, bootNormally) {
  let pyodide;
  try {
    pyodide = await self.loadPyodide({ ...options, _loadSnapshot: bytes });
  } catch (err) {
    return { pyodide: await bootNormally(), restored: false, reason: `snapshot not used: ${err.message || err}` };
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
 * run in snapshot_maker.js, a worker of its own) and keep it in the site's file with `record`
 * ({pyodide_version, build_id, stdlib_sha256}) and `packages`, the preloaded packages'
 * installed files ({wheels, blob}: package_files.js).  Returns {bytes: count stored} or
 * {reason} why nothing was stored (private API missing, storage full or denied).
 */
export async function makeSnapshot(options, record, packages) {
  const maker = await self.loadPyodide({ ...options, packages: [], _makeSnapshot: true });
  if (typeof maker.makeMemorySnapshot !== "function") return { reason: "makeMemorySnapshot missing" };
  const sys = maker.pyimport("sys");
  const path = sys.path;
  path.remove(""); // loadPyodide inserts it again after a restore
  path.destroy();
  sys.destroy();
  // Imported by every boot before a cell runs (each loadPackage's importlib.invalidate_caches()
  // does): in the heap, a restore is spared it (60 ms).  Pure Python, from the pinned stdlib.
  maker.runPython("import importlib.metadata");
  const bytes = maker.makeMemorySnapshot();
  const packageRecord = { wheels: packages.wheels, bytes: packages.blob.length, sha256: await sha256Hex(packages.blob) };
  const full = { format: FORMAT, ...record, bytes: bytes.length, sha256: await sha256Hex(bytes), packages: packageRecord };
  try {
    await writeSnapshotFile([bytes, packages.blob], full);
  } catch (err) {
    return { reason: `not stored: ${err.name || err}` }; // QuotaExceededError, NoModificationAllowedError (another tab writes)
  }
  return { bytes: bytes.length + packages.blob.length };
}

/* Write the site's file: the `payload` (the snapshot, the package files), then `record` and
 * the trailer; a file that could not be written whole is deleted. */
async function writeSnapshotFile(payload, record) {
  const recordText = new TextEncoder().encode(JSON.stringify(record));
  const trailer = new DataView(new ArrayBuffer(TRAILER_BYTES));
  trailer.setUint32(0, recordText.length, true);
  trailer.setUint32(4, TRAILER_MAGIC, true);
  const handle = await (await snapshotFile(true)).createSyncAccessHandle();
  let written = false;
  try {
    handle.truncate(0);
    let at = 0;
    for (const part of [...payload, recordText, trailer]) {
      if (handle.write(part, { at }) !== part.byteLength) throw new DOMException("short write", "QuotaExceededError");
      at += part.byteLength;
    }
    handle.flush();
    written = true;
  } finally {
    handle.close();
    if (!written) await dropSnapshot();
  }
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
