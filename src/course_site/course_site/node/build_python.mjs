// Build-time runs of a page's cells in the site's own Pyodide, under Node (see execute.py).
//
// Reads one JSON request on stdin: where the staged Pyodide files, the site's lock and the
// derived bytecode (the pre-compiled stdlib and the preloaded packages' .pyc, as the browser's
// worker boots with them; null: the official stdlib) are, the Python files to run (cell_exec.py
// and exercise_check.py, which the browser's worker runs too, and build_python.py), the settings the
// worker reads from worker-settings.json (preload, import_packages, module_hint, output limits),
// then the page's cells and its exercises: the cells run first, then, if none raised, the
// exercises are proved, in the same Python, as in the page's one worker in the browser.
// Writes one JSON object per line on stdout:
//   {type: "ready", version}                 Pyodide started, preloaded packages imported
//   {type: "started", number}                cell `number` starts (its packages load first)
//   {type: "variant", number, key, ok, outputs}  the cell run first with another combination of
//                                            its inputs (`key`), before the run with their defaults
//   {type: "cell", number, ok, outputs}      outputs: {kind, text, png?, png_dark?, text_px?}, {kind: "capped"},
//                                            {kind: "dropped", lines, chars}
//   {type: "proving"}                        the exercises' proof starts
//   {type: "verdicts", verdicts}             the exercises' proof
//   {type: "exit", status}                   a cell ended Python (os._exit)
//   {type: "done"}                           the last message
// Anything Pyodide itself prints goes to stderr.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const RUNTIME_DIR = "/home/pyodide/.course";
const BYTECODE_PREFIX = "/course-pyc"; // sys.pycache_prefix, as the browser's worker sets it (worker/boot.js)
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
console.log = console.info = console.warn = (...args) => process.stderr.write(args.join(" ") + "\n");

const request = JSON.parse(readFileSync(0, "utf8"));
let pyodide = null;
let half = null; // build_python.py, imported as course_build_python
let session = null; // its start(): the build's cell_exec.Session (both colour schemes, the module hint)
let output = null; // the RunOutput of the cell that is running

