/* Course exercises: hints one at a time, the solution by the site's rule, the check's verdict, solved state.
 *
 * Enhances the markup of exercises_html.py (the class names and data attributes
 * are listed there). The exercise's cell does the running; this module talks to
 * it through the small `ExerciseCell` interface below, and only ever writes text
 * nodes. Solved state, and whether the check has run (the solution's rule), are kept
 * by storage.js; storage that is disabled, full or throws only means they are not kept.
 *
 * The solution's rule is the root's data-solutions: "always" (Show solution from the start),
 * "after-check" (once a run of the exercise has ended: its check ran, or the learner pressed Run
 * for it), "after-pass" (once the check passed).  Until then the note beside the buttons says
 * when it opens; when it opens, the note (a live region) says so.  A solved exercise keeps it open.
 */

import { isMarked, localStore, mark, solvedKey } from "./storage.js";
import { t } from "./strings.js";

export { solvedKey };

/**
 * The check's verdict, as exercise_check.CheckResult gives it.
 * @typedef {object} CheckResult
 * @property {boolean} passed
 * @property {string} message  one sentence for the learner
 */

/**
 * How a run of the exercise's cell ended.
 * @typedef {object} RunOutcome
 * @property {"ok" | "error" | "stopped"} status  the cell's data-status after the run
 * @property {CheckResult} [check]  the verdict, when Python got as far as the check
 */

/**
 * What an exercise needs from its cell.
 * @typedef {object} ExerciseCell
 * @property {(listener: (outcome: RunOutcome) => void) => void} onRunDone
 *   call `listener` after every run of the cell, once it has ended
 * @property {(code: string) => void} setEditorCode
 *   replace the editor's code (as if the learner had typed it; Reset still restores the starter)
 */


const isSolved = (storage, id) => isMarked("solved", id, storage);

/**
 * How many of the exercises `ids` (their data-exercise-id) the learner has solved.
 * @param {string[]} ids
 * @param {Storage | null} [storage]
 */
export function countSolved(ids, storage = localStore()) {
  return ids.filter((id) => isSolved(storage, id)).length;
}

/** The event this window gets when an exercise is solved (nav_progress.js updates the sidebar). */
export const SOLVED_EVENT = "course-exercise-solved";

/**
 * Show the course's progress, "3 of 7 exercises solved", in the p.course-progress element.
 * @param {HTMLElement} element carries data-exercise-ids, the JSON list of every exercise's id
 * @param {Storage | null} [storage]
 */
export function showProgress(element, storage = localStore()) {
  const ids = JSON.parse(element.dataset.exerciseIds);
  const count = element.querySelector(".course-progress__count") ?? element; // after its label
  count.textContent = t("exercise.count", { solved: countSolved(ids, storage), count: ids.length });
  element.hidden = false;
}

/** `message` as text nodes, with its `backquoted` parts in <code> (as the check's messages write names). */
function showMessage(element, message) {
  const parts = message.split(/`([^`]+)`/);
  element.replaceChildren(
    ...parts.map((part, k) => {
      if (k % 2 === 0) return document.createTextNode(part);
      const code = document.createElement("code");
      code.textContent = part;
      return code;
    }),
  );
}

/** The verdict to show after a run: [check state, sentence]. */
function verdict(outcome) {
  if (outcome.status === "stopped") return ["fail", t("exercise.stopped")];
  if (outcome.check) return [outcome.check.passed ? "pass" : "fail", outcome.check.message];
  return ["fail", t("exercise.not_checked")];
}

/**
 * Enhance one exercise.
 * @param {HTMLElement} root the exercise's cell root, .course-cell.course-exercise
 * @param {ExerciseCell} cell its cell
 * @param {Storage | null} [storage] where solved state is kept (default: localStorage)
 */
export function enhanceExercise(root, cell, storage = localStore()) {
  const id = root.dataset.exerciseId;
  const status = root.querySelector(".course-exercise__check");
  const badge = root.querySelector(".course-exercise__solved");
  const markSolved = () => {
    root.dataset.solved = "true";
    if (badge) badge.hidden = false;
  };
  const progress = { solved: isSolved(storage, id), tried: isMarked("tried", id, storage) };
  if (progress.solved) markSolved();

  root.querySelector(".course-exercise__actions").hidden = false;
  enhanceHints(root);
  const solution = enhanceSolution(root, cell, progress);

  cell.onRunDone((outcome) => {
    const [state, message] = verdict(outcome);
    status.dataset.check = state;
    showMessage(status, message);
    if (!progress.tried) mark("tried", id, storage); // full or disabled: open until the page is left
    progress.tried = true;
    if (state === "pass") {
      mark("solved", id, storage);
      progress.solved = true;
      markSolved();
      globalThis.dispatchEvent?.(new CustomEvent(SOLVED_EVENT, { detail: { id } }));
    }
    solution.update();
  });
}

/** Whether the rule `rule` (data-solutions) lets the learner see the solution, given `progress` {solved, tried}. */
export function solutionOpen(rule, progress) {
  if (progress.solved || rule === "always") return true;
  return rule === "after-pass" ? false : progress.tried; // after-check, the default
}

function enhanceHints(root) {
  const hints = [...root.querySelectorAll("details.course-exercise__hint")];
  const button = root.querySelector('button[data-action="hint"]');
  if (!button) return;
  for (const hint of hints) hint.hidden = true;
  // The button is always named "Hint"; the count beside it (its description) says which comes next.
  const count = root.querySelector(".course-exercise__hint-count");
  count.id ||= `${root.id}-hint-count`;
  button.setAttribute("aria-describedby", count.id);
  let shown = 0;
  count.textContent = t("exercise.hint_next", { number: 1, count: hints.length });
  button.addEventListener("click", () => {
    if (shown === hints.length) return;
    const hint = hints[shown++];
    hint.hidden = false;
    hint.open = true;
    if (shown < hints.length) {
      count.textContent = t("exercise.hint_next", { number: shown + 1, count: hints.length });
    } else {
      count.textContent = t("exercise.hints_all", { count: hints.length });
      button.setAttribute("aria-disabled", "true");
    }
  });
}

function enhanceSolution(root, cell, progress) {
  const rule = root.dataset.solutions || "after-check";
  const solution = root.querySelector("details.course-exercise__solution");
  const show = root.querySelector('button[data-action="solution"]');
  const use = root.querySelector('button[data-action="use-solution"]');
  const note = root.querySelector(".course-exercise__solution-note");
  solution.hidden = true;
  let open = solutionOpen(rule, progress);
  show.hidden = !open;
  if (note) note.textContent = open ? "" : t(rule === "after-pass" ? "exercise.solution_after_pass" : "exercise.solution_after_check");
  show.addEventListener("click", () => {
    solution.hidden = false;
    solution.open = true;
    use.hidden = false;
    use.focus(); // the button that had focus is gone; the next step is this one
    show.hidden = true;
    if (note) note.textContent = "";
  });
  use.addEventListener("click", () => cell.setEditorCode(root.dataset.solution));
  return {
    /** The learner's progress changed: Show solution appears if the rule now allows it, and the note says so. */
    update() {
      if (open || !solutionOpen(rule, progress)) return;
      open = true;
      show.hidden = false;
      if (note) note.textContent = t("exercise.solution_ready");
    },
  };
}
