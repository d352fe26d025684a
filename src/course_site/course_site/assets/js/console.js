/* The Python console of a lesson page: a panel docked at the bottom, opened by the header's
 * "Python console" button or Ctrl+` (the key left of 1, anywhere on the page), that runs
 * statements in the page's Python, beside its cells (console_session.js: same worker, namespace
 * and queue).
 *
 *   <section id="course-console" class="course-console" role="region" aria-label="Python console"
 *            data-state="idle|busy|more|ok|error|stopped">
 *     <div class="course-console__bar"> title, status, Stop, Clear, Close </div>
 *     <div class="course-console__log" role="log" aria-live="polite" aria-label="Console output">
 *       <div class="course-console__entry"><pre class="course-out course-console__echo">>>> …</pre> output </div> …
 *     </div>
 *     <div class="course-console__prompt-row"> the input (CodeMirror: a textbox named "Python console
 *       input", its prompt ">>>" then "..." in the gutter) and Run </div>
 *   </section>
 *
 * Keys in the input: Enter runs the statement if it is finished, else adds a "..." line;
 * Shift+Enter adds a line; ↑ on the first line and ↓ on the last go through the history
 * (console_history.js, kept across reloads); Ctrl+L clears the log; Escape closes the console.
 * Completion is the cells' (complete.js: Jedi over the page's namespace).  Python's output reaches
 * the log as text nodes (cell_output.js), as a cell's does; the log keeps the last LOG_ENTRIES.
 */
import { completion } from "./complete.js";
import { loadCodeMirror } from "./cell_editor.js";
import { CellOutput } from "./cell_output.js";
import { bootText } from "./cell_status.js";
import { editorPhrases, t } from "./strings.js";
import { ConsoleHistory } from "./console_history.js";
import { siteRoot } from "./storage.js";
import { ConsoleSession } from "./console_session.js";
import { el } from "./element.js";
import names from "./dom_names.js";

const ID = "course-console";
const C = "course-console";
const CELL = names.cell; // the console's buttons and echo look like a cell's
export const LOG_ENTRIES = 500;
const SVG = "http://www.w3.org/2000/svg";
// Material Design Icons' "console" (Apache-2.0), as Material for MkDocs bundles them.
const ICON = "M20,19V7H4V19H20M20,3A2,2 0 0,1 22,5V19A2,2 0 0,1 20,21H4A2,2 0 0,1 2,19V5C2,3.89 2.9,3 4,3H20M13,17V15H18V17H13M9.58,13L5.57,9H8.4L11.7,12.3C12.09,12.69 12.09,13.33 11.7,13.72L8.42,17H5.59L9.58,13Z";

/** Ctrl+` (by the key's place, so on every keyboard layout): opens or closes the console. */
export function isToggleKey(event) {
  return event.ctrlKey && !event.altKey && !event.metaKey && (event.code === "Backquote" || event.key === "`");
}

/** A statement as the log echoes it: ">>> " before its first line, "... " before the others. */
export function echoText(source) {
  return source.replace(/\s+$/, "").split("\n").map((line, i) => `${i ? "..." : ">>>"} ${line}`).join("\n");
}

/** The site's root path (Material's config names it), whose pages share one history. */
function icon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", ICON);
  svg.append(path);
  return svg;
}

export class PythonConsole {
  /** @param {import("./kernel.js").Kernel} kernel the page's kernel */
  constructor(kernel) {
    this.kernel = kernel;
    this.history = new ConsoleHistory(siteRoot());
    this.session = new ConsoleSession(kernel, this);
    this.view = null; // the input's CodeMirror view, made when the console first opens
    this.build();
    this.onKernelChange = () => this.showKernelState();
    kernel.addEventListener("state", this.onKernelChange);
    kernel.addEventListener("progress", this.onKernelChange);
    this.onKey = (event) => {
      if (!isToggleKey(event)) return;
      event.preventDefault();
      this.toggle();
    };
    document.addEventListener("keydown", this.onKey);
    this.showKernelState();
  }

