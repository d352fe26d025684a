// The kept memory snapshot (assets/js/worker/snapshot.js): the file written and read back in a
// stand-in origin private file system, and what refuses it: another Pyodide build (even when the
// snapshot's header and its record agree), version, stdlib or format, a corrupt file, package
// files that are not what the record says; run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

/* The origin private file system: directories of files, each a Uint8Array. */
class FakeDirectory {
  entries = new Map();

  async getDirectoryHandle(name, { create = false } = {}) {
    if (!this.entries.has(name) && create) this.entries.set(name, new FakeDirectory());
    return this.found(name);
  }

  async getFileHandle(name, { create = false } = {}) {
    if (!this.entries.has(name) && create) this.entries.set(name, new FakeFile());
    return this.found(name);
  }

  async removeEntry(name) {
    this.found(name);
    this.entries.delete(name);
  }

  found(name) {
    if (!this.entries.has(name)) throw new DOMException(`${name} not found`, "NotFoundError");
    return this.entries.get(name);
  }
}

class FakeFile {
  bytes = new Uint8Array(0);
  quota = Infinity; // bytes a write may reach
  modes = []; // the mode of each handle opened
  open = 0; // handles not closed
  failure = null; // an error that opening a handle throws (another tab holds it)
  fileReadFailure = null; // an error that reading it as a File throws

  /* The file as a File (read where no sync access handle can be had). */
  async getFile() {
    if (this.fileReadFailure) throw this.fileReadFailure;
    const bytes = this.bytes.slice();
    return { arrayBuffer: async () => bytes.buffer };
  }

  async createSyncAccessHandle(options = {}) {
    if (this.failure) throw this.failure;
    const file = this;
    file.modes.push(options.mode ?? "readwrite");
    file.open++;
    const view = (buffer) => (ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer));
    return {
      getSize: () => file.bytes.length,
      read(buffer, { at }) {
        if (at < 0) throw new TypeError("at must not be negative"); // an unsigned long long
        if (file.readFailure) throw file.readFailure;
        const into = view(buffer);
        const part = file.bytes.subarray(at, at + into.length);
        into.set(part);
        return part.length;
      },
      write(buffer, { at }) {
        const part = view(buffer).subarray(0, Math.max(0, file.quota - at));
        const grown = new Uint8Array(Math.max(file.bytes.length, at + part.length));
        grown.set(file.bytes);
        grown.set(part, at);
        file.bytes = grown;
        return part.length;
      },
      truncate: (size) => (file.bytes = file.bytes.slice(0, size)),
      flush: () => {},
      close: () => file.open--,
    };
  }
}

let root;
Object.defineProperty(globalThis, "navigator", { value: { storage: { getDirectory: async () => root } }, configurable: true });
const snapshot = await import("../../src/course_site/course_site/assets/js/worker/snapshot.js");

const BUILD = "0123456789abcdef".repeat(4);
const OTHER_BUILD = "fedcba9876543210".repeat(4);
const EXPECTED = { pyodideVersion: "0.27.7", buildId: BUILD, stdlibSha256: "5d1b" };

/* The bytes of a memory snapshot with Pyodide's header ("\0snp", the BUILD_ID at bytes 16-48). */
function snapshotBytes(buildId, size = 96) {
  const bytes = new Uint8Array(size).map((_, i) => (i * 31) & 255);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x706e7300, true);
  for (let w = 0; w < 8; w++) view.setUint32(16 + 4 * w, parseInt(buildId.slice(8 * w, 8 * w + 8), 16), true);
  return bytes;
}

/* The preloaded packages' installed files, as package_files.js gives them. */
function packageFiles() {
  const wheels = [
    { file_name: "numpy.whl", offset: 0, files: [["/lib/numpy/__init__.py", 5], ["/lib/numpy/core.so", 3]], dynlibs: ["/lib/numpy/core.so"] },
    { file_name: "posenc.whl", offset: 8, files: [["/lib/posenc/__init__.py", 4]], dynlibs: [] },
  ];
  return { wheels, blob: new TextEncoder().encode("numpy" + "wsm" + "pose") };
}

