/* A cell's editor: CodeMirror 6 (the vendored bundle, loaded with the first editor or earlier, once
 * Python is quiet), with Python's highlighting, Shift/Ctrl+Enter to run, completion, soft-wrapped
 * lines with a hanging indent, and the accessible name and hint that the cell gives it. */
import names from "./dom_names.js";
import { el } from "./element.js";
import { editorPhrases } from "./strings.js";

const CELL = names.cell;
const MAX_FIT_LINES = 30; // an editor without a height of its own grows to this many lines, then scrolls

/* CodeMirror, loaded once. */
let codemirror = null;
export const loadCodeMirror = () => (codemirror ??= import("../vendor/codemirror.js"));

/**
 * A new editor of `doc` in a host element of its own: {host, view}.  `height`: lines (else it fits
 * its code up to MAX_FIT_LINES); `label` and `hintId`: its accessible name and description; `run()`
 * on Shift/Ctrl+Enter; `changed(code)` after each edit; `complete`: the completion extension.
 */
export function makeEditor(cm, { doc, height, label, hintId, run, changed, complete }) {
  const {
    EditorView, EditorState, Prec, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
    highlightSpecialChars, drawSelection, defaultKeymap, history, historyKeymap, indentWithTab,
    bracketMatching, indentOnInput, indentUnit, syntaxHighlighting, python, courseHighlighter, hangingIndent,
  } = cm;
  const host = el("div", { class: CELL.editor });
  if (height > 0) {
    host.classList.add(`${CELL.editor}--fixed`);
    host.style.setProperty("--course-cell-lines", String(height));
  } else {
    host.style.setProperty("--course-cell-lines", String(MAX_FIT_LINES));
  }
  const runKey = () => {
    run();
    return true;
  };
  const view = new EditorView({
    parent: host,
    state: EditorState.create({
      doc,
      extensions: [
        Prec.highest(keymap.of([
          { key: "Shift-Enter", run: runKey },
          { key: "Mod-Enter", run: runKey },
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
        complete,
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        EditorState.phrases.of(editorPhrases()), // CodeMirror's own words (screen readers), in the page's language
        EditorView.lineWrapping, // no code is hidden at any width…
        hangingIndent, // …and a continuation starts under its line's indent (course.css)
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({
          "aria-label": label,
          // Editable text is focusable anyway (no new tab stop); saying so lets a scrolling editor count as keyboard-reachable.
          tabindex: "0",
          "aria-describedby": hintId,
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed(update.state.doc.toString());
        }),
      ],
    }),
  });
return { host, view };}