  build() {
    const hintId = `${ID}-hint`;
    this.statusText = el("span", { class: `${C}__status` });
    this.stopButton = el("button", { type: "button", class: `${CELL.button} ${C}__stop`, text: t("console.stop"), disabled: true });
    this.clearButton = el("button", { type: "button", class: `${CELL.button} ${C}__clear`, text: t("console.clear"), title: t("console.clear_title") });
    this.closeButton = el("button", { type: "button", class: `${CELL.button} ${C}__close`, text: t("console.close"), title: t("console.close_title") });
    this.log = el("div", { class: `${C}__log`, role: "log", "aria-live": "polite", "aria-label": t("console.output"), tabindex: "0" });
    this.inputHost = el("div", { class: `${C}__input` });
    this.runButton = el("button", { type: "button", class: `${CELL.button} ${C}__run`, text: t("console.run"), "aria-label": t("console.run_label") });
    this.hint = el("p", {
      id: hintId, class: "course-visually-hidden",
      text: t("console.keys"),
    });
    this.hintId = hintId;
    this.root = el(
      "section",
      { id: ID, class: C, role: "region", "aria-label": t("console.name"), "data-state": "idle", hidden: true },
      el("div", { class: `${C}__bar` }, el("p", { class: `${C}__title`, text: t("console.name") }), this.statusText, this.stopButton, this.clearButton, this.closeButton),
      this.log,
      el("div", { class: `${C}__prompt-row` }, this.inputHost, this.runButton),
      this.hint,
    );
    // The log follows its output while it is scrolled to its end (a learner who scrolls up to read stays there).
    this.atEnd = true;
    this.log.addEventListener("scroll", () => {
      this.atEnd = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 24;
    });
    this.following = new MutationObserver(() => this.atEnd && this.scrollToEnd());
    this.following.observe(this.log, { childList: true, subtree: true, characterData: true });
    this.stopButton.addEventListener("click", () => this.session.stop());
    this.clearButton.addEventListener("click", () => this.clear());
    this.closeButton.addEventListener("click", () => this.close());
    this.runButton.addEventListener("click", () => {
      this.submit();
      this.view?.focus(); // the next statement is typed where the last one was
    });
    document.body.append(this.root);
    this.toggleButton = this.makeToggle();
    this.resizing = new ResizeObserver(() => {
      document.body.style.setProperty("--course-console-height", `${this.root.offsetHeight}px`);
    });
    this.resizing.observe(this.root);
  }

  /* The header's "Python console" button (Material's header; elsewhere a button at the window's corner). */
  makeToggle() {
    const button = el("button", {
      type: "button", class: "md-header__button md-icon course-console-toggle", "aria-label": t("console.name"),
      title: t("console.toggle_title"), "aria-expanded": "false", "aria-controls": ID, "aria-keyshortcuts": "Control+`",
    }, icon());
    button.addEventListener("click", () => this.toggle());
    const header = document.querySelector(".md-header__inner");
    if (header) {
      header.insertBefore(button, header.querySelector("label[for='__search'], .md-search, .md-header__source"));
    } else {
      button.classList.add("course-console-toggle--floating");
      document.body.append(button);
    }
    return button;
  }

  get isOpen() {
    return !this.root.hidden;
  }

  toggle() {
    if (this.isOpen) this.close();
    else this.open();
  }

  /** Show the console and put the caret in its input. */
  async open() {
    this.root.hidden = false;
    this.toggleButton.setAttribute("aria-expanded", "true");
    document.body.classList.add("course-console-open");
    const view = await this.input();
    if (this.isOpen) view?.focus();
  }

  /** Hide the console (what it ran and is running stays); focus goes back to its button. */
  close() {
    const hadFocus = this.root.contains(document.activeElement);
    this.root.hidden = true;
    this.toggleButton.setAttribute("aria-expanded", "false");
    document.body.classList.remove("course-console-open");
    if (hadFocus) this.toggleButton.focus();
  }

  /* The input's editor, made once. */
  input() {
    this.inputPromise ??= loadCodeMirror().then((cm) => {
      if (this.destroyed) return null;
      this.cm = cm;
      this.view = this.makeInput(cm);
      return this.view;
    });
    return this.inputPromise;
  }