/* A Pyodide whose _makeSnapshot boot hands out `bytes` as its memory snapshot. */
function fakePyodide(bytes) {
  const said = [];
  const proxy = { remove: (x) => said.push(["remove", x]), destroy: () => {} };
  self.loadPyodide = async (options) => ({
    options: said.push(["load", options]) && options,
    pyimport: (name) => (name === "sys" ? { path: proxy, destroy: () => {} } : null),
    runPython: (code) => said.push(["run", code]),
    makeMemorySnapshot: () => bytes,
  });
  return said;
}

/* Make and keep a snapshot of `buildId` whose record names `recordBuildId`; the file it left. */
async function kept({ buildId = BUILD, recordBuildId = buildId, record = {} } = {}) {
  fakePyodide(snapshotBytes(buildId));
  const full = { pyodide_version: "0.27.7", build_id: recordBuildId, stdlib_sha256: "5d1b", ...record };
  const made = await snapshot.makeSnapshot({}, full, packageFiles());
  assert.deepEqual(made, { bytes: 96 + 12 });
  return snapshotFile();
}

function snapshotFile() {
  const directory = root.entries.get("course-snapshots");
  const files = directory ? [...directory.entries.values()] : [];
  assert.ok(files.length <= 1);
  return files[0] ?? null;
}

const restore = async (expected = EXPECTED) => snapshot.keptSnapshot(snapshot.readKeptFile(), expected);

globalThis.self ??= globalThis;
beforeEach(() => {
  root = new FakeDirectory();
});

test("a snapshot kept by this build is restored, with its package files", async () => {
  await kept();
  const restored = await restore();
  assert.deepEqual([...restored.bytes], [...snapshotBytes(BUILD)]);
  const packages = await restored.packages;
  assert.deepEqual(packages.wheels, packageFiles().wheels);
  assert.deepEqual([...packages.blob], [...packageFiles().blob]);
  assert.notEqual(snapshotFile(), null, "kept for the next visit");
});

test("a snapshot made by another Pyodide build, whose header and record agree, is refused and deleted", async () => {
  await kept({ buildId: OTHER_BUILD });
  const refused = await restore();
  assert.equal(refused.bytes, undefined);
  assert.equal(typeof refused.reason, "string");
  assert.equal(snapshotFile(), null);
  // The same file is restored by the build that made it.
  await kept({ buildId: OTHER_BUILD });
  assert.ok((await restore({ ...EXPECTED, buildId: OTHER_BUILD })).bytes);
});

test("a record naming another build than the snapshot's header is refused", async () => {
  await kept({ buildId: OTHER_BUILD, recordBuildId: BUILD });
  const refused = await restore();
  assert.equal(refused.bytes, undefined);
  assert.equal(snapshotFile(), null);
});

for (const [what, record, expected] of [
  ["another Pyodide version", { pyodide_version: "0.27.6" }, EXPECTED],
  ["another stdlib", { stdlib_sha256: "0000" }, EXPECTED],
  ["this Pyodide's record, expected with another stdlib", {}, { ...EXPECTED, stdlibSha256: "0000" }],
  ["this Pyodide's record, expected of another version", {}, { ...EXPECTED, pyodideVersion: "0.28.0" }],
  ["another file format", { format: 2 }, EXPECTED],
]) {
  test(`a snapshot for ${what} is refused and deleted`, async () => {
    await kept({ record });
    const refused = await restore(expected);
    assert.equal(refused.bytes, undefined);
    assert.equal(snapshotFile(), null);
  });
}

/* Rewrite the kept file's record with `change(record)`, and its payload with `damage(bytes)`. */
async function rewrite(change = () => {}, damage = () => {}) {
  const file = snapshotFile();
  const view = new DataView(file.bytes.buffer, file.bytes.byteOffset);
  const recordLength = view.getUint32(file.bytes.length - 8, true);
  const payload = file.bytes.slice(0, file.bytes.length - 8 - recordLength);
  const record = JSON.parse(new TextDecoder().decode(file.bytes.subarray(payload.length, file.bytes.length - 8)));
  change(record);
  damage(payload, record);
  const recordText = new TextEncoder().encode(JSON.stringify(record));
  const trailer = new DataView(new ArrayBuffer(8));
  trailer.setUint32(0, recordText.length, true);
  trailer.setUint32(4, 0x31736373, true);
  const bytes = new Uint8Array(payload.length + recordText.length + 8);
  bytes.set(payload);
  bytes.set(recordText, payload.length);
  bytes.set(new Uint8Array(trailer.buffer), payload.length + recordText.length);
  file.bytes = bytes;
}

