/* Course cells and quizzes: the page entry point.
 *
 *   <script type="module" src="…/assets/course/js/enhance.js"></script>
 *
 * On every page, boxes that scroll sideways become reachable by keyboard (scroll_regions.js).
 * Does nothing else on a page without cells (.course-cell), quizzes (.course-quiz) or the course's
 * progress (p.course-progress, and each lesson's "2 / 4" in the sidebar: nav_progress.js) or the
 * learner's work (section.course-work: work.js). Exercises are cells with a check (exercise.js enhances the rest).  With cells it
 * takes the page's kernel (page_kernel.js; its worker, started from <head> by
 * worker_prestart.js, is already loading Python off the main thread) and turns each
 * cell into an editor; a Run clicked before Python is ready just waits for it.  It adds the page's
 * Python console (console.js: a header button, Ctrl+`) unless the author turned it off.
 * Works with Material's instant navigation (document$) as well as plain loads.
 */

import names from "./dom_names.js";
import { PageCells } from "./page_cells.js";
import { watchScrollBoxes } from "./scroll_regions.js";

const CELL = names.cell;
const QUIZ = names.quiz;
const CELLS = `.${CELL.root}:not(.${CELL.live})`;
const QUIZZES = `form.${QUIZ.root}:not([${names.quizData.enhanced}])`;
const PROGRESS = "p.course-progress"; // the home page's "3 of 7 exercises solved" (exercises_html.py)
const WORK = "section.course-work:not([data-enhanced])"; // the home page's "Your work" (work_html.py), once
const EXERCISES = "course-exercises"; // each lesson's exercises, for the sidebar's "2 / 4" (course_end.py)

let page = null; // { kernel, cells, path }

/* The cells' modules; if they cannot be loaded, the page may be an older build's that a browser cache
 * kept, whose runner is gone from the host: worker_prestart.js checks, and reloads into the new build. */
async function cellModules() {
  try {
    return await Promise.all([import("./cell.js"), import("./page_kernel.js")]);
  } catch (err) {
    window.coursePython?.checkBuild();
    throw err;
  }
}

async function enhanceCells(roots) {
  const [{ Cell, loadCodeMirror }, { boot, whenPythonQuiet }] = await cellModules();
  const { kernel, withConsole } = boot();
  // Cells make their editors as they come near the viewport; once Python is
  // ready and quiet (a Run clicked early has ended), CodeMirror is loaded anyway,
  // so that it is at hand (offline too).
  whenPythonQuiet(kernel, () => loadCodeMirror());
  const cells = [];
  for (const root of roots) {
    if (root.classList.contains(CELL.live)) continue;
    try {
      cells.push(new Cell(root, kernel));
    } catch (err) {
      console.error("course: could not enhance", root, err); // the static block stays
    }
  }
  const pageCells = new PageCells(cells);
  for (const cell of cells) cell.pageCells = pageCells;
  const exercises = cells.filter((cell) => cell.isExercise);
  if (exercises.length) {
    const { enhanceExercise } = await import("./exercise.js");
    for (const cell of exercises) enhanceExercise(cell.root, cell);
  }
  for (const cell of cells) if (cell.root.getAttribute(names.cellData.autorun) === "true") cell.run();
  // The page's Python console (console.js), on the same kernel: its button in the header, its panel closed.
  const pythonConsole = withConsole ? import("./console.js").then(({ PythonConsole }) => new PythonConsole(kernel)) : null;
  return { kernel, cells, pythonConsole };
}

async function init() {
  watchScrollBoxes();
  const path = location.pathname;
  if (page && page.path !== path) {
    // Instant navigation replaced the content: the old page's Python goes away.
    page.kernel?.dispose();
    import("./page_kernel.js").then((m) => m.forget());
    for (const cell of page.cells || []) cell.destroy();
    page.pythonConsole?.then((pythonConsole) => pythonConsole.destroy(), () => {});
    page = null;
  }
  const progress = document.querySelector(PROGRESS);
  const showProgress = () => progress && import("./exercise.js").then((exercise) => exercise.showProgress(progress));
  showProgress();
  if (document.getElementById(EXERCISES)) import("./nav_progress.js").then(({ watchNavProgress }) => watchNavProgress());
  const work = document.querySelector(WORK);
  if (work) {
    work.dataset.enhanced = "";
    const refresh = () => {
      showProgress();
      if (document.getElementById(EXERCISES)) import("./nav_progress.js").then(({ showNavProgress }) => showNavProgress());
    };
    import("./work.js").then(({ enhanceWork }) => enhanceWork(work, refresh));
  }
  const quizzes = document.querySelectorAll(QUIZZES);
  if (quizzes.length) {
    for (const form of quizzes) form.setAttribute(names.quizData.enhanced, "");
    import("./quiz.js").then(({ initQuizzes }) => initQuizzes(quizzes));
  }
  const roots = [...document.querySelectorAll(CELLS)];
  if (!roots.length || page) return;
  page = { path, cells: [], kernel: null };
  const current = page;
  const { kernel, cells, pythonConsole } = await enhanceCells(roots);
  if (page === current) Object.assign(current, { kernel, cells, pythonConsole });
  else {
    kernel.dispose();
    pythonConsole?.then((made) => made.destroy(), () => {});
  }
}

init();
if (window.document$ && typeof window.document$.subscribe === "function") {
  // Material's instant navigation swaps the page without reloading this module.
  window.document$.subscribe(() => init());
}
