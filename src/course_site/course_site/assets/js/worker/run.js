/* The cell runner, the same for both of its hosts: the browser's Python worker (dispatch.js) and
 * the build's Python under Node (../../../node/build_python.mjs).  A run loads the packages its
 * sources import, calls the Python bridge (course_kernel/bridge.py) with one payload, and sends
 * its output (output.js: capped, batched) and its end as the messages of contract.json, through
 * the host's `post`.  So the build sees exactly the messages the page renders. */
import { MessageType } from "../protocol.js";
import { learnerError, messageOf, t } from "../strings.js";
import { abandonRun, closeRun, flushStream, isOpen, openRun, usePost } from "./output.js";

/**
 * Why Pyodide can no longer be used, from the error it died of: {cause, exitStatus, message}.
 * cause is "exit" (os._exit: Pyodide's error named "Exit" carries the status),
 * "memory" or "crash"; message is its first line, without Pyodide's stack dump.
 */
export function describeFatal(err) {
  const text = String(err && err.message ? err.message : err);
  const firstLine = text.split("\n")[0].trim();
  if (err && (err.name === "Exit" || err.name === "ExitStatus")) {
    const status = Number.isInteger(err.status) ? err.status : Number((/\d+/.exec(text) || [])[0]);
    return { cause: "exit", exitStatus: Number.isInteger(status) ? status : null, message: firstLine };
  }
  if (OUT_OF_MEMORY.test(text) || (err && err.name === "RangeError" && /memory/i.test(text))) {
    return { cause: "memory", exitStatus: null, message: firstLine };
  }
  return { cause: "crash", exitStatus: null, message: firstLine };
}

const OUT_OF_MEMORY = /out of memory|\bOOM\b|memory size exceeded|could not allocate memory|allocation failed|Cannot enlarge memory/i;

/**
 * A runner over a booted Python, for `host`:
 *   pyodide, bridge            Pyodide and course_kernel.bridge
 *   importPackages, moduleHint the site's settings (worker-settings.json's import_packages, module_hint)
 *   post(message, transfer?)   sends a message (contract.json's "toPage")
 *   fontList()                 the site's matplotlib font list (a promise of bytes or null)
 *   provideStdlib()            hands Python the official stdlib zip (a promise)
 *   loading(id, names)         packages `names` start loading for run `id` (null: done); optional
 *   starting()                 the run's Python is about to start (Stop's request is cleared); optional
 *   cancelled                  a Set of the run ids to drop once their packages are loaded; optional
 * Returns {run(msg), loadPackages(sources, id?)}.
 */
