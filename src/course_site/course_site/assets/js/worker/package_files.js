/* The preloaded packages' installed files, kept with the snapshot (snapshot.js) so that a
 * later visit writes them into Pyodide's file system instead of unpacking their wheels.
 *
 * Pyodide 0.27's package loader unpacks each wheel with one call of a private API,
 * pyodide._api.package_loader.unpack_buffer.callKwargs({buffer, filename, extract_dir,
 * installer, source, calculate_dynlibs}), which answers the paths of the wheel's shared
 * libraries.  That is Python's zipfile at work: 0.25-0.35 s for numpy's 338 files (12 MB),
 * on the critical path of every visit.  watchInstalls wraps that one call:
 *
 *   a normal boot   the files each preloaded wheel wrote are recorded (read back once,
 *                   before any cell runs), to be kept with the snapshot made for the next visit;
 *   a restore       a wheel whose file name and sha256 match a kept one is not unpacked:
 *                   its kept files are written (~20 ms) and its kept library paths answered;
 *                   its shared libraries, compiled meanwhile by snapshot_reader.js, are
 *                   instantiated from those modules rather than compiled again here.
 *
 *   a restore where a preloaded wheel changed (a deploy with a new version of the course
 *                   package): that wheel is unpacked, its files recorded, and `outdated` is set, so
 *                   that a new snapshot is made with the kept files and the recorded ones.
 *
 * A kept wheel is not downloaded (network.js: prefetchPreloaded; the loader's fetch gets no
 * bytes).  Everything else stays the loader's: it loads its shared libraries, marks it loaded
 * and clears importlib's caches.  A wheel with files outside extract_dir (a .data directory)
 * is not recorded.
 */

/** Kept wheels, as stored: {wheels: [{file_name, sha256, extract_dir, dynlibs, offset, files: [[path, size]]}], blob}
 * (and, when kept, `libraries`: a promise of a Map library path -> its compiled WebAssembly.Module). */
const NONE = { wheels: [], blob: new Uint8Array(0) };

/**
 * Wrap `pyodide`'s wheel unpacking until stop().  `wanted`: the settings' preload_wheels
 * ({lock key: {file_name, sha256}}).  `kept` ({wheels, blob}, or null): wheels to write
 * from kept files.  `record`: whether to record the files that the other wanted wheels
 * write.  Returns {stop, used: the packages written from kept files, precompiled: how many of
 * their shared libraries were instantiated from modules compiled meanwhile, outdated(): whether
 * `kept` lacked a wanted wheel that was recorded, recorded(): {wheels, blob}: the kept wheels
 * that were written and the recorded ones}.
 */
export function watchInstalls(pyodide, { wanted, kept, record }) {
  const loader = pyodide._api?.package_loader;
  const recorded = [];
  const used = [];
  const reused = []; // the kept wheels written, as recorded ones
  const watch = {
    stop: () => {},
    used,
    precompiled: 0,
    outdated: () => Boolean(kept) && recorded.length > 0,
    recorded: () => joinRecorded([...reused, ...recorded]),
  };
  if (typeof loader?.unpack_buffer?.callKwargs !== "function") return watch;

  const unpack = loader.unpack_buffer;
  const wantedWheel = new Map(Object.entries(wanted).map(([name, wheel]) => [wheel.file_name, { name, ...wheel }]));
  const keptWheels = new Map((kept?.wheels || []).map((wheel) => [wheel.file_name, wheel]));
  const keptLibraries = new Set(); // the shared libraries written from kept files
  const unpackWatched = (kwargs) => {
    const { name, sha256 } = wantedWheel.get(kwargs.filename) || {};
    const keptWheel = keptWheels.get(kwargs.filename);
    if (sha256 && keptWheel?.sha256 === sha256 && keptWheel.extract_dir === kwargs.extract_dir) {
      writeKeptFiles(pyodide.FS, keptWheel, kept.blob);
      keptWheel.dynlibs.forEach((path) => keptLibraries.add(path));
      used.push(name);
      if (record) reused.push(asRecorded(keptWheel, kept.blob));
      return [...keptWheel.dynlibs];
    }
    if (!sha256 || !record) return unpack.callKwargs(kwargs);
    const before = filesUnder(pyodide.FS, kwargs.extract_dir);
    const dynlibs = unpack.callKwargs(kwargs);
    const written = writtenSince(before, filesUnder(pyodide.FS, kwargs.extract_dir));
    if (written) recorded.push(readWheelFiles(pyodide.FS, { file_name: kwargs.filename, sha256, extract_dir: kwargs.extract_dir, dynlibs: [...dynlibs] }, written));
    return dynlibs;
  };
  const wrapped = new Proxy(unpack, { get: (target, name) => (name === "callKwargs" ? unpackWatched : Reflect.get(target, name)) });
  const api = pyodide._api;
  api.package_loader = new Proxy(loader, { get: (target, name) => (name === "unpack_buffer" ? wrapped : Reflect.get(target, name)) });
  const stopCompiled = kept?.libraries
    ? useCompiledLibraries(pyodide.FS, keptLibraries, kept.libraries, () => (watch.precompiled += 1))
    : () => {};
  watch.stop = () => {
    api.package_loader = loader;
    stopCompiled();
  };
  return watch;
}

