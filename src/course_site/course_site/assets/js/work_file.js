/* The work file: the learner's work on this site (storage.js's entries) saved to a file, loaded back
 * (merged with what this browser keeps), and cleared (work.js's Save, Load and Start over).
 *
 * The file (WORK_FORMAT, version WORK_VERSION) holds the site's name and its entries with paths
 * relative to the site's root, so that work saved on one copy of the course (a lab's preview, the
 * published site) loads into another:
 *
 *   {"format": "course-work", "version": 1, "site": "How transformers work", "saved": "<ISO time>",
 *    "work": {"edits": {"lessons/32-…/:3": {…}}, "inputs": {…}, "quizzes": {"lessons/32-…/:quiz-1": {…}},
 *             "solved": ["lessons/32-…/#slug", …], "tried": […], "console": {"entries": […], "draft": ""}}}
 */
import { LIMIT, readHistory } from "./console_history.js";
import { consoleKey, localStore, PREFIX, readItem, readJSON, removeItem, siteRoot, writeItem } from "./storage.js";

export const WORK_FORMAT = "course-work";
export const WORK_VERSION = 1;

/* Every key of `store` (none where it cannot be listed). */
function allKeys(store) {
  try {
    const keys = [];
    for (let i = 0; i < (store?.length ?? 0); i++) keys.push(store.key(i));
    return keys.filter((key) => typeof key === "string");
  } catch {
    return [];
  }
}

/* The site's entries of one per-page kind: {relative key: parsed JSON}. */
function pageEntries(store, keys, prefix, root) {
  const entries = {};
  for (const key of keys) {
    if (!key.startsWith(prefix + root)) continue;
    const value = readJSON(key, store);
    if (value && typeof value === "object") entries[key.slice((prefix + root).length)] = value;
  }
  return entries;
}

/* The ids marked "true" under `prefix`. */
function markedIds(store, keys, prefix) {
  return keys.filter((key) => key.startsWith(prefix) && readItem(key, store) === "true").map((key) => key.slice(prefix.length));
}

/** The learner's work on the site at `root`, as the work file holds it (its "work" field). */
export function collectWork(root = siteRoot(), store = localStore()) {
  const keys = allKeys(store);
  return {
    edits: pageEntries(store, keys, PREFIX.edit, root),
    inputs: pageEntries(store, keys, PREFIX.inputs, root),
    quizzes: pageEntries(store, keys, PREFIX.quiz, root),
    solved: markedIds(store, keys, PREFIX.solved),
    tried: markedIds(store, keys, PREFIX.tried),
    console: readHistory(readItem(consoleKey(root), store)),
  };
}

/** How much `work` (collectWork's) holds: {edits, solved, quizzes, statements}. */
export function countWork(work) {
  const edits = Object.values(work.edits).filter((entry) => typeof entry.code === "string" || typeof entry.earlier?.code === "string");
  return { edits: edits.length, solved: work.solved.length, quizzes: Object.keys(work.quizzes).length, statements: work.console.entries.length };
}

/** The work file's text for `work` of the site named `site`, saved at `now`. */
export function workFile(site, work, now = new Date()) {
  return `${JSON.stringify({ format: WORK_FORMAT, version: WORK_VERSION, site, saved: now.toISOString(), work }, null, 1)}\n`;
}

