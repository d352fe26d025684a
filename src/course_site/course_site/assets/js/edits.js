/* A learner's edits of a cell, kept in localStorage across reloads and shared by the tabs.
 *
 * One entry per page and cell: key "course-edit:<page path>:<cell index>", value
 * {"codeHash", "code" (null: not edited), "earlier"?: {"code"}}.  codeHash is the
 * hash of the lesson's code the edit started from.  When a deploy changes the
 * lesson's cell, the edit no longer fits it: it is not deleted but kept as
 * `earlier` until the learner restores it (it becomes the edit of the new code)
 * or resets the cell.
 * A cell's inputs (inputs.js) keep their values beside its edit, under "course-inputs:<page path>:<cell
 * index>": {"<name>": position of the value, …}, absent while every input is at its default.
 * Each save says when it was made ("savedAt", ms since 1970), which decides between two edits of a
 * cell when a work file is loaded (work_file.js).
 * Another tab's save of the same cell arrives as a `storage` event (watch()).
 * Storage that is full, disabled or throws never breaks a cell (storage.js guards every access):
 * a failed write just means the edit is not kept.
 */

import { editKey, inputsKey, readItem, readJSON, removeItem, writeItem } from "./storage.js";

/** FNV-1a (32 bit) of a string's UTF-16 code units, as 8 hex digits. */
export function codeHash(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * What an entry's stored text says about the lesson code whose hash is `hash`:
 * {code: the learner's edit of that code, or null; earlier: an edit of an earlier
 * version of the cell, or null}.  Unreadable text reads as no edit.
 */
export function readEntry(raw, hash) {
  const none = { code: null, earlier: null };
  if (!raw) return none;
  let entry;
  try {
    entry = JSON.parse(raw);
  } catch {
    return none;
  }
  if (!entry || typeof entry.codeHash !== "string") return none;
  const code = typeof entry.code === "string" ? entry.code : null;
  const earlier = typeof entry.earlier?.code === "string" ? entry.earlier.code : null;
  if (entry.codeHash === hash) return { code, earlier };
  // The lesson's code changed: the learner's edit (the newest one) is now an earlier one.
  return { code: null, earlier: code ?? earlier };
}

/** The stored text for edit `code` (or null) of the code whose hash is `hash`, with `earlier`
 * (or null), saved at `savedAt` (ms since 1970; null: not said); null when there is nothing to keep. */
export function writeEntry(hash, code, earlier, savedAt = null) {
  if (code === null && earlier === null) return null;
  const when = savedAt === null ? {} : { savedAt };
  return JSON.stringify({ codeHash: hash, code, ...(earlier === null ? {} : { earlier: { code: earlier } }), ...when });
}

/** The edits of cell `index` of this page, whose lesson code is `original`. */
export class EditStore {
  constructor(index, original) {
    this.key = editKey(location.pathname, index);
    this.inputsKey = inputsKey(location.pathname, index);
    this.hash = codeHash(original);
    this.code = null; // the learner's edit of the lesson's code, or null
    this.earlier = null; // an edit of an earlier version of the cell, or null
  }

  /** The kept edit and earlier edit: {code, earlier}, each a string or null. */
  load() {
    this.apply(this.read());
    return { code: this.code, earlier: this.earlier };
  }

  /** Keep `code` as the learner's edit. */
  save(code) {
    this.code = code;
    this.write();
  }

  /** Forget the edit (the code is the lesson's again); an earlier edit stays. */
  forget() {
    this.code = null;
    this.write();
  }

  /** Forget the earlier edit (the learner reset the cell or restored it). */
  forgetEarlier() {
    this.earlier = null;
    this.write();
  }

  /** The kept values of the cell's inputs ({name: position}), or null. */
  loadInputs() {
    const values = readJSON(this.inputsKey);
    return values && typeof values === "object" && !Array.isArray(values) ? values : null; // unreadable: the defaults
  }

  /** Keep the values of the cell's inputs ({name: position}); where storage fails, they live until the page is left. */
  saveInputs(values) {
    writeItem(this.inputsKey, JSON.stringify(values));
  }

  /** Forget the values of the cell's inputs (they are the defaults again). */
  forgetInputs() {
    removeItem(this.inputsKey);
  }

  /**
   * Call `listener({code, earlier})` when another tab changes this cell's entry;
   * returns a function that stops it.
   */
  watch(listener) {
    const onStorage = (event) => {
      if (event.key !== this.key && event.key !== null) return; // null: that tab cleared the storage
      this.apply(readEntry(event.key === null ? null : event.newValue, this.hash));
      listener({ code: this.code, earlier: this.earlier });
    };
    globalThis.addEventListener?.("storage", onStorage);
    return () => globalThis.removeEventListener?.("storage", onStorage);
  }

  read() {
    return readEntry(readItem(this.key), this.hash); // unreadable: as if nothing was kept
  }

  apply({ code, earlier }) {
    this.code = code;
    this.earlier = earlier;
  }

  write() {
    const text = writeEntry(this.hash, this.code, this.earlier, Date.now());
    if (text === null) removeItem(this.key);
    else writeItem(this.key, text); // full or disabled: the edit lives until the page is left
  }
}
