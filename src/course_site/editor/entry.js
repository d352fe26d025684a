// Entry for the vendored CodeMirror 6 bundle (assets/vendor/codemirror.js).
// Re-exports only what assets/js/ uses (cell_editor.js, complete.js, console.js), so esbuild can tree-shake the rest.
// Rebuild with `npm ci && npm run build` in src/course_site/editor/.
import { tags as t, tagHighlighter } from "@lezer/highlight";
import { LanguageSupport } from "@codemirror/language";
import { pythonLanguage } from "@codemirror/lang-python";
import { RangeSetBuilder, countColumn } from "@codemirror/state";
import { Decoration, ViewPlugin } from "@codemirror/view";

export { EditorState, Prec } from "@codemirror/state";
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection,
} from "@codemirror/view";
export {
  defaultKeymap, history, historyKeymap, indentWithTab, insertNewlineAndIndent, isolateHistory,
} from "@codemirror/commands";
export {
  bracketMatching, indentOnInput, indentUnit, syntaxHighlighting, syntaxTree,
} from "@codemirror/language";
// The editor's completion (assets/js/complete.js): its sources are the Python worker's Jedi.
export { autocompletion, completionKeymap, startCompletion } from "@codemirror/autocomplete";

/** Python language support without lang-python's own completion sources (keywords and
 * the document's words): complete.js asks Jedi, which knows the page's live names. */
export function python() {
  return new LanguageSupport(pythonLanguage);
}

/** Extra columns of a wrapped line's continuation, beyond the line's own indent. */
const HANG_COLUMNS = 4;

/** Each line's hanging indent, in columns: its own leading whitespace plus HANG_COLUMNS. */
function hangingIndents(view) {
  const builder = new RangeSetBuilder();
  const { doc, tabSize } = view.state;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = doc.lineAt(pos);
      const indent = countColumn(/^[ \t]*/.exec(line.text)[0], tabSize);
      const style = `--course-hang: ${indent + HANG_COLUMNS}ch`;
      builder.add(line.from, line.from, Decoration.line({ attributes: { style } }));
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

/** With `EditorView.lineWrapping`: a wrapped line's continuation starts under the line's own
 * indent plus four columns, so it never reads as a line of its own (course.css applies
 * `--course-hang` as a hanging indent). */
export const hangingIndent = ViewPlugin.fromClass(
  class {
    constructor(view) {
      this.decorations = hangingIndents(view);
    }

    update(update) {
      if (update.docChanged || update.viewportChanged) this.decorations = hangingIndents(update.view);
    }
  },
  { decorations: (plugin) => plugin.decorations },
);

/** Maps syntax tags to CSS classes (`cm-t-*`). Colours live in course.css, built on
 * Material's `--md-code-hl-*` variables, so light/dark follow the page palette. */
export const courseHighlighter = tagHighlighter([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword, t.modifier], class: "cm-t-kw" },
  { tag: [t.string, t.special(t.string), t.escape], class: "cm-t-str" },
  { tag: t.number, class: "cm-t-num" },
  { tag: [t.bool, t.null, t.atom], class: "cm-t-const" },
  { tag: [t.comment, t.lineComment], class: "cm-t-com" },
  { tag: [t.function(t.variableName), t.function(t.propertyName)], class: "cm-t-fn" },
  { tag: [t.function(t.definition(t.variableName)), t.definition(t.className), t.className], class: "cm-t-def" },
  { tag: [t.operator, t.arithmeticOperator, t.compareOperator, t.bitwiseOperator, t.updateOperator, t.definitionOperator, t.derefOperator], class: "cm-t-op" },
  { tag: [t.punctuation, t.paren, t.squareBracket, t.brace, t.separator], class: "cm-t-punc" },
  { tag: t.propertyName, class: "cm-t-prop" },
  { tag: t.variableName, class: "cm-t-name" },
  { tag: t.meta, class: "cm-t-meta" },
  { tag: t.invalid, class: "cm-t-invalid" },
]);
