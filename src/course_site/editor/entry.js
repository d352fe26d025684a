// Entry for the vendored CodeMirror 6 bundle (assets/vendor/codemirror.js).
// Re-exports only what assets/js/cell.js uses, so esbuild can tree-shake the rest.
// Rebuild with `npm ci && npm run build` in src/course_site/editor/.
import { tags as t, tagHighlighter } from "@lezer/highlight";
import { LanguageSupport } from "@codemirror/language";
import { pythonLanguage } from "@codemirror/lang-python";

export { EditorState, Prec } from "@codemirror/state";
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, drawSelection,
} from "@codemirror/view";
export {
  defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory,
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
