/* A learner's quiz answers, kept in localStorage across reloads.
 *
 * One entry per page and quiz: key "course-quiz:<page path>:<quiz id>", value
 * {"questionHash", "value", "savedAt"} (the chosen option's value, and when it was chosen). questionHash is the hash of
 * the quiz's text when it was answered: when a deploy changes the quiz, the old
 * answer no longer fits it and reads as none. Storage that is full, disabled or
 * throws never breaks a quiz (storage.js guards every access): a failed write just
 * means the answer is not kept.
 */
import { codeHash } from "./edits.js";
import { quizKey, readJSON, removeItem, writeItem } from "./storage.js";

/** The kept answer of one quiz of this page. */
export class QuizAnswer {
  /** @param {string} id the quiz's id on its page; @param {string} text the quiz's text */
  constructor(id, text) {
    this.key = quizKey(globalThis.location?.pathname ?? "", id);
    this.hash = codeHash(text);
  }

  /** The kept option value, or null. */
  load() {
    const entry = readJSON(this.key); // unreadable: as if nothing was kept
    return entry?.questionHash === this.hash && typeof entry.value === "string" ? entry.value : null;
  }

  save(value) {
    writeItem(this.key, JSON.stringify({ questionHash: this.hash, value, savedAt: Date.now() })); // full: lives until the page is left
  }

  forget() {
    removeItem(this.key);
  }
}
