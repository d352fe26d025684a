/* A learner's edits of a cell, kept in localStorage across reloads.
 *
 * One entry per page and cell: key "course-edit:<page path>:<cell index>",
 * value {"codeHash", "code"}.  codeHash is the hash of the lesson's code the
 * edit started from: once the lesson's cell changes, the stale edit is
 * dropped.  Storage that is full, disabled or throws never breaks a cell:
 * every access is wrapped, and a failed one just means the edit is not kept.
 */

const PREFIX = "course-edit:";

/** FNV-1a (32 bit) of a string's UTF-16 code units, as 8 hex digits. */
export function codeHash(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // disabled: reading the property throws
  }
}

/** The edits of cell `index` of this page, whose lesson code is `original`. */
export class EditStore {
  constructor(index, original) {
    this.key = `${PREFIX}${location.pathname}:${index}`;
    this.hash = codeHash(original);
  }

  /** The kept edit, or null (none, stale, unreadable). A stale one is removed. */
  load() {
    try {
      const raw = storage()?.getItem(this.key);
      if (!raw) return null;
      const entry = JSON.parse(raw);
      if (entry && entry.codeHash === this.hash && typeof entry.code === "string") return entry.code;
      this.forget();
    } catch {
      // unreadable: as if nothing was kept
    }
    return null;
  }

  save(code) {
    try {
      storage()?.setItem(this.key, JSON.stringify({ codeHash: this.hash, code }));
    } catch {
      // full or disabled: the edit lives until the page is left
    }
  }

  forget() {
    try {
      storage()?.removeItem(this.key);
    } catch {
      // disabled: nothing was kept
    }
  }
}