  makeInput(cm) {
    const {
      EditorView, EditorState, Prec, keymap, lineNumbers, highlightSpecialChars, drawSelection, defaultKeymap, history,
      historyKeymap, bracketMatching, indentOnInput, indentUnit, syntaxHighlighting, python, courseHighlighter, hangingIndent,
      insertNewlineAndIndent,
    } = cm;
    const onFirstLine = (view) => view.state.doc.lineAt(view.state.selection.main.head).number === 1;
    const onLastLine = (view) => view.state.doc.lineAt(view.state.selection.main.head).number === view.state.doc.lines;
    return new EditorView({
      parent: this.inputHost,
      state: EditorState.create({
        doc: this.history.draft,
        extensions: [
          // Below completion's keys (Prec.highest): while its list is open, Enter, ↑, ↓ and Escape are its own.
          Prec.high(keymap.of([
            { key: "Enter", run: () => this.submit() },
            { key: "Shift-Enter", run: insertNewlineAndIndent },
            { key: "ArrowUp", run: (view) => onFirstLine(view) && this.browse(this.history.previous(view.state.doc.toString())) },
            { key: "ArrowDown", run: (view) => onLastLine(view) && this.browse(this.history.next()) },
            { key: "Ctrl-l", run: () => this.clear(), preventDefault: true },
            { key: "Escape", run: () => (this.close(), true) },
          ])),
          lineNumbers({ formatNumber: (n) => (n === 1 ? ">>>" : "...") }), // the prompt, in the gutter (aria-hidden)
          highlightSpecialChars(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          syntaxHighlighting(courseHighlighter),
          python(),
          completion(cm, { kernel: this.kernel, setup: "" }),
          indentUnit.of("    "),
          EditorState.tabSize.of(4),
          EditorState.phrases.of(editorPhrases()), // CodeMirror's own words (screen readers), in the page's language
          EditorView.lineWrapping,
          hangingIndent,
          keymap.of([...defaultKeymap, ...historyKeymap]), // no Tab binding: Tab leaves the input
          EditorView.contentAttributes.of({ "aria-label": t("console.input"), "aria-describedby": this.hintId, tabindex: "0" }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) this.history.edit(update.state.doc.toString());
          }),
        ],
      }),
    });
  }

  /* Show a history entry in the input, the caret at its end; false (the key moves the caret) if there is none. */
  browse(text) {
    if (text === null || !this.view) return false;
    this.setInput(text);
    return true;
  }

  setInput(text) {
    const view = this.view;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: text.length } });
  }

  /** Enter or Run: send the input (nothing while a statement is under way, or for a blank input). */
  submit() {
    if (!this.view || this.session.busy) return true;
    const source = this.view.state.doc.toString();
    if (!this.session.submit(source)) return true;
    this.sent = source; // what the learner types meanwhile stays in the input, after it
    this.root.dataset.state = "busy";
    this.root.setAttribute("aria-busy", "true");
    this.stopButton.disabled = false;
    return true;
  }

  /** Empty the log (a statement under way goes on writing into its own entry, gone from the log). */
  clear() {
    for (const entry of this.log.children) entry.courseOutput?.destroy();
    this.log.replaceChildren();
    return true;
  }

  /* ------------------------------------------------ the session's view (console_session.js) */

  /** The statement runs: echo it into the log, keep it in the history, empty the input. */
  echo(source) {
    const echo = el("pre", { class: `${CELL.out} ${C}__echo`, text: echoText(source) });
    const output = el("div", { class: `${C}__output`, hidden: true });
    const entry = el("div", { class: `${C}__entry` }, echo, output);
    const out = new CellOutput(output);
    entry.courseOutput = out;
    this.log.append(entry);
    while (this.log.childElementCount > LOG_ENTRIES) {
      this.log.firstElementChild.courseOutput?.destroy();
      this.log.firstElementChild.remove();
    }
    this.atEnd = true; // a statement just sent: its output is what the learner looks for
    this.scrollToEnd();
    this.history.push(source);
    this.setInput(this.typedAhead());
    return out;
  }

  scrollToEnd() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  /* The input without the statement sent from it: what was typed after it meanwhile (all of it, if the
   * learner changed what was sent: nothing typed is lost). */
  typedAhead() {
    const now = this.view.state.doc.toString();
    if (!now.startsWith(this.sent)) return now;
    return now.slice(this.sent.length).replace(/^\n/, "");
  }

  /** The statement is not finished: the input goes on with a new line after it, indented as Python expects. */
  needMore() {
    this.endBusy("more");
    const view = this.view;
    const now = view.state.doc.toString();
    view.dispatch({ selection: { anchor: now.startsWith(this.sent) ? this.sent.length : now.length } });
    this.cm.insertNewlineAndIndent(view);
    this.showKernelState();
  }

  /** The statement ended (`state`: ok, error or stopped) or, stopped while queued, was not run. */
  settled(state) {
    this.endBusy(state);
  }

  endBusy(state) {
    this.root.dataset.state = state;
    this.root.removeAttribute("aria-busy");
    if (document.activeElement === this.stopButton) this.view?.focus(); // disabling Stop would drop focus
    this.stopButton.disabled = true;
  }

  status(text, state) {
    this.statusText.textContent = text;
    this.statusText.dataset.state = state;
  }

  /** Python's loading and readiness, while no statement is under way. */
  showKernelState() {
    if (this.session.busy) return;
    const k = this.kernel;
    if (k.state === "loading") this.status(bootText(k.progress), "loading");
    else if (k.state === "ready") this.status(t("python.ready"), "ready");
    else if (k.state === "failed") this.status(t("python.failed"), "error");
    else this.status("", "idle");
  }

  destroy() {
    this.destroyed = true;
    document.removeEventListener("keydown", this.onKey);
    this.kernel.removeEventListener("state", this.onKernelChange);
    this.kernel.removeEventListener("progress", this.onKernelChange);
    this.resizing.disconnect();
    this.following.disconnect();
    this.clear();
    this.view?.destroy();
    this.root.remove();
    this.toggleButton.remove();
    document.body.classList.remove("course-console-open");
    document.body.style.removeProperty("--course-console-height");
  }
}