for (const [what, damage, reason] of [
  ["one byte of the snapshot changed", (bytes) => (bytes[60] ^= 1), /^corrupt snapshot: sha256 [0-9a-f]{64}$/],
  ["the snapshot's header gone", (bytes) => (bytes[0] ^= 1), /^corrupt snapshot: no snapshot header$/],
  ["every byte of the snapshot garbage", (bytes) => bytes.forEach((_, i) => (bytes[i] = (i * 7919) & 255)), /^corrupt snapshot: no snapshot header$/],
]) {
  test(`a corrupt snapshot (${what}) is refused and deleted`, async () => {
    await kept();
    await rewrite(() => {}, damage);
    const refused = await restore();
    assert.equal(refused.bytes, undefined);
    assert.match(refused.reason, reason);
    assert.equal(snapshotFile(), null);
  });
}

for (const [what, change] of [
  ["its size", (record) => (record.bytes -= 1)],
  ["no package files", (record) => delete record.packages.wheels],
  ["another sha256", (record) => (record.sha256 = "0".repeat(64))],
  ["a size beyond the file", (record) => (record.bytes = 10_000)],
  ["a size that is not a number", (record) => (record.bytes = "many")],
  ["a negative size", (record) => (record.bytes = -1)],
]) {
  test(`a record with ${what} is refused and deleted`, async () => {
    await kept();
    await rewrite(change);
    const refused = await restore();
    assert.equal(refused.bytes, undefined);
    assert.equal(snapshotFile(), null);
  });
}

for (const [what, bytes] of [
  ["no trailer", (b) => b.slice(0, b.length - 4)],
  ["a record that is not JSON", (b) => Object.assign(b.slice(), { [b.length - 9]: 0x7b })],
  ["a record longer than the file", (b) => Object.assign(b.slice(), { [b.length - 5]: 0xff })],
  ["a file shorter than a trailer", (b) => b.slice(0, 5)],
  ["only its first half", (b) => b.slice(0, b.length >> 1)],
]) {
  test(`a file with ${what} is refused and deleted`, async () => {
    const file = await kept();
    file.bytes = bytes(file.bytes);
    const answer = await snapshot.readKeptFile();
    assert.equal(answer.file, undefined);
    assert.equal(answer.drop, true);
    const refused = await snapshot.keptSnapshot(Promise.resolve(answer), EXPECTED);
    assert.equal(refused.bytes, undefined);
    assert.match(refused.reason, /^corrupt snapshot: no record$/);
    assert.equal(snapshotFile(), null);
  });
}

test("no file kept, or storage unavailable: nothing to restore, nothing deleted", async () => {
  assert.equal(await snapshot.missingSnapshotFile(), "no snapshot");
  const none = await restore();
  assert.deepEqual(none, { reason: "no snapshot" });
  await kept();
  assert.equal(await snapshot.missingSnapshotFile(), null);
  const saved = root;
  root = { getDirectoryHandle: async () => { throw new DOMException("denied", "SecurityError"); } };
  try {
    assert.equal(await snapshot.missingSnapshotFile(), "snapshot storage unavailable: SecurityError");
    assert.deepEqual(await restore(), { reason: "snapshot storage unavailable: SecurityError" });
  } finally {
    root = saved;
  }
  assert.notEqual(snapshotFile(), null);
});

