/* Course quizzes: immediate feedback for the plugin's multiple-choice forms.
 *
 * Enhances the form that the build rendered (quiz.py; names in dom.json):
 *   <form class="course-quiz"> <fieldset> radios </fieldset>
 *     <div class="course-quiz__feedback" role="status" aria-live="polite"></div>
 *     <details class="course-quiz__answers"> <ol> <li data-option data-correct>
 *        <p>…</p><div class="course-quiz__why">…</div> </li> … </ol> </details>
 *   </form>
 *
 * Without JavaScript the <details> block still gives every answer.  With it,
 * choosing an option (click, or arrow keys within the radio group) shows
 * "Correct." / "Not quite." and that option's explanation, cloned from the
 * author's (trusted) HTML in the details block.
 */
import names from "./dom_names.js";

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
  word.textContent = correct ? "Correct." : "Not quite.";
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

function initQuiz(form) {
  form.setAttribute(DATA.enhanced, "ready");
  form.addEventListener("submit", (event) => event.preventDefault());
  form.addEventListener("change", (event) => {
    const input = event.target;
    if (input instanceof HTMLInputElement && input.type === "radio" && input.checked) show(form, input);
  });
  const checked = form.querySelector("input[type=radio]:checked"); // restored by the browser
  if (checked) show(form, checked);
}

export function initQuizzes(forms) {
  for (const form of forms) initQuiz(form);
}
