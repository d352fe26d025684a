/* Each lesson's exercise progress, "2 / 4", beside its link in the sidebar.
 *
 * Every page of a course with exercises carries, in its <head>,
 *   <script type="application/json" id="course-exercises">{"<lesson URL relative to the page>": [ids], …}</script>
 * (course_end.py). Each sidebar link (a.md-nav__link) to such a lesson gets
 *   <span class="course-nav-progress"><span aria-hidden="true">2 / 4</span>
 *     <span class="course-nav-progress__name">: 2 of 4 exercises solved</span></span>
 * counted from the solved state that exercise.js keeps, and counted again when an
 * exercise is solved, in this tab (exercise.js's event) or another (a storage event).
 * Text nodes only. Without JavaScript, or without storage, the sidebar shows no count.
 */
import { SOLVED_EVENT, countSolved } from "./exercise.js";
import { t } from "./strings.js";

const DATA_ID = "course-exercises";
const BADGE = "course-nav-progress";

function lessonsByUrl(data) {
  const lessons = JSON.parse(data.textContent);
  return new Map(Object.entries(lessons).map(([url, ids]) => [new URL(url, location.href).href, ids]));
}

function badgeOf(link) {
  let badge = link.querySelector(`.${BADGE}`);
  if (!badge) {
    badge = document.createElement("span");
    badge.className = BADGE;
    const shown = document.createElement("span");
    shown.setAttribute("aria-hidden", "true");
    const name = document.createElement("span");
    name.className = `${BADGE}__name`;
    badge.append(shown, name);
    link.append(badge);
  }
  return badge;
}

/** Write each lesson link's "solved / total" in the sidebar of `doc`. */
export function showNavProgress(doc = document) {
  const data = doc.getElementById(DATA_ID);
  if (!data) return;
  const lessons = lessonsByUrl(data);
  for (const link of doc.querySelectorAll("a.md-nav__link[href]")) {
    const ids = lessons.get(new URL(link.getAttribute("href"), location.href).href);
    if (!ids) continue;
    const solved = countSolved(ids);
    const [shown, name] = badgeOf(link).children;
    shown.textContent = t("progress.badge", { solved, count: ids.length });
    name.textContent = t("progress.badge_name", { solved, count: ids.length });
  }
}

let watching = false;

/** Show the progress now and again whenever an exercise is solved. */
export function watchNavProgress() {
  showNavProgress();
  if (watching) return;
  watching = true;
  globalThis.addEventListener(SOLVED_EVENT, () => showNavProgress());
  globalThis.addEventListener("storage", () => showNavProgress());
}