for (const [what, change, damage] of [
  ["another sha256", () => {}, (bytes, record) => (bytes[record.bytes + 1] ^= 1)],
  ["a size that is not theirs", (record) => (record.packages.bytes += 1), () => {}],
  ["a wheel at the wrong offset", (record) => (record.packages.wheels[1].offset = 7), () => {}],
  ["a file with a relative path", (record) => (record.packages.wheels[1].files[0][0] = "lib/x.py"), () => {}],
  ["a file of a negative size", (record) => (record.packages.wheels[0].files[0][1] = -1), () => {}],
  ["a file of a fractional size", (record) => (record.packages.wheels[0].files[0][1] = 4.5), () => {}],
  ["no file list", (record) => delete record.packages.wheels[0].files, () => {}],
  ["no library list", (record) => delete record.packages.wheels[0].dynlibs, () => {}],
  ["files that do not fill them", (record) => (record.packages.wheels[1].files[0][1] = 3), () => {}],
]) {
  test(`package files with ${what} are not used; the snapshot is restored and its file deleted`, async () => {
    const info = console.info;
    console.info = () => {};
    try {
      await kept();
      await rewrite(change, damage);
      const restored = await restore();
      assert.ok(restored.bytes);
      assert.equal(await restored.packages, null);
      assert.equal(snapshotFile(), null);
    } finally {
      console.info = info;
    }
  });
}

test("the package files' shared libraries are compiled from their bytes", async () => {
  await kept();
  const answer = await snapshot.readKeptFile();
  const compiled = [];
  const compile = WebAssembly.compile;
  WebAssembly.compile = (bytes) => (compiled.push(new TextDecoder().decode(bytes)), Promise.resolve("module"));
  try {
    const libraries = snapshot.compileKeptLibraries(answer.file);
    assert.deepEqual([...libraries.keys()], ["/lib/numpy/core.so"]);
    assert.deepEqual(compiled, [new TextDecoder().decode(packageFiles().blob.subarray(5, 8))]);
  } finally {
    WebAssembly.compile = compile;
  }
});

test("the snapshot is made of a bare interpreter without '' on sys.path, importlib.metadata imported", async () => {
  const said = fakePyodide(snapshotBytes(BUILD));
  await snapshot.makeSnapshot({ indexURL: "x/", packages: ["numpy"] }, { pyodide_version: "0.27.7", build_id: BUILD, stdlib_sha256: "5d1b" }, packageFiles());
  assert.deepEqual(said, [
    ["load", { indexURL: "x/", packages: [], _makeSnapshot: true }], ["remove", ""], ["run", "import importlib.metadata"],
  ]);
});

test("a Pyodide without makeMemorySnapshot, or storage that is full, keeps nothing", async () => {
  self.loadPyodide = async () => ({});
  assert.deepEqual(await snapshot.makeSnapshot({}, {}, packageFiles()), { reason: "makeMemorySnapshot missing" });
  assert.equal(snapshotFile(), null);
  await kept();
  fakePyodide(snapshotBytes(BUILD));
  snapshotFile().quota = 50;
  const made = await snapshot.makeSnapshot({}, { build_id: BUILD }, packageFiles());
  assert.deepEqual(made, { reason: "not stored: QuotaExceededError" });
  assert.equal(snapshotFile(), null, "what was written is deleted");
});

test("a restore reseeds random and sets the environment; a Pyodide that ignores the snapshot boots normally", async () => {
  const calls = [];
  const environ = { __setitem__: (k, v) => calls.push(["env", k, v]), destroy: () => {} };
  const random = { seed: () => calls.push(["seed"]), destroy: () => {} };
  const restored = { _module: { noInitialRun: true }, pyimport: (name) => ({ random, os: { environ } })[name] };
  self.loadPyodide = async (options) => (calls.push(["load", options._loadSnapshot]), restored);
  const bytes = new Uint8Array(4);
  const booted = await snapshot.bootPyodide({ env: { HOME: "/home/pyodide", N: 3 } }, bytes, () => "normal");
  assert.deepEqual(booted, { pyodide: restored, restored: true, reason: null });
  assert.deepEqual(calls, [["load", bytes], ["seed"], ["env", "HOME", "/home/pyodide"], ["env", "N", "3"]]);
  for (const pyodide of [{ _module: {} }, {}]) {
    self.loadPyodide = async () => pyodide;
    const ignored = await snapshot.bootPyodide({}, bytes, () => "normal");
    assert.deepEqual(ignored, { pyodide, restored: false, reason: "this Pyodide ignores _loadSnapshot" });
  }
  self.loadPyodide = async () => {
    throw new Error("bad snapshot");
  };
  const rejected = await snapshot.bootPyodide({}, bytes, async () => "normal");
  assert.deepEqual(rejected, { pyodide: "normal", restored: false, reason: "snapshot not used: bad snapshot" });
});

