/* Course cells: the view of one cell (editor, buttons, status, output).
 *
 * Enhances the cell that the build rendered (cells.py; names in contract.json):
 *   <div class="course-cell" role="region" aria-label="Python cell N" data-code data-setup …>
 *     <div class="course-cell__static">highlighted code</div>
 *     <div class="course-cell__toolbar" hidden> Run, Stop, Reset, Copy, Clear buttons, run count,
 *       status, progress, "edited" note, keyboard hint </div>
 *     <div class="course-cell__output" data-precomputed role="log" …>…</div>
 *     <p class="course-cell__note">…</p>
 * A cell with inputs (or code=folded) has its fieldset, the toolbar and the output first, and the
 * static code (with its setup) in a <details class="course-cell__code"> after them.
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
import { completion } from "./complete.js";
import { loadCodeMirror, makeEditor } from "./cell_editor.js";
import { EditStore } from "./edits.js";
import { CellInputs } from "./inputs.js";
import { undefinedName } from "./page_cells.js";
import { MessageType } from "./protocol.js";
import { CellOutput } from "./cell_output.js";
import { CellStatus, bootText, crashText, formatDuration, freshPython, progressText, waitingText } from "./cell_status.js";
import { formatList, t, tParts } from "./strings.js";
import { el } from "./element.js";
import names from "./dom_names.js";

export { loadCodeMirror }; // enhance.js loads it once Python is quiet

const CELL = names.cell;
const DATA = names.cellData;

const EDITOR_MARGIN = "800px 0px"; // make a cell's editor this far before it scrolls into view

/* The region's data-status once a run has ended, from the kernel's run status. */
const FINAL_STATUS = { ok: "ok", error: "error", stopped: "stopped", cancelled: "stopped", crashed: "error", failed: "error" };

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
    this.pageCells = null; // the page's cells (page_cells.js), set by enhance.js
    this.filename = `<cell ${this.index}>`;
    this.job = null;
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
    this.editedNote = this.part("edited");
    this.status = new CellStatus(root, this.part("status"), this.part("progress"), this.part("count"));
    this.hintId = this.part("hint").id;
    this.out = new CellOutput(this.part("output"));
    root.classList.add(CELL.live);

    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.createEditor();
    }, { rootMargin: EDITOR_MARGIN });
    this.observer.observe(root);
    root.addEventListener("focusin", () => this.createEditor());
    // A cell whose code is folded (an explorable cell): its editor is measured again when the code is shown.
    this.root.querySelector(`.${CELL.code}`)?.addEventListener("toggle", (event) => {
      if (!event.target.open) return;
      this.createEditor();
      this.view?.requestMeasure();
    });
    this.staticBlock.addEventListener("pointerdown", () => this.createEditor({ focus: true }));
    this.runButton.addEventListener("click", () => this.run());
    this.stopButton.addEventListener("click", () => this.stop());
    this.resetButton.addEventListener("click", () => this.reset());
    this.copyButton.addEventListener("click", () => this.copy());
    this.clearButton.addEventListener("click", () => this.clear());
    this.toolbar.hidden = false;
    const label = this.out.node.querySelector(`.${CELL.label}`);
    if (label) label.hidden = false;
    this.out.renderPrecomputed();
    this.enhanceInputs();
    this.showEdited();
    this.showEarlierEdit();
    this.stopWatchingEdits = this.edits.watch(({ code }) => this.editedElsewhere(code ?? this.original));
    this.out.updateEmpty();
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
    const restore = el("button", { type: "button", class: `${CELL.button} ${CELL.restore}`, text: t("cell.restore_edit") });
    restore.addEventListener("click", () => this.restoreEarlierEdit());
    this.changedNotice = el(
      "p",
      { class: CELL.changed },
      ...tParts("cell.code_changed", { button: restore }),
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
    this.out.node.setAttribute("aria-live", "off");
    this.inputs.addEventListener("change", () => this.inputsChanged());
    if (!this.inputs.atDefaults) this.inputsChanged();
  }

  /** An input changed: show its pre-rendered output at once, if the build made one (and the code
   * is the lesson's); run the cell unless that output stands in while Python is not ready. */
  inputsChanged() {
    const template = this.code === this.original ? this.inputs.precomputed() : null;
    if (template) {
      this.out.showVariant(template);
      if (this.kernel.state !== "ready") {
        this.inputs.announce(t("inputs.output_shown", { values: this.inputs.describe() }));
        return;
      }
    }
    if (!this.job) this.run({ fromInputs: true });
    else if (this.job.phase !== "queued") this.rerun = true; // at most one run behind the one running
  }

  /** Replace the static code with the editor (once); `focus` puts the caret in it. */
  async createEditor({ focus = false } = {}) {
    this.wantFocus ||= focus;
    if (this.editorPromise) return this.editorPromise;
    this.observer.disconnect();
    this.editorPromise = loadCodeMirror().then((cm) => {
      if (this.destroyed) return;
      this.cm = cm;
      ({ host: this.editorHost, view: this.view } = makeEditor(cm, {
        doc: this.draft,
        height: parseInt(this.root.getAttribute(DATA.height), 10),
        label: t("cell.editor_label", { cell: this.index }),
        hintId: this.hintId,
        run: () => this.run(),
        changed: (code) => this.remember(code),
        complete: completion(cm, this), // names, attributes and keyword arguments from Jedi (complete.js)
      }));
      return this.swapInEditor();
    });
    return this.editorPromise;
  }

  /* Put the editor where the static code is once it has laid itself out: until CodeMirror's first
   * measure it is taller than it will be (48 px for a 12-line cell), and the toolbar under it, the Run
   * button, would jump down and back up under a press (the press then makes no click).  It is laid
   * out meanwhile beside the static code, hidden and out of the flow, at the width it will have. */
  async swapInEditor() {
    const host = this.editorHost;
    const waiting = { position: "absolute", visibility: "hidden", inlineSize: `${this.staticBlock.offsetWidth}px` };
    Object.assign(host.style, waiting);
    this.staticBlock.after(host);
    await new Promise((measured) => this.view.requestMeasure({ read: () => null, write: () => measured() }));
    for (const property of Object.keys(waiting)) host.style[property] = "";
    if (this.destroyed) return;
    // Focus inside the static code (e.g. on its copy button, reached by Tab) would be lost with it.
    const hadFocus = this.staticBlock.contains(document.activeElement);
    this.staticBlock.remove();
    if (this.wantFocus || hadFocus) this.view.focus();
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

  /** Loading progress and readiness, while this cell has no run of its own. */
  showKernelState() {
    const k = this.kernel;
    if (this.job) {
      if (this.job.phase === "queued" && k.state === "loading") {
        this.status.progress(waitingText(k.progress), "waiting", k.progress);
      }
      return;
    }
    if (this.hasOwnStatus) return;
    if (k.state === "loading") {
      this.status.progress(bootText(k.progress), "loading", k.progress);
    } else if (k.state === "ready") {
      this.status.set(t("python.ready"), "ready");
    } else if (k.state === "failed") {
      this.status.set(t("python.failed"), "error");
    } else {
      this.status.set("", "idle");
    }
  }

  /* ---------------------------------------------------------------- actions */

  /** Queue a run; `fromInputs`: an input changed, so the output stays until the new one is complete. */
  run({ fromInputs = false } = {}) {
    if (this.job) return; // already queued or running: ignore
    this.hasOwnStatus = true;
    this.status.quiet = fromInputs; // the inputs' status says when it is done, the cell's status keeps still
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
      alt: this.root.getAttribute(DATA.alt) ?? "", // the fence's alt text for its figures, {name} filled in Python
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
      this.status.flash(t("cell.copied"));
    } catch (err) {
      this.status.flash(t("cell.copy_failed", { reason: err.message }));
    }
  }

  /** Empty the output (a run under way goes on writing below). */
  clear() {
    this.out.flush();
    this.out.clear();
  }

  /* ---------------------------------------------------------------- events */

  onEvent(msg) {
    const job = this.job;
    switch (msg.type) {
      case "queued":
        if (msg.waitingForPython || this.kernel.state !== "ready") {
          const p = this.kernel.progress;
          this.status.progress(waitingText(p), "waiting", p, true);
        } else {
          this.status.set(msg.position > 1 ? t("run.queued_behind", { count: msg.position }) : t("run.queued"), "queued");
        }
        break;
      case MessageType.PROGRESS: {
        const label = this.packageLabel(msg.packages || []);
        this.status.progress(progressText(t("run.loading_packages", { packages: label }), msg.loaded, msg.total), "loading-packages", msg);
        break;
      }
      case MessageType.STARTED:
        this.out.begin(this.job?.buffered);
        this.status.showCount(msg.count);
        this.status.set(t("run.running"), "running");
        break;
      case "unresponsive":
        this.status.set(t("run.unresponsive", { seconds: msg.seconds }), "running");
        break;
      case "responsive":
        this.status.set(t("run.running"), "running");
        break;
      case "lost":
        this.out.notice(`${crashText(msg)} ${freshPython()}`, "error", this.runAboveButton());
        break;
      case MessageType.ERROR:
        this.out.show(msg);
        this.explainNameError(msg.text);
        break;
      case MessageType.DONE:
        this.finish(job, msg);
        break;
      default:
        this.out.show(msg); // stream text, a result, a figure, the output limit's notices
        break;
    }
  }

  packageLabel(names) {
    const code = `${this.setup}\n${this.code}`;
    const imported = names.filter((n) => new RegExp(`^\\s*(?:import|from)\\s+${n.replace(/[-_]/g, "[-_]")}\\b`, "m").test(code));
    const shown = imported.length ? imported : names.slice(0, 2);
    return shown.length ? formatList(shown) : t("run.packages");
  }

  finish(job, msg) {
    this.out.flush();
    this.out.commit();
    this.job = null;
    this.root.removeAttribute("aria-busy");
    this.root.setAttribute(DATA.status, FINAL_STATUS[msg.status] || "error");
    this.runButton.removeAttribute("aria-disabled");
    if (document.activeElement === this.stopButton) this.runButton.focus(); // disabling Stop would drop focus
    this.stopButton.disabled = true;
    const limit = this.kernel.timeLimitS;
    switch (msg.status) {
      case "ok":
        this.status.set(t("run.done", { duration: formatDuration(msg.ms) }), "done");
        break;
      case "error":
        this.status.set(t("run.error"), "error");
        break;
      case "stopped":
        if (msg.reason === "timeout") {
          this.out.notice(t("cell.time_limit", { seconds: limit }), "stopped");
        }
        if (msg.reset) {
          this.out.notice(
            t("cell.stopped_reset"),
            "stopped",
            this.runAboveButton());
        }
        this.status.set(t("run.stopped"), "stopped");
        break;
      case "cancelled":
        this.status.set(t("run.stopped"), "stopped");
        break;
      case "crashed":
        this.out.notice(`${crashText(msg)} ${freshPython()}`, "error", this.runAboveButton());
        this.status.set(t("run.error"), "error");
        break;
      case "failed":
        this.out.notice(t("cell.load_failed", { reason: msg.message || t("python.unknown_error") }), "error");
        this.status.set(t("run.error"), "error");
        break;
      default:
        this.status.set(t("run.error"), "error");
    }
    const done = { status: this.root.getAttribute(DATA.status), code: job?.code ?? this.code, check: msg.check };
    if (this.status.quiet) this.inputsRunDone(done.status);
    for (const listener of this.runDoneListeners) listener(done);
  }

  /** A run for changed inputs ended: announce it once, or run again for values that changed meanwhile. */
  inputsRunDone(status) {
    this.status.quiet = false;
    if (this.rerun && (status === "ok" || status === "error")) {
      this.rerun = false;
      this.run({ fromInputs: true });
      return;
    }
    this.rerun = false;
    const values = this.inputs.describe();
    this.inputs.announce(t(status === "ok" ? "inputs.output_updated" : "inputs.run_incomplete", { values }));
    if (status !== "ok") this.status.set(status === "stopped" ? t("run.stopped") : t("run.error"), status === "stopped" ? "stopped" : "error");
  }

  /* A NameError for a name that an earlier cell defines: say which, and offer to run the cells above, then this one. */
  explainNameError(traceback) {
    const name = undefinedName(traceback);
    const definer = name && !this.isExercise ? this.pageCells?.definer(this, name) : null;
    if (!definer) return;
    this.out.notice(
      tParts("cell.defined_above", { name: el("code", { text: name }), cell: definer.index }),
      "info",
      this.runAboveButton({ andThis: true }),
    );
  }

  /* "Run the cells above": the page's earlier cells in order (then this one, `andThis`); none above: null. */
  runAboveButton({ andThis = false } = {}) {
    if (this.isExercise || !this.pageCells?.above(this).length) return null;
    const button = el("button", { type: "button", class: `${CELL.button} ${CELL.above}`, text: t("cell.run_above") });
    button.addEventListener("click", () => this.pageCells.runAbove(this, { andThis }));
    return button;
  }

  destroy() {
    this.stopWatchingEdits?.();
    this.kernel.removeEventListener("progress", this.onKernelChange);
    this.kernel.removeEventListener("state", this.onKernelChange);
    this.out.destroy();
    this.destroyed = true;
    this.observer.disconnect();
    this.view?.destroy();
  }
}
