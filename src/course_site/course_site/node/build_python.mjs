// Build-time runs of a page's cells in the site's own Pyodide, under Node (see execute.py): the
// browser's cell runner (../assets/js/worker/run.js) with the build as its host, posting the same
// messages the page renders as JSON lines on stdout.
//
// Reads one JSON request on stdin: where the staged Pyodide files, the site's lock and the derived
// bytecode are (null: the official stdlib), the Python files (the package course_kernel, as the
// worker writes it) and its bridge, the worker's settings (preload, import_packages, module_hint,
// the output limits), the site's catalogue, then the page's cells and its exercises: the cells run
// first, then, if none raised, the exercises are proved, in the same Python, as in the page's one
// worker.  Writes contract.json's "build" messages: "ready", then for each run of a cell a "cell"
// message naming it, followed by the run's own messages ("toPage": started, stream, result, error,
// figure with its PNGs in base64, in the request's schemes, capped, dropped, done, or fatal), then "proving",
// "verdicts", "exit" (a cell ended Python) and "end".  Anything Pyodide itself prints goes to stderr.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { makeRunner } from "../assets/js/worker/run.js";
import { host, writeStream } from "../assets/js/worker/output.js";
import { useCatalogue } from "../assets/js/strings.js";
import { BYTECODE_PREFIX, PYTHON_DIR } from "../assets/js/worker/places.js";

const send = (message) => process.stdout.write(JSON.stringify(message, asBase64) + "\n");
console.log = console.info = console.warn = (...args) => process.stderr.write(args.join(" ") + "\n");

/* JSON for a message: an ArrayBuffer (a figure's PNG) as base64. */
function asBase64(key, value) {
  return value instanceof ArrayBuffer ? Buffer.from(value).toString("base64") : value;
}

const request = JSON.parse(readFileSync(0, "utf8"));

async function main() {
  const { loadPyodide } = createRequire(import.meta.url)(request.index + "pyodide.js");
  const pyodide = await loadPyodide({
    indexURL: request.index,
    lockFileURL: request.lock,
    ...(request.stdlib ? { stdLibURL: request.stdlib } : {}),
    packages: request.preload,
    env: { MPLBACKEND: "agg" },
    stdout: () => {},
    stderr: () => {},
  });
  pyodide.setStdout({ write: (bytes) => writeStream("stdout", bytes) });
  pyodide.setStderr({ write: (bytes) => writeStream("stderr", bytes) });
  for (const [name, path] of Object.entries(request.python)) {
    pyodide.FS.mkdirTree(`${PYTHON_DIR}/${name}`.replace(/\/[^/]*$/, ""));
    pyodide.FS.writeFile(`${PYTHON_DIR}/${name}`, readFileSync(path, "utf8"));
  }
  // The modules outside the boot stdlib, from the official zip, read on first use as the worker fetches it.
  const officialStdlib = () => new Uint8Array(readFileSync(request.index + "python_stdlib.zip"));
  pyodide.registerJsModule("_course_host", { ...host, official_stdlib: officialStdlib });
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})`);
  const bridge = pyodide.pyimport(request.bridge);
  useCatalogue(request.catalogue);
  bridge.use_strings(JSON.stringify(request.catalogue.messages));
  if (request.bytecode) {
    pyodide.unpackArchive(new Uint8Array(readFileSync(request.bytecode)), "zip", { extractDir: BYTECODE_PREFIX });
    pyodide.runPython(`import sys; sys.pycache_prefix = ${JSON.stringify(BYTECODE_PREFIX)}`);
  }
  for (const name of request.preload) pyodide.pyimport(name.replace(/-/g, "_"));
  const runner = makeRunner({
    pyodide, bridge, importPackages: request.import_packages, moduleHint: request.module_hint, post: send,
    fontList: async () => new Uint8Array(readFileSync(request.font_list)),
    provideStdlib: async () => bridge.provide_stdlib(officialStdlib()),
  });
  send({ type: "ready", version: pyodide.version });

  try {
    let ok = true;
    for (const cell of request.cells) if (!(ok = await runCell(runner, cell))) break;
    if (ok && request.exercises.length) await prove(runner, bridge, request.exercises);
  } catch (error) {
    if (!Number.isInteger(error?.status)) throw error; // os._exit (the runner sent "fatal" first)
    send({ type: "exit", status: error.status });
  }
  send({ type: "end" });
  // Pipes are written asynchronously: exit once everything sent is out.
  process.stdout.write("", () => process.exit(0));
}

let runs = 0; // run ids, as the page's kernel numbers its runs

/* Run one cell as the page does.  A cell with inputs runs first with each other combination to
 * pre-render (its `variants`), then with the inputs' defaults, so that the cells below see the
 * namespace of its defaults.  True if every run ended ok. */
async function runCell(runner, cell) {
  for (const variant of cell.variants ?? []) {
    if (!(await runOnce(runner, cell, variant.inputs, variant.key))) return false;
  }
  return runOnce(runner, cell, cell.inputs ?? "", null);
}

async function runOnce(runner, cell, inputs, key) {
  const id = ++runs;
  send({ type: "cell", number: cell.number, id, key });
  const done = await runner.run({
    type: "run", id, code: cell.code, setup: cell.setup, check: null, filename: `<cell ${cell.number}>`,
    inputs, alt: cell.alt ?? "", console: false, ...request.limits, schemes: request.schemes,
  });
  return done.ok;
}

/* Prove the exercises: each solution must pass its check, each starter fail it (bridge.prove). */
async function prove(runner, bridge, exercises) {
  send({ type: "proving" });
  await runner.loadPackages(exercises.flatMap((e) => [e.setup, e.starter, e.check, e.solution]));
  const verdicts = bridge.prove(JSON.stringify(exercises), request.schemes, request.module_hint);
  send({ type: "verdicts", verdicts: JSON.parse(verdicts) });
}

await main();
