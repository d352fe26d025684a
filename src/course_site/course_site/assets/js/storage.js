/* The learner's work in this browser: the one owner of the course's localStorage keys and of the guarded
 * access to them (work_file.js reads and writes them all, to take the work along).
 *
 * Keys (one entry each; `<path>` is a page's path from the origin, `<id>` an exercise's data-exercise-id):
 *
 *   course-edit:<path>:<cell index>      an edit of a cell (edits.js: {codeHash, code, earlier?, savedAt?})
 *   course-inputs:<path>:<cell index>    a cell's input values (inputs.js, through edits.js)
 *   course-quiz:<path>:<quiz id>         a quiz answer (quiz_answers.js: {questionHash, value, savedAt?})
 *   course-exercise-solved:<id>          "true" once the exercise's check passed (exercise.js)
 *   course-exercise-tried:<id>           "true" once the exercise's check has run (exercise.js: the solution's rule)
 *   course-console:<site root>           the console's history (console_history.js: {entries, draft})
 *
 * Storage that is disabled, full or throws never breaks a page: readItem answers null, writeItem
 * false, and the work lives until the page is left.
 *
 */

/** Each kind of entry's key prefix. */
export const PREFIX = Object.freeze({
  edit: "course-edit:",
  inputs: "course-inputs:",
  quiz: "course-quiz:",
  solved: "course-exercise-solved:",
  tried: "course-exercise-tried:",
  console: "course-console:",
});

/** The page's localStorage, or null where it is disabled (reading the property throws). */
export function localStore() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** What readItem answers, when asked to, where storage cannot be read (rather than null: nothing kept). */
export const UNREADABLE = Symbol("unreadable");

/** The text kept under `key`, or null (nothing kept); `unreadable` (null unless given) where storage cannot be read. */
export function readItem(key, store = localStore(), unreadable = null) {
  try {
    return store ? store.getItem(key) ?? null : unreadable;
  } catch {
    return unreadable;
  }
}

/** Keep `text` under `key`; false where storage is full, disabled or throws. */
export function writeItem(key, text, store = localStore()) {
  try {
    if (!store) return false;
    store.setItem(key, text);
    return true;
  } catch {
    return false;
  }
}

/** Forget `key` (nothing happens where storage cannot be written). */
export function removeItem(key, store = localStore()) {
  try {
    store?.removeItem(key);
  } catch {
    // disabled: nothing was kept
  }
}

/** The JSON kept under `key`, or null (nothing kept, or unreadable). */
export function readJSON(key, store = localStore()) {
  try {
    return JSON.parse(readItem(key, store) ?? "null");
  } catch {
    return null;
  }
}

export const editKey = (path, index) => `${PREFIX.edit}${path}:${index}`;
export const inputsKey = (path, index) => `${PREFIX.inputs}${path}:${index}`;
export const quizKey = (path, id) => `${PREFIX.quiz}${path}:${id}`;
export const solvedKey = (id) => `${PREFIX.solved}${id}`;
export const triedKey = (id) => `${PREFIX.tried}${id}`;
export const consoleKey = (root) => `${PREFIX.console}${root}`;
const MARK_KEY = { solved: solvedKey, tried: triedKey };

/** The site's root path ("/transformer-course/"), from Material's configuration in the page; "/" without one. */
export function siteRoot(doc = globalThis.document) {
  try {
    const config = JSON.parse(doc?.getElementById("__config")?.textContent ?? "null");
    if (config?.base) return new URL(`${config.base.replace(/\/?$/, "/")}`, globalThis.location.href).pathname;
  } catch {
    // no readable configuration: the origin's root
  }
  return "/";
}

/** Whether exercise `id` is marked (solved, or tried: `kind`) in this browser. */
export function isMarked(kind, id, store = localStore()) {
  return readItem(MARK_KEY[kind](id), store) === "true";
}

/** Mark exercise `id` solved or tried (`kind`); false where it could not be kept. */
export function mark(kind, id, store = localStore()) {
  return writeItem(MARK_KEY[kind](id), "true", store);
}
