/* The course's words in the page's language: `t("python.ready")`, `t("exercise.count", { solved, count })`.
 *
 * The build puts the site's catalogue into every page (strings.py: theme.language, the author's
 * overrides applied) as <script type="application/json" id="course-strings">{"lang", "messages"}</script>;
 * the page's kernel sends it to the Python worker first (MessageType.STRINGS), which calls `useCatalogue`.
 * A message is a string with {name} placeholders, or its CLDR plural forms, chosen by `count`
 * with Intl.PluralRules; numbers in placeholders are written with Intl.NumberFormat in the page's
 * language ("1 234,5" in French), sizes with its unit names ("8,8 Mo").
 */

const ELEMENT_ID = "course-strings";
const PLACEHOLDER = /\{(\w+)\}/g;

let lang = "en";
let messages = {};
let plurals = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

/** Use `catalogue` ({lang, messages}) for every later `t`. */
export function useCatalogue(catalogue) {
  lang = catalogue?.lang || "en";
  messages = catalogue?.messages || {};
  plurals = new Intl.PluralRules(lang);
  numbers = new Intl.NumberFormat(lang);
}

/** The catalogue in use ({lang, messages}), for the Python worker. */
export function catalogue() {
  return { lang, messages };
}

/** CodeMirror's phrases (EditorState.phrases), which screen readers hear, in the page's language. */
export function editorPhrases() {
  return {
    Completions: t("editor.completions"),
    "Control character": t("editor.control_character"),
    "Selection deleted": t("editor.selection_deleted"),
  };
}

/** The page's language (the catalogue's). */
export function language() {
  return lang;
}

/** The message `key` with `params` in its placeholders (a plural message chosen by `params.count`);
 * a key the catalogue lacks comes back as itself, so a missing string is seen, not hidden. */
export function t(key, params = {}) {
  let message = messages[key];
  if (message === undefined) return key;
  if (typeof message === "object") message = message[plurals.select(params.count ?? 0)] ?? message.other;
  return message.replace(PLACEHOLDER, (whole, name) => (name in params ? formatValue(params[name]) : whole));
}

/** The message `key` as parts to append to an element: text between its placeholders, and each
 * placeholder's param as it is (a Node, such as a <code> or a button) or as text. */
export function tParts(key, params = {}) {
  const nodes = {};
  const marked = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "object" && value !== null) {
      nodes[name] = value;
      marked[name] = `\u0000${name}\u0000`;
    } else {
      marked[name] = value;
    }
  }
  return t(key, marked).split("\u0000").map((part, i) => (i % 2 ? nodes[part] : part)).filter((part) => part !== "");
}

/** An Error (of `Type`) whose message is `key`'s, again in the catalogue that `messageOf` finds in use:
 * a worker's error made before the page's catalogue came is told in it all the same. */
export function learnerError(key, params = {}, Type = Error) {
  return keyed(new Type(t(key, params)), key, params);
}

/** `err` (an Error or DOMException) with the message `key` (`params`), made now. */
export function keyed(err, key, params = {}) {
  Object.defineProperty(err, "message", { value: t(key, params), configurable: true, writable: true });
  return Object.assign(err, { key, params });
}

/** The text of `err` in the catalogue in use now (its message `key`, where it has one). */
export function messageOf(err) {
  if (err?.key) return t(err.key, Object.fromEntries(Object.entries(err.params).map(([k, v]) => [k, v?.key ? messageOf(v) : v])));
  return String(err && err.message ? err.message : err);
}

/** A number as the page's language writes it; anything else as a string. */
export function formatValue(value) {
  return typeof value === "number" ? numbers.format(value) : String(value);
}

/** `value` with exactly `digits` decimals, in the page's language ("12.3", "12,3"). */
export function formatDecimal(value, digits) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}

/** `bytes` as megabytes with one decimal, in the page's language ("8.8 MB", "8,8 Mo"). */
export function formatMegabytes(bytes) {
  return new Intl.NumberFormat(lang, { style: "unit", unit: "megabyte", maximumFractionDigits: 1, minimumFractionDigits: 1 })
    .format(bytes / 1e6);
}

/** A list as the page's language joins it ("a, b and c", "a, b et c"). */
export function formatList(items) {
  return new Intl.ListFormat(lang, { type: "conjunction" }).format(items);
}

const element = globalThis.document?.getElementById?.(ELEMENT_ID);
if (element) {
  try {
    useCatalogue(JSON.parse(element.textContent));
  } catch (err) {
    console.warn("course: the page's strings could not be read:", err);
  }
}