/* ------------------------------------------------------------------ each check on its own */

const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (bytes) => hex(await crypto.subtle.digest("SHA-256", bytes));

/* readKeptFile's answer for `bytes` with a record that describes them (then `change(record)`). */
async function described(bytes, change = () => {}) {
  const packageBytes = new Uint8Array(0);
  const record = {
    format: 3, pyodide_version: "0.27.7", build_id: BUILD, stdlib_sha256: "5d1b", bytes: bytes.length, sha256: await sha256(bytes),
    packages: { wheels: [], bytes: 0, sha256: await sha256(packageBytes) },
  };
  const digests = { snapshot: record.sha256, packages: record.packages.sha256 };
  change(record);
  return { file: { bytes, packageBytes, record, sha256: digests } };
}

test("a snapshot whose record describes it but that has no snapshot header is refused", async () => {
  const bytes = snapshotBytes(BUILD);
  bytes[0] ^= 1;
  assert.equal((await snapshot.keptSnapshot(described(bytes), EXPECTED)).bytes, undefined);
  const short = snapshotBytes(BUILD).slice(0, 47);
  assert.equal((await snapshot.keptSnapshot(described(short), EXPECTED)).bytes, undefined);
  const justTheHeader = snapshotBytes(BUILD, 48);
  assert.ok((await snapshot.keptSnapshot(described(justTheHeader), EXPECTED)).bytes);
});

test("a snapshot of another size than its record says is refused, even with the right sha256", async () => {
  const answer = await described(snapshotBytes(BUILD), (record) => (record.bytes += 1));
  assert.equal((await snapshot.keptSnapshot(Promise.resolve(answer), EXPECTED)).bytes, undefined);
});

test("a record without package files is refused, not an error", async () => {
  const answer = await described(snapshotBytes(BUILD), (record) => delete record.packages);
  assert.equal(typeof (await snapshot.keptSnapshot(Promise.resolve(answer), EXPECTED)).reason, "string");
  assert.deepEqual([...snapshot.compileKeptLibraries(answer.file)], [], "nothing to compile");
});

test("a snapshot kept without package files (none preloaded) is restored", async () => {
  fakePyodide(snapshotBytes(BUILD));
  const none = { wheels: [], blob: new Uint8Array(0) };
  await snapshot.makeSnapshot({}, { pyodide_version: "0.27.7", build_id: BUILD, stdlib_sha256: "5d1b" }, none);
  const restored = await restore();
  assert.ok(restored.bytes);
  assert.deepEqual((await restored.packages).wheels, []);
});

test("the record holds the hex sha256 of the snapshot and of the package files", async () => {
  const file = await kept();
  const recordLength = new DataView(file.bytes.buffer).getUint32(file.bytes.length - 8, true);
  const record = JSON.parse(new TextDecoder().decode(file.bytes.subarray(file.bytes.length - 8 - recordLength, file.bytes.length - 8)));
  assert.equal(record.sha256, await sha256(snapshotBytes(BUILD)));
  assert.equal(record.packages.sha256, await sha256(packageFiles().blob));
  assert.equal(record.format, 3);
  assert.deepEqual([record.bytes, record.packages.bytes], [96, 12]);
});

test("a file whose trailer does not end in the magic number is refused", async () => {
  const file = await kept();
  file.bytes[file.bytes.length - 1] ^= 1;
  const answer = await snapshot.readKeptFile();
  assert.deepEqual([answer.file, answer.drop], [undefined, true]);
});

test("a record longer than the file is refused and the file deleted", async () => {
  const file = await kept();
  new DataView(file.bytes.buffer).setUint32(file.bytes.length - 8, file.bytes.length, true);
  assert.deepEqual(await snapshot.readKeptFile(), { reason: "corrupt snapshot: no record", drop: true });
});

