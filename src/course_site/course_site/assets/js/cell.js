/* Course cells: the view of one cell (editor, buttons, status, output).
 *
 * Enhances the cell that the build rendered (cells.py; names in contract.json):
 *   <div class="course-cell" role="region" aria-label="Python cell N" data-code data-setup …>
 *     <div class="course-cell__static">highlighted code</div>
 *     <div class="course-cell__toolbar" hidden> Run, Stop, Reset, Copy, Clear buttons, run count,
 *       status, progress, "edited" note, keyboard hint </div>
 *     <div class="course-cell__output" data-precomputed role="log" …>…</div>
 *     <p class="course-cell__note">…</p>
 * It reveals the toolbar at once; the CodeMirror editor replaces the static
 * code when the cell comes near the viewport (or gets focus), so the editors
 * of cells far down the page do not compete with Python's boot.
 * Python output only ever reaches the page as text nodes, through ansi.js
 * (terminal colours and "\r" as in Jupyter's output area).
 *
 * The contract that tests and assistive technology rely on: the region has
 * aria-busy="true" while a run is queued, waits for Python or runs, and
 * data-status="ok" | "error" | "stopped" once a run has ended.  Edits are kept
 * across reloads and reach the page's other tabs (edits.js); an edit of code that a
 * deploy changed is offered back with a "Restore my edit" button (course-cell__changed).
 * A cell with inputs (inputs.js) re-runs as they change: a run still queued takes the latest
 * values when it is sent, a run already running finishes and one more follows it with the latest
 * values; such a run keeps the previous output until its own is complete, then swaps it in, and
 * the inputs' status says so once.  Before Python is ready, a combination the build pre-rendered
 * is shown at once, without a run.
 */
import { appendSegments, render, TerminalOutput } from "./ansi.js";
import { completion } from "./complete.js";
import { EditStore } from "./edits.js";
import { CellInputs } from "./inputs.js";
import { undefinedName } from "./notebook.js";
import { MessageType } from "./protocol.js";
import names from "./dom_names.js";

const CELL = names.cell;
const DATA = names.cellData;

/* CodeMirror, loaded with the first editor (or earlier by enhance.js). */
let codemirror = null;
export const loadCodeMirror = () => (codemirror ??= import("../vendor/codemirror.js"));

const MAX_FIT_LINES = 30;
const EDITOR_MARGIN = "800px 0px"; // make a cell's editor this far before it scrolls into view
const STATUS_PROGRESS_MS = 250; // progress text changes at most this often (aria-busy meanwhile)
const COPIED_MS = 2000; // how long the status says that the code was copied

/* The region's data-status once a run has ended, from the kernel's run status. */
const FINAL_STATUS = { ok: "ok", error: "error", stopped: "stopped", cancelled: "stopped", crashed: "error", failed: "error" };

function el(name, attrs = {}, ...children) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children);
  return node;
}

function formatMB(bytes) {
  return (bytes / 1e6).toFixed(1);
}

