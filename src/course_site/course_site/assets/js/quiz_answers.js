/* A learner's quiz answers, kept in localStorage across reloads.
 *
 * One entry per page and quiz: key "course-quiz:<page path>:<quiz id>", value
 * {"questionHash", "value"} (the chosen option's value). questionHash is the hash of
 * the quiz's text when it was answered: when a deploy changes the quiz, the old
 * answer no longer fits it and reads as none. Storage that is full, disabled or
 * throws never breaks a quiz: every access is wrapped, and a failed one just means
 * the answer is not kept (as edits.js does for a cell's edits).
 */
import { codeHash } from "./edits.js";

const PREFIX = "course-quiz:";

function storage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // disabled: reading the property throws
  }
}

/** The kept answer of one quiz of this page. */
export class QuizAnswer {
  /** @param {string} id the quiz's id on its page; @param {string} text the quiz's text */
  constructor(id, text) {
    this.key = `${PREFIX}${globalThis.location?.pathname ?? ""}:${id}`;
    this.hash = codeHash(text);
  }

  /** The kept option value, or null. */
  load() {
    try {
      const entry = JSON.parse(storage()?.getItem(this.key) ?? "null");
      return entry?.questionHash === this.hash && typeof entry.value === "string" ? entry.value : null;
    } catch {
      return null; // unreadable: as if nothing was kept
    }
  }

  save(value) {
    try {
      storage()?.setItem(this.key, JSON.stringify({ questionHash: this.hash, value }));
    } catch {
      // full or disabled: the answer lives until the page is left
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