test("a record of JSON null is refused", async () => {
  const file = await kept();
  await rewrite();
  const text = new TextEncoder().encode("null");
  const bytes = new Uint8Array(96 + 12 + text.length + 8);
  bytes.set(file.bytes.subarray(0, 108));
  bytes.set(text, 108);
  new DataView(bytes.buffer).setUint32(bytes.length - 8, text.length, true);
  new DataView(bytes.buffer).setUint32(bytes.length - 4, 0x31736373, true);
  file.bytes = bytes;
  const answer = await snapshot.readKeptFile();
  assert.deepEqual([answer.file, answer.drop], [undefined, true]);
});

test("the kept file is read through a sync handle opened without Chromium's read-only mode, closed after", async () => {
  const file = await kept();
  await snapshot.readKeptFile();
  assert.deepEqual(file.modes.slice(-1), ["readwrite"]);
  assert.equal(file.open, 0);
});

test("a file whose sync handle is held (another tab) is read as a File; one that cannot be read is left alone", async () => {
  const file = await kept();
  file.failure = new DOMException("locked", "NoModificationAllowedError");
  const answer = await snapshot.readKeptFile();
  assert.ok(answer.file?.bytes?.length > 0, "read as a File");
  file.fileReadFailure = new DOMException("locked", "NoModificationAllowedError");
  assert.deepEqual(await restore(), { reason: "snapshot storage unavailable: NoModificationAllowedError" });
  file.failure = file.fileReadFailure = null;
  file.readFailure = new DOMException("gone", "InvalidStateError");
  assert.deepEqual(await restore(), { reason: "snapshot storage unavailable: InvalidStateError" });
  assert.equal(file.open, 0, "closed all the same");
  assert.notEqual(snapshotFile(), null);
});

for (const [what, files] of [
  ["fractional sizes that add up", [["/lib/numpy/__init__.py", 4.5], ["/lib/numpy/core.so", 3.5]]],
  ["a negative size that adds up", [["/lib/numpy/__init__.py", -1], ["/lib/numpy/core.so", 9]]],
  ["a path that is not a string", [[42, 5], ["/lib/numpy/core.so", 3]]],
]) {
  test(`package files listed with ${what} are not used`, async () => {
    await kept();
    await rewrite((record) => (record.packages.wheels[0].files = files));
    const said = await quietInfo(async () => assert.equal(await (await restore()).packages, null));
    assert.match(said[0], /^course: kept package files not used \(corrupt: the record of numpy\.whl\)$/);
  });
}

test("an empty file among the package files is one of them", async () => {
  fakePyodide(snapshotBytes(BUILD));
  const packages = packageFiles();
  packages.wheels[1].files.unshift(["/lib/posenc/py.typed", 0]);
  await snapshot.makeSnapshot({}, { pyodide_version: "0.27.7", build_id: BUILD, stdlib_sha256: "5d1b" }, packages);
  assert.deepEqual((await (await restore()).packages).wheels, packages.wheels);
});

test("package files that do not fill their bytes say so", async () => {
  await kept();
  await rewrite((record) => (record.packages.wheels[1].files[0][1] = 3));
  const said = await quietInfo(async () => assert.equal(await (await restore()).packages, null));
  assert.deepEqual(said, ["course: kept package files not used (corrupt: files of 11 bytes in 12)"]);
});

test("forgetting a snapshot that was never kept creates nothing", async () => {
  await snapshot.dropSnapshot();
  assert.deepEqual([...root.entries.keys()], []);
});

test("the site's snapshot file is named after the folder of the runner folder (a site's assets/course/)", async () => {
  await kept();
  const moduleURL = new URL("../../src/course_site/course_site/assets/js/worker/snapshot.js", import.meta.url);
  const [name] = root.entries.get("course-snapshots").entries.keys();
  assert.equal(name, `${encodeURIComponent(new URL("../../../", moduleURL).href)}.bin`);
});

async function quietInfo(body) {
  const said = [];
  const info = console.info;
  console.info = (line) => said.push(line);
  try {
    await body();
  } finally {
    console.info = info;
  }
  return said;
}
