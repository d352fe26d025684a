/* The console's history: the statements a learner ran, newest last, browsed with ↑ and ↓ as in
 * Python's own prompt, and the statement being written, both kept across reloads.
 *
 * One localStorage entry for the whole site ("course-console:<site root>"), value
 * {"entries": [source, …], "draft": source}: a statement run on one lesson is at hand on the next,
 * as a shell's history is.  At most LIMIT entries (the oldest go first), each at most MAX_CHARS.
 * Storage that is full, disabled or throws never breaks the console (storage.js guards every access):
 * a failed one means the history lives until the page is left (as edits.js).
 */
import { consoleKey, localStore, readItem, UNREADABLE, writeItem } from "./storage.js";

export const LIMIT = 200;
export const MAX_CHARS = 20_000;

/** What a stored entry says: {entries, draft}; unreadable text reads as an empty history. */
export function readHistory(raw) {
  let kept = null;
  try {
    kept = JSON.parse(raw ?? "null");
  } catch {
    kept = null;
  }
  const entries = Array.isArray(kept?.entries) ? kept.entries.filter((e) => typeof e === "string" && e) : [];
  return { entries: entries.slice(-LIMIT), draft: typeof kept?.draft === "string" ? kept.draft : "" };
}

export class ConsoleHistory {
  /** @param {string} scope the site's root path: whose history this is */
  constructor(scope) {
    this.key = consoleKey(scope);
    ({ entries: this.entries, draft: this.draft } = this.read() ?? readHistory(null));
    this.at = this.entries.length; // the entry shown; entries.length: the draft
  }

  /* What storage holds ({entries, draft}; empty where it holds nothing), or null where it cannot be read. */
  read() {
    const raw = readItem(this.key, localStore(), UNREADABLE);
    return raw === UNREADABLE ? null : readHistory(raw);
  }

  write() {
    writeItem(this.key, JSON.stringify({ entries: this.entries, draft: this.draft })); // full or disabled: lives until the page is left
  }

  /** A statement was run: it becomes the newest entry (not twice in a row), and the draft is empty again. */
  push(source) {
    const text = String(source).replace(/\s+$/, "");
    this.entries = this.read()?.entries ?? this.entries; // another tab's statements stay too (if storage can tell)
    if (text && text.length <= MAX_CHARS && this.entries[this.entries.length - 1] !== text) this.entries.push(text);
    this.entries = this.entries.slice(-LIMIT);
    this.draft = "";
    this.at = this.entries.length;
    this.write();
  }

  /** The statement being written changed (kept as the draft while it is not an entry being browsed). */
  edit(source) {
    if (this.at !== this.entries.length) return;
    this.draft = source;
    this.write();
  }

  /** ↑: the entry before the one shown (`current`: the input's text now), or null at the oldest. */
  previous(current) {
    if (this.at === 0) return null;
    if (this.at === this.entries.length) this.edit(current);
    this.at -= 1;
    return this.entries[this.at];
  }

  /** ↓: the entry after the one shown, then the draft; null when the draft is shown already. */
  next() {
    if (this.at >= this.entries.length) return null;
    this.at += 1;
    return this.at === this.entries.length ? this.draft : this.entries[this.at];
  }
}
