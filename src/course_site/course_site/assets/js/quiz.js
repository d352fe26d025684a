/* Course quizzes: immediate feedback for the plugin's multiple-choice forms.
 *
 * Enhances the form that the build rendered (quiz.py; names in contract.json):
 *   <form class="course-quiz"> <fieldset> radios </fieldset>
 *     <div class="course-quiz__feedback" role="status" aria-live="polite"></div>
 *     <details class="course-quiz__answers"> <ol> <li data-option data-correct>
 *        <p>…</p><div class="course-quiz__why">…</div> </li> … </ol> </details>
 *   </form>
 *
 * Without JavaScript the <details> block still gives every answer.  With it, the
 * block stays hidden until the learner answers; choosing an option (click, or arrow
 * keys within the radio group) shows "Correct." / "Not quite." and that option's
 * explanation, cloned from the author's (trusted) HTML in the details block, then
 * the block. The answer is kept across reloads (quiz_answers.js); the
 * <button class="course-quiz__retry">Try again</button> forgets it.
 */
import names from "./dom_names.js";
import { QuizAnswer } from "./quiz_answers.js";
import { t } from "./strings.js";

const QUIZ = names.quiz;
const DATA = names.quizData;

function explanationFor(form, value) {
  const item = form.querySelector(`.${QUIZ.answers} li[${DATA.option}="${CSS.escape(value)}"]`);
  if (!item) return { correct: false, nodes: [] };
  const why = item.querySelector(`.${QUIZ.why}`);
  return {
    correct: item.getAttribute(DATA.correct) === "true",
    nodes: why ? [...why.childNodes].map((node) => node.cloneNode(true)) : [],
  };
}

function show(form, input) {
  const feedback = form.querySelector(`.${QUIZ.feedback}`);
  if (!feedback) return;
  const { correct, nodes } = explanationFor(form, input.value);
  const verdict = document.createElement("p");
  verdict.className = QUIZ.verdict;
  const mark = document.createElement("span");
  mark.className = QUIZ.mark;
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = correct ? "✓" : "✗";
  const word = document.createElement("strong");
  word.textContent = t(correct ? "quiz.correct" : "quiz.incorrect");
  verdict.append(mark, " ", word);
  const why = document.createElement("div");
  why.className = QUIZ.why;
  why.append(...nodes);
  feedback.replaceChildren(verdict, why);
  feedback.setAttribute(DATA.result, correct ? "correct" : "incorrect");
  form.setAttribute(DATA.answered, correct ? "correct" : "incorrect");

  for (const option of form.querySelectorAll(`.${QUIZ.option}`)) {
    const radio = option.querySelector("input[type=radio]");
    const chosen = radio === input;
    option.classList.toggle(`${QUIZ.option}--chosen`, chosen);
    option.classList.toggle(`${QUIZ.option}--correct`, chosen && correct);
    option.classList.toggle(`${QUIZ.option}--incorrect`, chosen && !correct);
  }
}

/** Show the answers block and the Try again button once answered; hide them before. */
function reveal(form, answered) {
  const answers = form.querySelector(`.${QUIZ.answers}`);
  if (answers) answers.hidden = !answered;
  const retry = form.querySelector(`.${QUIZ.retry}`);
  if (retry) retry.hidden = !answered;
}

/** Forget the answer: no option chosen, no feedback, the answers hidden again. */
function reset(form, kept) {
  kept.forget();
  const options = [...form.querySelectorAll(`.${QUIZ.option}`)];
  for (const option of options) {
    option.querySelector("input[type=radio]").checked = false;
    for (const kind of ["chosen", "correct", "incorrect"]) option.classList.toggle(`${QUIZ.option}--${kind}`, false);
  }
  const feedback = form.querySelector(`.${QUIZ.feedback}`);
  feedback?.replaceChildren();
  feedback?.removeAttribute(DATA.result);
  form.removeAttribute(DATA.answered);
  reveal(form, false);
  options[0]?.querySelector("input[type=radio]").focus();
}

function initQuiz(form) {
  form.setAttribute(DATA.enhanced, "ready");
  const kept = new QuizAnswer(form.id || "", form.textContent || "");
  const radios = [...form.querySelectorAll(`.${QUIZ.option}`)].map((option) => option.querySelector("input[type=radio]"));
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement && input.type === "radio" && input.checked)) return;
    kept.save(input.value);
    show(form, input);
    reveal(form, true);
  });
  form.querySelector(`.${QUIZ.retry}`)?.addEventListener("click", () => reset(form, kept));
  const value = kept.load();
  const restored = radios.find((radio) => radio && radio.value === value);
  if (restored) restored.checked = true;
  const checked = restored ?? form.querySelector("input[type=radio]:checked"); // or restored by the browser
  if (checked) show(form, checked);
  reveal(form, Boolean(checked));
}

export function initQuizzes(forms) {
  for (const form of forms) initQuiz(form);
}