/**
 * Until the returned stop(), instantiate the shared libraries at the `paths` written from kept
 * files (a Set, filled meanwhile) from the modules that `libraries` (a promise of a Map path ->
 * WebAssembly.Module, compiled from those same files) holds.  Pyodide's loader reads a library
 * with FS.readFile and hands those bytes to WebAssembly.instantiate (Emscripten's
 * loadWebAssemblyModule); bytes read from such a path are answered with its module.
 */
function useCompiledLibraries(FS, paths, libraries, onUse) {
  const readFile = FS.readFile;
  const instantiate = WebAssembly.instantiate;
  const pathOf = new WeakMap(); // bytes read -> the path they were read from
  FS.readFile = function readFileNoted(path, ...rest) {
    const bytes = readFile.call(this, path, ...rest);
    if (paths.has(path) && bytes instanceof Uint8Array) pathOf.set(bytes, path);
    return bytes;
  };
  WebAssembly.instantiate = async function instantiateCompiled(source, imports) {
    const module = pathOf.has(source) ? (await libraries).get(pathOf.get(source)) : undefined;
    if (!module) return instantiate.call(WebAssembly, source, imports);
    onUse();
    return { module, instance: await instantiate.call(WebAssembly, module, imports) };
  };
  return () => {
    FS.readFile = readFile;
    WebAssembly.instantiate = instantiate;
  };
}

/* Every file under `dir` in Pyodide's file system: path -> modification time. */
function filesUnder(FS, dir) {
  const found = new Map();
  const visit = (path) => {
    for (const name of FS.readdir(path)) {
      if (name === "." || name === "..") continue;
      const child = `${path}/${name}`;
      const stat = FS.lstat(child);
      if (FS.isDir(stat.mode)) visit(child);
      else if (FS.isFile(stat.mode)) found.set(child, Number(stat.mtime));
    }
  };
  if (FS.analyzePath(dir).exists) visit(dir);
  return found;
}

/* The paths in `after` that are new or changed since `before`; null if one is outside the wheel's own tree. */
function writtenSince(before, after) {
  const written = [...after].filter(([path, mtime]) => before.get(path) !== mtime).map(([path]) => path);
  return written.some((path) => /\.data\//.test(path)) ? null : written;
}

/* `wheel` with its files' paths and sizes, and their bytes (read now: no cell has run yet). */
function readWheelFiles(FS, wheel, paths) {
  const contents = paths.map((path) => FS.readFile(path));
  return { ...wheel, files: paths.map((path, i) => [path, contents[i].byteLength]), contents };
}

/* A kept `wheel` (its files in `blob` at its offset) as a recorded one, its bytes not copied. */
function asRecorded({ offset, ...wheel }, blob) {
  const size = wheel.files.reduce((sum, [, bytes]) => sum + bytes, 0);
  return { ...wheel, contents: [blob.subarray(offset, offset + size)] };
}

/* The recorded wheels as stored: each wheel's files at its offset in one blob. */
function joinRecorded(recorded) {
  if (!recorded.length) return NONE;
  const total = recorded.reduce((sum, wheel) => sum + wheel.files.reduce((s, [, size]) => s + size, 0), 0);
  const blob = new Uint8Array(total);
  let at = 0;
  const wheels = recorded.map(({ contents, ...wheel }) => {
    const offset = at;
    for (const bytes of contents) {
      blob.set(bytes, at);
      at += bytes.byteLength;
    }
    return { ...wheel, offset };
  });
  return { wheels, blob };
}

/* Write `wheel`'s kept files from `blob`: each file's contents is its part of `blob` (no copy). */
function writeKeptFiles(FS, wheel, blob) {
  const made = new Set();
  let at = wheel.offset;
  for (const [path, size] of wheel.files) {
    const dir = path.slice(0, path.lastIndexOf("/"));
    if (!made.has(dir)) {
      FS.mkdirTree(dir);
      made.add(dir);
    }
    FS.writeFile(path, blob.subarray(at, at + size), { canOwn: true });
    at += size;
  }
}