function formatDuration(ms) {
  return ms < 10000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function progressText(prefix, loaded, total) {
  if (total > 0) return `${prefix}… ${formatMB(Math.min(loaded, total))} / ${formatMB(total)} MB`;
  if (loaded > 0) return `${prefix}… ${formatMB(loaded)} MB`;
  return `${prefix}…`;
}

/** Byte progress while downloading; `done` once every byte is in (compiling, booting). */
function loadingText(p, prefix, done) {
  return p.total > 0 && p.loaded >= p.total ? done : progressText(prefix, p.loaded, p.total);
}

/* Text with terminal control sequences, rendered into `parent` as text nodes and spans. */
function appendTerminalText(parent, text) {
  render(text).forEach((line, i) => {
    if (i) parent.append("\n");
    appendSegments(parent, line);
  });
}

/* One sentence on why Python died (kernel.js crash details). */
function crashText(msg) {
  if (msg.cause === "exit") return `Python exited with status ${msg.exitStatus ?? "unknown"}.`;
  if (msg.cause === "memory") return "Python ran out of memory and stopped.";
  if (msg.cause === "silent") return "Python stopped answering, probably because the browser ended it to free memory.";
  return `Python stopped working (${msg.message || "the worker crashed"}).`;
}
const FRESH_PYTHON = "A fresh Python starts for the next Run; the namespace was reset, so run earlier cells again if this one needs them.";

let uid = 0;

export class Cell {
  /**
   * @param {HTMLElement} root the .course-cell element
   * @param {import("./kernel.js").Kernel} kernel
   */
  constructor(root, kernel) {
    this.root = root;
    this.kernel = kernel;
    this.index = root.getAttribute(DATA.index) || String(++uid);
    this.original = root.getAttribute(DATA.code) ?? this.part("static").textContent;
    this.edits = new EditStore(this.index, this.original);
    this.draft = this.edits.load().code ?? this.original; // the code while there is no editor yet
    this.runDoneListeners = [];
    this.setup = root.getAttribute(DATA.setup) || "";
    this.defines = new Set((root.getAttribute(DATA.defines) || "").split(" ").filter(Boolean)); // by the build (names.py)
    this.isExercise = root.hasAttribute(DATA.check);
    this.notebook = null; // the page's cells (notebook.js), set by enhance.js
    this.filename = `<cell ${this.index}>`;
    this.job = null;
    this.figureCount = 0;
    this.objectURLs = [];
    this.pending = []; // [stream, text] waiting for the next animation frame
    this.frame = 0;
    this.lastStatusAt = 0;
    this.hasOwnStatus = false;
    this.build();
    this.onKernelChange = () => this.showKernelState();
    kernel.addEventListener("progress", this.onKernelChange);
    kernel.addEventListener("state", this.onKernelChange);
    this.showKernelState();
  }

  /* ---------------------------------------------------------------- DOM */

  /** The cell's element of class CELL[name]; the build rendered it. */
  part(name) {
    const node = this.root.querySelector(`.${CELL[name]}`);
    if (!node) throw new Error(`the cell has no .${CELL[name]}`);
    return node;
  }

  build() {
    const root = this.root;
    this.view = null;
    this.staticBlock = this.part("static");
    this.toolbar = this.part("toolbar");
    this.runButton = this.part("run");
    this.stopButton = this.part("stop");
    this.resetButton = this.part("reset");
    this.copyButton = this.part("copy");
    this.clearButton = this.part("clear");
    this.count = this.part("count");
    this.editedNote = this.part("edited");
    this.status = this.part("status");
    this.progressBar = this.part("progress");
    this.hintId = this.part("hint").id;
    this.output = this.part("output");
    root.classList.add(CELL.live);

    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.createEditor();
    }, { rootMargin: EDITOR_MARGIN });
    this.observer.observe(root);
    root.addEventListener("focusin", () => this.createEditor());
    this.staticBlock.addEventListener("pointerdown", () => this.createEditor({ focus: true }));
    this.runButton.addEventListener("click", () => this.run());
    this.stopButton.addEventListener("click", () => this.stop());
    this.resetButton.addEventListener("click", () => this.reset());
    this.copyButton.addEventListener("click", () => this.copy());
    this.clearButton.addEventListener("click", () => this.clear());
    this.toolbar.hidden = false;
    const label = this.output.querySelector(`.${CELL.label}`);
    if (label) label.hidden = false;
    this.renderPrecomputed();
    this.enhanceInputs();
    this.showEdited();
    this.showEarlierEdit();
    this.stopWatchingEdits = this.edits.watch(({ code }) => this.editedElsewhere(code ?? this.original));
    this.updateEmpty();
  }

  /* A deploy changed the lesson's code of this cell after the learner edited it: the cell shows
   * the new code and says so, with a button that puts the learner's edit back (edits.js). */
  showEarlierEdit() {
    const earlier = this.edits.earlier;
    if (earlier === null || earlier === this.draft) {
      this.changedNotice?.remove();
      this.changedNotice = null;
      if (earlier !== null) this.edits.forgetEarlier();
      return;
    }
    if (this.changedNotice) return;
    const restore = el("button", { type: "button", class: `${CELL.button} ${CELL.restore}`, text: "Restore my edit" });
    restore.addEventListener("click", () => this.restoreEarlierEdit());
    this.changedNotice = el(
      "p",
      { class: CELL.changed },
      "The lesson's code of this cell changed since you edited it: it shows the new code. ",
      restore,
    );
    this.toolbar.before(this.changedNotice);
  }

  /** Put the learner's edit of the cell's earlier code back; Reset then gives the lesson's new code. */
  restoreEarlierEdit() {
    const earlier = this.edits.earlier;
    if (earlier === null) return;
    const hadFocus = this.changedNotice?.contains(document.activeElement);
    this.edits.forgetEarlier();
    this.setEditorCode(earlier);
    this.showEarlierEdit();
    if (hadFocus) (this.view ?? this.runButton).focus();
  }

  /* Another tab saved (or reset) this cell: show its code, so that this tab's next key does not overwrite it. */
  editedElsewhere(code) {
    this.showEarlierEdit();
    if (code === this.code) return;
    // Not saved again: an echo would reach the other tab after its next keys and undo them.
    this.fromOtherTab = true;
    try {
      this.setEditorCode(code);
    } finally {
      this.fromOtherTab = false;
    }
  }

  /** The cell's inputs (inputs.js), if it has any: enabled, restored, and each change shown or run. */
  enhanceInputs() {
    const fieldset = this.root.querySelector(`.${names.inputs.root}`);
    if (!fieldset) return;
    this.inputs = new CellInputs(this.root, fieldset, this.edits);
    // Their own status announces each update, once: the output region is not read out as well.
    this.output.setAttribute("aria-live", "off");
    this.inputs.addEventListener("change", () => this.inputsChanged());
    if (!this.inputs.atDefaults) this.inputsChanged();
  }

  /** An input changed: show its pre-rendered output at once, if the build made one (and the code
   * is the lesson's); run the cell unless that output stands in while Python is not ready. */
  inputsChanged() {
    const template = this.code === this.original ? this.inputs.precomputed() : null;
    if (template) {
      this.showVariant(template);
      if (this.kernel.state !== "ready") {
        this.inputs.announce(`Output shown for ${this.inputs.describe()}.`);
        return;
      }
    }
    if (!this.job) this.run({ fromInputs: true });
    else if (this.job.phase !== "queued") this.rerun = true; // at most one run behind the one running
  }

  /** Show a pre-rendered combination's output in place of the output. */
  showVariant(template) {
    for (const url of this.objectURLs) URL.revokeObjectURL(url);
    this.objectURLs = [];
    const visible = this.shownOutput ?? this.output;
    const label = visible.querySelector(`.${CELL.label}`);
    visible.replaceChildren(...(label ? [label] : []), template.content.cloneNode(true));
    if (label) label.hidden = false;
    visible.setAttribute(DATA.precomputed, "true");
    visible.hidden = false;
  }

  /** Build-time output as live output looks: terminal sequences rendered, not printed raw. */
  renderPrecomputed() {
    for (const pre of this.output.querySelectorAll(`pre.${CELL.out}`)) {
      const text = pre.textContent;
      if (!/[\x1b\r\b]/.test(text)) continue;
      pre.replaceChildren();
      appendTerminalText(pre, text);
    }
  }

  /** Replace the static code with the editor (once); `focus` puts the caret in it. */
  async createEditor({ focus = false } = {}) {
    this.wantFocus ||= focus;
    if (this.editorPromise) return this.editorPromise;
    this.observer.disconnect();
    this.editorPromise = loadCodeMirror().then((cm) => {
      if (this.destroyed) return;
      this.cm = cm;
      this.view = this.makeEditor(cm);
      // Focus inside the static code (e.g. on its copy button, reached by Tab) would be lost with it.
      const hadFocus = this.staticBlock.contains(document.activeElement);
      this.staticBlock.replaceWith(this.editorHost);
      if (this.wantFocus || hadFocus) this.view.focus();
    });
    return this.editorPromise;
  }

  makeEditor(cm) {
    const {
      EditorView, EditorState, Prec, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
      highlightSpecialChars, drawSelection, defaultKeymap, history, historyKeymap, indentWithTab,
      bracketMatching, indentOnInput, indentUnit, syntaxHighlighting, python, courseHighlighter, hangingIndent,
    } = cm;
    this.editorHost = el("div", { class: CELL.editor });
    const height = parseInt(this.root.getAttribute(DATA.height), 10);
    if (height > 0) {
      this.editorHost.classList.add(`${CELL.editor}--fixed`);
      this.editorHost.style.setProperty("--course-cell-lines", String(height));
    } else {
      this.editorHost.style.setProperty("--course-cell-lines", String(MAX_FIT_LINES));
    }
    const run = () => {
      this.run();
      return true;
    };
    return new EditorView({
      parent: this.editorHost,
      state: EditorState.create({
        doc: this.draft,
        extensions: [
          Prec.highest(keymap.of([
            { key: "Shift-Enter", run },
            { key: "Mod-Enter", run },
          ])),
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightSpecialChars(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(courseHighlighter),
          python(),
          completion(cm, this), // names, attributes and keyword arguments from Jedi (complete.js)
          indentUnit.of("    "),
          EditorState.tabSize.of(4),
          EditorView.lineWrapping, // no code is hidden at any width…
          hangingIndent, // …and a continuation starts under its line's indent (course.css)
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          EditorView.contentAttributes.of({
            "aria-label": `Python code, cell ${this.index}`,
            // Editable text is focusable anyway (no new tab stop); saying so lets a scrolling editor count as keyboard-reachable.
            tabindex: "0",
            "aria-describedby": this.hintId,
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) this.remember(update.state.doc.toString());
          }),
        ],
      }),
    });
  }

  /** The code to run: the editor's, or (no editor yet) the kept edit or the lesson's. */
  get code() {
    return this.view ? this.view.state.doc.toString() : this.draft;
  }

  /** Keep `code` as the learner's edit (or forget the edit: it is the lesson's code again). */
  remember(code) {
    this.draft = code;
    if (!this.fromOtherTab) {
      // (another tab's code is stored already)
      if (code === this.original) this.edits.forget();
      else this.edits.save(code);
    }
    this.showEdited();
  }

  showEdited() {
    this.editedNote.hidden = this.draft === this.original;
  }

  /** Replace the code (an exercise's starter or solution): one undoable edit, kept like any other. */
  setEditorCode(code) {
    if (!this.view) {
      this.remember(code);
      return;
    }
    const doc = this.view.state.doc;
    if (doc.toString() === code) return;
    this.view.dispatch({
      changes: { from: 0, to: doc.length, insert: code },
      annotations: this.cm.isolateHistory.of("full"),
    });
  }

  /** Call `listener({status, code})` whenever a run of this cell ends; returns a function that removes it. */
  onRunDone(listener) {
    this.runDoneListeners.push(listener);
    return () => {
      this.runDoneListeners = this.runDoneListeners.filter((l) => l !== listener);
    };
  }

  setStatus(text, state, { progress = null } = {}) {
    if (this.status.textContent !== text && !this.quiet) this.status.textContent = text;
    this.root.setAttribute(DATA.state, state);
    // While bytes count up, screen readers wait for the outcome instead of
    // reading every number.
    if (progress) this.status.setAttribute("aria-busy", "true");
    else this.status.removeAttribute("aria-busy");
    if (progress && progress.total > 0) {
      this.progressBar.hidden = false;
      this.progressBar.max = progress.total;
      this.progressBar.value = Math.min(progress.loaded, progress.total);
    } else if (progress) {
      this.progressBar.hidden = false;
      this.progressBar.removeAttribute("value"); // indeterminate
    } else {
      this.progressBar.hidden = true;
    }
  }

  /** Progress text: change it at most every STATUS_PROGRESS_MS. */
  setProgressStatus(text, state, progress, force = false) {
    const now = performance.now();
    if (force || now - this.lastStatusAt >= STATUS_PROGRESS_MS || this.root.getAttribute(DATA.state) !== state) {
      this.lastStatusAt = now;
      this.setStatus(text, state, { progress });
    } else {
      this.setStatus(this.status.textContent, state, { progress });
    }
  }

  /** Loading progress and readiness, while this cell has no run of its own. */
  showKernelState() {
    const k = this.kernel;
    if (this.job) {
      if (this.job.phase === "queued" && k.state === "loading") {
        this.setProgressStatus(loadingText(k.progress, "Waiting for Python", "Waiting for Python to start…"), "waiting", k.progress);
      }
      return;
    }
    if (this.hasOwnStatus) return;
    if (k.state === "loading") {
      this.setProgressStatus(loadingText(k.progress, "Loading Python", "Starting Python…"), "loading", k.progress);
    } else if (k.state === "ready") {
      this.setStatus("Python is ready", "ready");
    } else if (k.state === "failed") {
      this.setStatus("Python could not be loaded", "error");
    } else {
      this.setStatus("", "idle");
    }
  }

  /* ---------------------------------------------------------------- actions */

  /** Queue a run; `fromInputs`: an input changed, so the output stays until the new one is complete. */
  run({ fromInputs = false } = {}) {
    if (this.job) return; // already queued or running: ignore
    this.hasOwnStatus = true;
    this.quiet = fromInputs; // the inputs' status says when it is done, the cell's status keeps still
    this.root.setAttribute("aria-busy", "true");
    this.root.removeAttribute(DATA.status);
    this.runButton.setAttribute("aria-disabled", "true");
    this.stopButton.disabled = false;
    this.job = this.kernel.run({
      code: this.code,
      setup: this.setup,
      filename: this.filename,
      check: this.root.getAttribute(DATA.check), // an exercise's check; null for a cell
      packages: (this.root.getAttribute(DATA.packages) || "").split(" ").filter(Boolean),
      onEvent: (msg) => this.onEvent(msg),
      inputs: this.inputs ? () => this.inputs.bindings() : null,
      buffered: fromInputs,
    });
  }

  stop() {
    if (this.job) this.kernel.stop(this.job, "user");
  }

  /** Put back the lesson's code and forget the edit (and an earlier one); in the editor, Ctrl+Z brings the edit back. */
  reset() {
    this.edits.forgetEarlier();
    this.showEarlierEdit();
    this.setEditorCode(this.original);
    this.inputs?.reset();
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.setup.trim() ? `${this.setup.replace(/\n*$/, "\n")}${this.code}` : this.code);
      this.flashStatus("Code copied");
    } catch (err) {
      this.flashStatus(`Could not copy the code (${err.message})`);
    }
  }

  /** Say `text` in the status for a moment, then what it said before. */
  flashStatus(text) {
    const before = this.status.textContent;
    this.status.textContent = text;
    setTimeout(() => {
      if (this.status.textContent === text) this.status.textContent = before;
    }, COPIED_MS);
  }

  /** Empty the output (a run under way goes on writing below). */
  clear() {
    this.flush();
    this.clearOutput();
  }

  /* ---------------------------------------------------------------- events */

  onEvent(msg) {
    const job = this.job;
    switch (msg.type) {
      case "queued":
        if (msg.waitingForPython || this.kernel.state !== "ready") {
          const p = this.kernel.progress;
          this.setProgressStatus(loadingText(p, "Waiting for Python", "Waiting for Python to start…"), "waiting", p, true);
        } else {
          this.setStatus(msg.position > 1 ? `Queued (${msg.position} ahead)` : "Queued…", "queued");
        }
        break;
      case MessageType.PROGRESS: {
        const label = this.packageLabel(msg.packages || []);
        this.setProgressStatus(progressText(`Loading ${label}`, msg.loaded, msg.total), "loading-packages", msg);
        break;
      }
      case MessageType.STARTED:
        this.beginLiveOutput();
        this.showCount(msg.count);
        this.setStatus("Running…", "running");
        break;
      case "unresponsive":
        this.setStatus(`Running… Python has not answered for ${msg.seconds} s: it may be busy in one long step, or stopped. Stop restarts it.`, "running");
        break;
      case "responsive":
        this.setStatus("Running…", "running");
        break;
      case "lost":
        this.notice(`${crashText(msg)} ${FRESH_PYTHON}`, "error", this.runAboveButton());
        break;
      case MessageType.STREAM:
        this.pending.push([msg.stream, msg.text]);
        if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
        break;
      case MessageType.RESULT:
        this.append("result", msg.text);
        break;
      case MessageType.ERROR:
        this.append("error", msg.text);
        this.explainNameError(msg.text);
        break;
      case MessageType.FIGURE:
        this.appendFigure(msg.png, msg.alt, msg.scheme, msg.textPx);
        break;
      case MessageType.CAPPED:
        this.flush();
        this.notice(`Output limit reached (${msg.maxLines} lines or ${Math.round(msg.maxChars / 1000)} kB per run); the rest is dropped.`);
        break;
      case MessageType.DROPPED:
        this.flush();
        this.notice(`… ${msg.lines.toLocaleString("en")} line${msg.lines === 1 ? "" : "s"} dropped (${formatMB(msg.chars)} MB of output not shown).`, "dropped");
        break;
      case MessageType.DONE:
        this.finish(job, msg);
        break;
      default:
        break;
    }
  }

  packageLabel(names) {
    const code = `${this.setup}\n${this.code}`;
    const imported = names.filter((n) => new RegExp(`^\\s*(?:import|from)\\s+${n.replace(/[-_]/g, "[-_]")}\\b`, "m").test(code));
    const shown = imported.length ? imported : names.slice(0, 2);
    return shown.length ? shown.join(", ") : "packages";
  }

  finish(job, msg) {
    this.flush();
    this.commitOutput();
    this.job = null;
    this.root.removeAttribute("aria-busy");
    this.root.setAttribute(DATA.status, FINAL_STATUS[msg.status] || "error");
    this.runButton.removeAttribute("aria-disabled");
    if (document.activeElement === this.stopButton) this.runButton.focus(); // disabling Stop would drop focus
    this.stopButton.disabled = true;
    const limit = this.kernel.timeLimitS;
    switch (msg.status) {
      case "ok":
        this.setStatus(`Done in ${formatDuration(msg.ms)}`, "done");
        break;
      case "error":
        this.setStatus("Error", "error");
        break;
      case "stopped":
        if (msg.reason === "timeout") {
          this.notice(`Stopped: this cell ran longer than the page's time limit of ${limit} s.`, "stopped");
        }
        if (msg.reset) {
          this.notice(
            "Stopped. Python was restarted to stop this cell, so the namespace was reset: "
            + "variables, functions and imports from cells you ran earlier are gone. "
            + "Run those cells again before this one if it needs them. Your code is kept.",
            "stopped",
            this.runAboveButton());
        }
        this.setStatus("Stopped", "stopped");
        break;
      case "cancelled":
        this.setStatus("Stopped", "stopped");
        break;
      case "crashed":
        this.notice(`${crashText(msg)} ${FRESH_PYTHON}`, "error", this.runAboveButton());
        this.setStatus("Error", "error");
        break;
      case "failed":
        this.notice(`Python could not be loaded: ${msg.message || "unknown error"}. Check your connection, then press Run to try again.`, "error");
        this.setStatus("Error", "error");
        break;
      default:
        this.setStatus("Error", "error");
    }
    const done = { status: this.root.getAttribute(DATA.status), code: job?.code ?? this.code, check: msg.check };
    if (this.quiet) this.inputsRunDone(done.status);
    for (const listener of this.runDoneListeners) listener(done);
  }

  /** A run for changed inputs ended: announce it once, or run again for values that changed meanwhile. */
  inputsRunDone(status) {
    this.quiet = false;
    if (this.rerun && (status === "ok" || status === "error")) {
      this.rerun = false;
      this.run({ fromInputs: true });
      return;
    }
    this.rerun = false;
    const values = this.inputs.describe();
    this.inputs.announce(status === "ok" ? `Output updated for ${values}.` : `The run for ${values} did not complete.`);
    if (status !== "ok") this.setStatus(status === "stopped" ? "Stopped" : "Error", status === "stopped" ? "stopped" : "error");
  }

  /** Jupyter's execution count and the time of the run: which run the output is from. */
  showCount(count) {
    const time = new Date().toLocaleTimeString("en-GB", { hour12: false });
    this.count.textContent = `[${count}] ${time}`;
    this.count.title = `Run ${count} since Python started, at ${time}`;
    this.count.hidden = false;
  }

  /* ---------------------------------------------------------------- output */

  beginLiveOutput() {
    this.pending = [];
    if (!this.job?.buffered) {
      this.clearOutput();
      return;
    }
    // Written into a copy out of the page, swapped in when complete (commitOutput): no flicker.
    this.shownOutput = this.output;
    this.shownURLs = this.objectURLs;
    this.objectURLs = [];
    this.figureCount = 0;
    this.lastPre = null;
    this.output = this.output.cloneNode(false);
  }

  /** A buffered run ended: its output replaces the one shown. */
  commitOutput() {
    const shown = this.shownOutput;
    if (!shown) return;
    const live = this.output;
    this.shownOutput = null;
    this.output = shown;
    for (const url of this.shownURLs) URL.revokeObjectURL(url);
    this.shownURLs = [];
    shown.replaceChildren(...live.childNodes);
    shown.setAttribute(DATA.precomputed, "false");
    this.updateEmpty();
  }

  clearOutput() {
    for (const url of this.objectURLs) URL.revokeObjectURL(url);
    this.objectURLs = [];
    this.figureCount = 0;
    this.output.replaceChildren();
    this.output.setAttribute(DATA.precomputed, "false");
    this.lastPre = null;
    this.updateEmpty();
  }

  /** Write batched stream text (one DOM update per animation frame). */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!this.pending.length) return;
    const stick = this.isScrolledToEnd();
    for (const [stream, text] of this.pending) {
      const last = this.lastPre;
      if (!(last && last.dataset.stream === stream && last === this.output.lastElementChild)) {
        const pre = el("pre", { class: `${CELL.out} ${CELL.out}--${stream}` });
        pre.dataset.stream = stream;
        this.output.append(pre);
        this.lastPre = pre;
        this.terminal = new TerminalOutput(pre);
      }
      this.terminal.write(text);
    }
    this.pending = [];
    this.updateEmpty();
    if (stick) this.output.scrollTop = this.output.scrollHeight;
  }

  append(kind, text) {
    this.flush();
    const stick = this.isScrolledToEnd();
    const pre = el("pre", { class: `${CELL.out} ${CELL.out}--${kind}` });
    appendTerminalText(pre, text);
    this.output.append(pre);
    this.lastPre = null;
    this.updateEmpty();
    if (stick) this.output.scrollTop = this.output.scrollHeight;
  }

  appendFigure(png, alt, scheme, textPx) {
    this.flush();
    this.figureCount += 1;
    const url = URL.createObjectURL(new Blob([png], { type: "image/png" }));
    this.objectURLs.push(url);
    // data-scheme: the colour scheme it was drawn in (course.css re-styles it if the palette switches)
    const img = el("img", {
      src: url, alt: alt || `Figure ${this.figureCount}`, "data-scheme": scheme || "default", "data-text-px": String(textPx ?? ""),
    });
    this.output.append(el("figure", { class: `${CELL.out} ${CELL.out}--figure` }, img));
    this.lastPre = null;
    this.updateEmpty();
  }

  notice(text, kind = "info", ...more) {
    this.flush();
    const parts = Array.isArray(text) ? text : [text];
    this.output.append(el("p", { class: `${CELL.notice} ${CELL.notice}--${kind}` }, ...parts, ...more.filter(Boolean)));
    this.lastPre = null;
    this.updateEmpty();
  }

  /* A NameError for a name that an earlier cell defines: say which, and offer to run the cells above, then this one. */
  explainNameError(traceback) {
    const name = undefinedName(traceback);
    const definer = name && !this.isExercise ? this.notebook?.definer(this, name) : null;
    if (!definer) return;
    this.notice(
      [el("code", { text: name }), ` is defined in cell ${definer.index} above: run it first.`],
      "info",
      this.runAboveButton({ andThis: true }),
    );
  }

  /* "Run the cells above": the page's earlier cells in order (then this one, `andThis`); none above: null. */
  runAboveButton({ andThis = false } = {}) {
    if (this.isExercise || !this.notebook?.above(this).length) return null;
    const button = el("button", { type: "button", class: `${CELL.button} ${CELL.above}`, text: "Run the cells above" });
    button.addEventListener("click", () => this.notebook.runAbove(this, { andThis }));
    return button;
  }

  isScrolledToEnd() {
    const o = this.output;
    return o.scrollHeight - o.scrollTop - o.clientHeight < 24;
  }

  updateEmpty() {
    this.output.hidden = this.output.childElementCount === 0;
  }

  destroy() {
    this.stopWatchingEdits?.();
    this.kernel.removeEventListener("progress", this.onKernelChange);
    this.kernel.removeEventListener("state", this.onKernelChange);
    for (const url of this.objectURLs) URL.revokeObjectURL(url);
    this.destroyed = true;
    this.observer.disconnect();
    this.view?.destroy();
  }
}