export function makeRunner(host) {
  const { pyodide, bridge } = host;
  const importPackages = pyodide.toPy(host.importPackages || {});
  const scanned = new Set(); // sources whose imports are loaded: Run again does not parse them again
  const cancelled = host.cancelled ?? new Set();
  let warmedMatplotlib = false;
  usePost(host.post);

  /* Load the wheels that `sources` import, then warm matplotlib once it is loaded. */
  async function loadPackages(sources, id = null) {
    const requested = []; // every package Pyodide said it loads for this run
    const onMessage = (text) => {
      const m = /^Loading (.+)$/.exec(String(text));
      if (!m) return;
      const names = m[1].split(",").map((s) => s.trim()).filter(Boolean);
      requested.push(...names);
      host.loading?.(id, names);
    };
    const quiet = { messageCallback: onMessage, errorCallback: () => {} };
    for (const source of sources) {
      if (!source || scanned.has(source)) continue;
      await pyodide.loadPackagesFromImports(source, quiet);
      const extra = bridge.extra_packages(source, importPackages);
      const names = extra.toJs();
      extra.destroy();
      if (names.length) await pyodide.loadPackage(names, quiet);
      failIfMissing(requested);
      if (requested.length || bridge.stdlib_needed(source)) await host.provideStdlib();
      scanned.add(source);
    }
    if (pyodide.loadedPackages.matplotlib && !warmedMatplotlib) {
      warmedMatplotlib = true;
      bridge.warm_matplotlib(await host.fontList());
    }
  }

  /* Pyodide's loader reports a wheel it could not download only to errorCallback: name it in an error. */
  function failIfMissing(names) {
    const missing = names.filter((name) => !pyodide.loadedPackages[name]);
    if (missing.length) throw learnerError("download.packages", { packages: missing.join(", ") });
  }

  /** Run one cell, exercise or console statement (a "run" message): its packages, then its code;
   * ends with "done", which it also returns (or, when Python died, "fatal", and throws). */
  async function run(msg) {
    const c = openRun(msg.id, msg.maxLines, msg.maxChars);
    const end = { ok: false, status: "error", check: undefined, started: performance.now() };
    const t0 = end.started;
    let done;
    try {
      await attempt(msg, end);
    } catch (err) {
      // A Python exception escaping run_cell (KeyboardInterrupt arriving between two statements of
      // the bridge) or a fatal Pyodide error (the worker's on_fatal has told the page then).
      flushStream();
      const text = String(err && err.message ? err.message : err);
      if (/KeyboardInterrupt/.test(text)) {
        host.post({ type: MessageType.ERROR, id: msg.id, text: "KeyboardInterrupt\n" });
      } else if (isFatal(err)) {
        host.post({ type: MessageType.FATAL, id: msg.id, ...describeFatal(err) });
        abandonRun();
        throw err;
      } else {
        host.post({ type: MessageType.ERROR, id: msg.id, text });
      }
    } finally {
      if (isOpen(c)) {
        closeRun();
        const { ok, status, check } = end;
        const now = performance.now();
        host.post((done = {
          type: MessageType.DONE, id: c.id, ok, status, check, ms: Math.round(now - end.started), totalMs: Math.round(now - t0),
        }));
      }
    }
    return done;
  }

  /* The run itself, its outcome written into `end` (ok, status, check, and when its Python started). */
  async function attempt(msg, end) {
    // A console's statement that is not finished yet (`def f():`) waits for its next line: nothing runs.
    if (msg.console && bridge.needs_more_input(msg.code)) {
      end.status = "incomplete";
      return;
    }
    host.loading?.(msg.id, []);
    try {
      await loadPackages([msg.setup, msg.code, msg.check], msg.id);
    } catch (err) {
      // A wheel that could not be downloaded (offline?) is this run's error, not a broken Python.
      const reason = messageOf(err).split("\n")[0];
      host.post({ type: MessageType.ERROR, id: msg.id, text: `${t("run.packages_failed", { reason })}\n` });
      return;
    } finally {
      host.loading?.(null, null);
    }
    if (cancelled.delete(msg.id)) {
      end.status = "cancelled";
      return;
    }
    host.starting?.();
    host.post({ type: MessageType.STARTED, id: msg.id });
    end.started = performance.now();
    if (typeof msg.check === "string") {
      Object.assign(end, exerciseOutcome(bridge.run_exercise(payload(msg))));
    } else {
      end.ok = await outcome(bridge.run(payload(msg)));
    }
    end.status = end.ok ? "ok" : "error";
  }

  /* The bridge's one argument (bridge.Payload): the run message's code and the host's settings. */
  function payload(msg) {
    return {
      code: msg.code, filename: msg.filename, setup: msg.setup || "", inputs: msg.inputs || "", alt: msg.alt || "",
      check: msg.check ?? null, schemes: msg.schemes || ["default"], module_hint: host.moduleHint || null,
    };
  }

  /* A cell's result: a bool, or (a cell that awaits at top level) a Python awaitable giving it. */
  async function outcome(result) {
    if (!(result instanceof pyodide.ffi.PyProxy)) return result;
    try {
      return await result;
    } finally {
      result.destroy();
    }
  }

  /* An exercise's run, from bridge.run_exercise: {ok, check: {passed, message}}. */
  function exerciseOutcome(result) {
    try {
      const { ok, passed, message } = result.toJs({ dict_converter: Object.fromEntries });
      return { ok, check: { passed, message } };
    } finally {
      result.destroy();
    }
  }

  return { run, loadPackages };
}

function isFatal(err) {
  const text = String(err);
  if (/fatal error|Aborted\(|RuntimeError: (unreachable|memory access out of bounds)|Maximum call stack/i.test(text)) return true;
  return !(err && err.constructor && err.constructor.name === "PythonError");
}