async function main() {
  const { loadPyodide } = createRequire(import.meta.url)(request.index + "pyodide.js");
  pyodide = await loadPyodide({
    indexURL: request.index,
    lockFileURL: request.lock,
    ...(request.stdlib ? { stdLibURL: request.stdlib } : {}),
    packages: request.preload,
    env: { MPLBACKEND: "agg" },
    stdout: () => {},
    stderr: () => {},
  });
  for (const stream of ["stdout", "stderr"]) {
    const decoder = new TextDecoder();
    const write = (bytes) => {
      output?.stream(stream, decoder.decode(bytes, { stream: true }));
      return bytes.length;
    };
    pyodide[stream === "stdout" ? "setStdout" : "setStderr"]({ write });
  }
  for (const [name, path] of Object.entries(request.python)) {
    // course_kernel/cell_exec.py: the package the browser's worker writes the same way (worker/boot.js)
    pyodide.FS.mkdirTree(`${RUNTIME_DIR}/${name}`.replace(/\/[^/]*$/, ""));
    pyodide.FS.writeFile(`${RUNTIME_DIR}/${name}`, readFileSync(path, "utf8"));
  }
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(RUNTIME_DIR)})`);
  // The modules outside the boot stdlib, from the official zip, read on first use as the worker fetches it.
  const officialStdlib = () => new Uint8Array(readFileSync(request.index + "python_stdlib.zip"));
  pyodide.pyimport("course_kernel.stdlib_finder").install(officialStdlib);
  half = pyodide.pyimport("course_build_python");
  session = half.start(request.module_hint, JSON.stringify(request.messages || {}));
  if (request.bytecode) {
    pyodide.unpackArchive(new Uint8Array(readFileSync(request.bytecode)), "zip", { extractDir: BYTECODE_PREFIX });
    pyodide.runPython(`import sys; sys.pycache_prefix = ${JSON.stringify(BYTECODE_PREFIX)}`);
  }
  for (const name of request.preload) pyodide.pyimport(name.replace(/-/g, "_"));
  send({ type: "ready", version: pyodide.version });

  try {
    let ok = true;
    for (const cell of request.cells) if (!(ok = await runCell(cell))) break;
    if (ok && request.exercises.length) await prove(request.exercises);
  } catch (error) {
    if (error?.name !== "ExitStatus" && !Number.isInteger(error?.status)) throw error;
    send({ type: "exit", status: error.status });
  }
  send({ type: "done" });
  // Pipes are written asynchronously: exit once everything sent is out.
  process.stdout.write("", () => process.exit(0));
}

/* Run one cell as the browser's worker does: load its packages, run setup then code.  A cell
 * with inputs runs first with each other combination to pre-render (its `variants`), then with
 * the inputs' defaults, so that the cells below see the namespace of its defaults. */
async function runCell(cell) {
  send({ type: "started", number: cell.number });
  await loadPackages([cell.setup, cell.code]);
  for (const variant of cell.variants ?? []) {
    const { ok, outputs } = await runOnce(cell, variant.inputs);
    send({ type: "variant", number: cell.number, key: variant.key, ok, outputs });
    if (!ok) return false;
  }
  const { ok, outputs } = await runOnce(cell, cell.inputs ?? "");
  send({ type: "cell", number: cell.number, ok, outputs });
  return ok;
}

async function runOnce(cell, inputs) {
  output = new RunOutput(request.limits);
  const emit = (kind, text, png, pngDark, textPx) => output.emit(kind, text, png, pngDark, textPx);
  let ok = half.run(cell.number, cell.setup, cell.code, emit, session, inputs, cell.alt ?? "");
  if (typeof ok !== "boolean") ok = await ok; // a cell that awaits at top level
  const outputs = output.finish();
  output = null;
  return { ok, outputs };
}

/* Prove the exercises: each solution must pass its check, each starter fail it (build_python.py). */
async function prove(exercises) {
  send({ type: "proving" });
  await loadPackages(exercises.flatMap((e) => [e.setup, e.starter, e.check, e.solution]));
  send({ type: "verdicts", verdicts: JSON.parse(half.prove(JSON.stringify(exercises), session)) });
}

/* The lock packages the sources import, and those import_packages adds (as the worker does). */
let warmedMatplotlib = false;
async function loadPackages(sources) {
  const quiet = { messageCallback: () => {}, errorCallback: () => {} };
  for (const source of sources.filter(Boolean)) {
    await pyodide.loadPackagesFromImports(source, quiet);
    const extra = half.extra_packages(source, pyodide.toPy(request.import_packages)).toJs();
    if (extra.length) await pyodide.loadPackage(extra, quiet);
  }
  if (pyodide.loadedPackages.matplotlib && !warmedMatplotlib) {
    warmedMatplotlib = true;
    half.install_font_list(readFileSync(request.font_list, "utf8"));
  }
}

/* One run's output, capped as the browser's worker caps it: at most `limits.lines` lines and
 * `limits.chars` characters of stdout and stderr together; past that, text is counted, not kept.
 * Text is kept as chunks and joined once, so that a cell printing many lines costs linear time. */
class RunOutput {
  constructor(limits) {
    this.limits = limits;
    this.items = [];
    this.lines = this.chars = 0;
    this.capped = false;
    this.dropped = { lines: 0, chars: 0, endsLine: true };
  }

  stream(kind, text) {
    if (!text) return;
    if (this.capped) return this.drop(text);
    const { lines, chars } = this.limits;
    const newlines = countLines(text);
    if (this.lines + newlines <= lines && this.chars + text.length <= chars) return this.keep(kind, text, newlines);
    let cut = this.lines >= lines ? 0 : Math.min(text.length, Math.max(0, chars - this.chars));
    let count = this.lines;
    for (let i = text.indexOf("\n"); cut > 0 && i !== -1 && i < cut; i = text.indexOf("\n", i + 1)) {
      if (++count >= lines) {
        cut = i + 1;
        break;
      }
    }
    this.keep(kind, text.slice(0, cut), countLines(text.slice(0, cut)));
    this.capped = true;
    this.items.push({ kind: "capped" });
    this.drop(text.slice(cut));
  }

  keep(kind, text, newlines) {
    if (!text) return;
    this.lines += newlines;
    this.chars += text.length;
    const last = this.items.at(-1);
    if (last?.kind === kind) last.chunks.push(text);
    else this.items.push({ kind, chunks: [text] });
  }

  drop(text) {
    if (!text) return;
    this.dropped.lines += countLines(text);
    this.dropped.chars += text.length;
    this.dropped.endsLine = text.endsWith("\n");
  }

  /* A result, an error or a figure (from cell_exec's emit); text longer than the cap is cut. */
  emit(kind, text, png, pngDark, textPx) {
    const max = this.limits.chars;
    if (kind !== "figure" && text.length > max)
      text = text.slice(0, max) + `\n… ${text.length - max} characters dropped`;
    const figure = { kind, text, png, png_dark: pngDark || "", text_px: Number(textPx) || 0 };
    this.items.push(kind === "figure" ? figure : { kind, chunks: [text] });
  }

  finish() {
    const items = this.items.map(({ chunks, ...item }) => (chunks ? { ...item, text: chunks.join("") } : item));
    const { lines, chars, endsLine } = this.dropped;
    if (chars) items.push({ kind: "dropped", lines: lines + (endsLine ? 0 : 1), chars });
    return items;
  }
}

function countLines(text) {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

await main();
