/* The editor's completion: CodeMirror's autocompletion, answered by Jedi in the Python worker.
 *
 * Every cell's editor (cell.js) gets `completion(cm, cell)`.  As the learner types a name or
 * a dot (or presses Ctrl+Space), the editor asks the page's kernel for completions at the
 * cursor; the worker answers from Jedi over the page's one namespace, so the names that
 * earlier runs defined complete, with attributes of live objects and a call's keyword
 * arguments (worker/complete.js, course_kernel/completion.py).  The messages are in protocol.js.
 *
 * A request never waits for Python: while Python boots, a run is queued or running, or the
 * worker is being replaced, it is dropped at once (no completions) and the editor goes on.
 * The first request loads Jedi, so its answer comes after that; later ones come within
 * a few tens of milliseconds (benchmarks/completion.py).  CodeMirror's pop-up is an ARIA
 * listbox tied to the editor (aria-expanded, aria-activedescendant): arrows choose,
 * Enter accepts, Escape closes.
 */
import { MessageType } from "./protocol.js";

const TRIGGER = /(?:[A-Za-z_]\w*|[\w)\]]\.\w*)$/; // a name being typed, or a dot after one
const NOT_CODE = new Set(["String", "FormatString", "Comment", "Number"]);

/** The page's completion requests to its kernel's worker, and their answers. */
class Completer {
  constructor(kernel) {
    this.kernel = kernel;
    this.pending = new Map(); // request id -> resolve(answer | null)
    this.nextId = 1;
    kernel.addEventListener("completions", (event) => this.settle(event.data.id, event.data));
    kernel.addEventListener("state", () => this.dropAll()); // a worker lost or replaced answers no more
  }

  /** The worker's answer ({from, options}) for `request` ({code, setup, line, column}), or null. */
  ask(request) {
    if (!this.kernel.idle || !this.kernel.worker) return Promise.resolve(null);
    const id = this.nextId++;
    this.kernel.worker.postMessage({ type: MessageType.COMPLETE, id, ...request });
    const runs = this.kernel.runsSent;
    return new Promise((resolve) => this.pending.set(id, { resolve, runs }));
  }

  /* The answer to request `id`; null if it was dropped, or if a run was sent after it (the worker
   * answers such a request once the run is over: its names are stale, and the learner has moved on). */
  settle(id, msg) {
    const asked = this.pending.get(id);
    this.pending.delete(id);
    if (msg?.error) console.info(`course: no completions (${msg.error})`);
    const current = asked && asked.runs === this.kernel.runsSent;
    asked?.resolve(msg && !msg.dropped && current ? msg : null);
  }

  dropAll() {
    for (const id of [...this.pending.keys()]) this.settle(id, null);
  }
}

export { Completer }; // for its tests

const completers = new WeakMap(); // kernel -> Completer

function completerFor(kernel) {
  if (!completers.has(kernel)) completers.set(kernel, new Completer(kernel));
  return completers.get(kernel);
}

/** CodeMirror's completion source for `cell` (a cell.js Cell: its kernel and setup). */
function source(cm, cell) {
  return async (context) => {
    const { state, pos } = context;
    if (NOT_CODE.has(cm.syntaxTree(state).resolveInner(pos, -1).name)) return null;
    if (!context.explicit && !context.matchBefore(TRIGGER)) return null;
    const line = state.doc.lineAt(pos);
    const request = { code: state.doc.toString(), setup: cell.setup, line: line.number, column: pos - line.from };
    const answer = await completerFor(cell.kernel).ask(request);
    if (!answer || context.aborted || !answer.options.length) return null;
    return {
      from: line.from + answer.from,
      options: answer.options.map(option),
      validFor: /^\w*=?$/, // typing on narrows these options without asking again
    };
  };
}

/* One of the worker's options as CodeMirror shows it: the signature beside it, the docstring's first line below. */
function option({ label, type, detail, info, boost }) {
  return { label, type, boost, ...(detail && { detail }), ...(info && { info }) };
}

/** The editor extension: autocompletion from the worker, with CodeMirror's keymap. */
export function completion(cm, cell) {
  return [cm.autocompletion({ override: [source(cm, cell)], maxRenderedOptions: 100, icons: true }), escapeThenTab(cm)];
}

/* "Escape, then Tab" leaves the editor (CodeMirror lets Tab move focus for 2 s after an Escape), also when
 * that Escape closed the completions: their keymap takes the key before CodeMirror's own Escape watch sees
 * it.  Runs first and leaves the key to the keymap (returns false). */
function escapeThenTab(cm) {
  const TAB_LEAVES_FOR_MS = 2000; // as CodeMirror's own Escape
  return cm.Prec.highest(cm.EditorView.domEventHandlers({
    keydown(event, view) {
      if (event.key === "Escape") view.setTabFocusMode(TAB_LEAVES_FOR_MS);
      return false;
    },
  }));
}