/** The work file's name: "<site name>-work-<date>.json" (the local date; characters no file system takes become "-"). */
export function workFileName(site, now = new Date()) {
  const date = [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((n) => String(n).padStart(2, "0")).join("-");
  return `${String(site).replace(/[\\/:*?"<>|\u0000-\u001f]+/g, "-")}-work-${date}.json`;
}

/** A work file that cannot be loaded: `key` (a strings.js message) and its `values` say why. */
export class WorkFileError extends Error {
  constructor(key, values = {}) {
    super(key);
    this.key = key;
    this.values = values;
  }
}

const isRecord = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const isStringList = (value) => Array.isArray(value) && value.every((item) => typeof item === "string");

/**
 * The work in the work file `text`, for the site named `site`; throws WorkFileError when it is not a
 * work file (not JSON, or not the shape WORK_VERSION writes), is another version's, or another site's.
 */
export function readWorkFile(text, site) {
  let file;
  try {
    file = JSON.parse(text);
  } catch (err) {
    throw new WorkFileError("work.not_json", { reason: String(err.message || err) });
  }
  if (!isRecord(file) || file.format !== WORK_FORMAT) throw new WorkFileError("work.not_work");
  if (file.version !== WORK_VERSION) throw new WorkFileError("work.version", { version: String(file.version), expected: WORK_VERSION });
  if (file.site !== site) throw new WorkFileError("work.other_site", { site: String(file.site) });
  const work = file.work;
  const damaged = (part) => new WorkFileError("work.damaged", { part });
  if (!isRecord(work)) throw damaged("work");
  for (const part of ["edits", "inputs", "quizzes"]) {
    if (!isRecord(work[part]) || !Object.values(work[part]).every(isRecord)) throw damaged(part);
  }
  for (const part of ["solved", "tried"]) if (!isStringList(work[part])) throw damaged(part);
  if (!isRecord(work.console) || !isStringList(work.console.entries) || typeof work.console.draft !== "string") throw damaged("console");
  for (const [key, entry] of Object.entries(work.edits)) {
    if (typeof entry.codeHash !== "string" || !(entry.code === null || typeof entry.code === "string")) throw damaged(`edits: ${key}`);
  }
  return work;
}

const savedAt = (entry) => (Number.isFinite(entry?.savedAt) ? entry.savedAt : 0);

/**
 * What loading `work` (readWorkFile's) into this browser changes, for the site at `root`:
 * {writes: Map key -> text, conflicts: [{key, page, cell}], counts}.  The rules: what is kept here
 * and absent from the file stays; an exercise solved (or tried) in either is; a cell's edit kept
 * in only one place is taken, and of two different edits the newer wins, but one that would replace
 * an edit kept here is a conflict, written only if the learner agrees (applyWork's `replace`); a
 * quiz answer or input values kept here stay; the console's statements are merged, the file's first.
 */
export function planImport(work, root = siteRoot(), store = localStore()) {
  const writes = new Map();
  const conflicts = [];
  for (const [rel, entry] of Object.entries(work.edits)) {
    const key = PREFIX.edit + root + rel;
    const here = readJSON(key, store);
    if (!isRecord(here)) writes.set(key, JSON.stringify(entry));
    else if (JSON.stringify(sameEdit(here)) !== JSON.stringify(sameEdit(entry)) && savedAt(entry) > savedAt(here)) {
      const [, page, cell] = /^(.*):(\d+)$/.exec(rel) ?? [null, rel, ""];
      conflicts.push({ key, text: JSON.stringify(entry), page, cell: Number(cell) }); // the key's index: the cell's number
    }
  }
  for (const [part, prefix] of [["inputs", PREFIX.inputs], ["quizzes", PREFIX.quiz]]) {
    for (const [rel, entry] of Object.entries(work[part])) {
      const key = prefix + root + rel;
      if (readItem(key, store) === null) writes.set(key, JSON.stringify(entry));
    }
  }
  for (const [part, prefix] of [["solved", PREFIX.solved], ["tried", PREFIX.tried]]) {
    for (const id of work[part]) if (readItem(prefix + id, store) !== "true") writes.set(prefix + id, "true");
  }
  const { entries: mine, draft } = readHistory(readItem(consoleKey(root), store));
  const merged = [...work.console.entries.filter((entry) => !mine.includes(entry)), ...mine].slice(-LIMIT);
  if (merged.length !== mine.length || (!draft && work.console.draft)) {
    writes.set(consoleKey(root), JSON.stringify({ entries: merged, draft: draft || work.console.draft }));
  }
  return { writes, conflicts, counts: countWork(work) };
}

/* What makes two edits of a cell the same: their code, the code they started from, the earlier edit. */
const sameEdit = (entry) => [entry.codeHash, entry.code ?? null, entry.earlier?.code ?? null];

/**
 * Write `plan` (planImport's), with its conflicts too if `replace`; all or nothing: where storage
 * fails part way, what was written is put back and WorkFileError("work.storage") is thrown.
 */
export function applyWork(plan, { replace = false } = {}, store = localStore()) {
  const writes = new Map(plan.writes);
  if (replace) for (const { key, text } of plan.conflicts) writes.set(key, text);
  const before = new Map();
  for (const [key, text] of writes) {
    before.set(key, readItem(key, store));
    if (writeItem(key, text, store)) continue;
    for (const [done, old] of before) {
      if (old === null) removeItem(done, store);
      else writeItem(done, old, store);
    }
    throw new WorkFileError("work.storage");
  }
  return writes.size;
}

/** Forget the learner's work on the site at `root` (what collectWork saves); how many entries went. */
export function clearWork(root = siteRoot(), store = localStore()) {
  const keys = allKeys(store).filter((key) =>
    [PREFIX.edit, PREFIX.inputs, PREFIX.quiz].some((prefix) => key.startsWith(prefix + root))
    || key.startsWith(PREFIX.solved) || key.startsWith(PREFIX.tried) || key === consoleKey(root));
  for (const key of keys) removeItem(key, store);
  return keys.length;
}
