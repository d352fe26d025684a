/* Course quizzes: immediate feedback for the plugin's multiple-choice forms.
 *
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

function explanationFor(form, value) {
  const item = form.querySelector(`.course-quiz__answers li[data-option="${CSS.escape(value)}"]`);
  if (!item) return { correct: false, nodes: [] };
  const why = item.querySelector(".course-quiz__why");
  return {
    correct: item.dataset.correct === "true",
    nodes: why ? [...why.childNodes].map((node) => node.cloneNode(true)) : [],
  };
}

function show(form, input) {
  const feedback = form.querySelector(".course-quiz__feedback");
  if (!feedback) return;
  const { correct, nodes } = explanationFor(form, input.value);
  const verdict = document.createElement("p");
  verdict.className = "course-quiz__verdict";
  const mark = document.createElement("span");
  mark.className = "course-quiz__mark";
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = correct ? "✓" : "✗";
  const word = document.createElement("strong");
  word.textContent = correct ? "Correct." : "Not quite.";
  verdict.append(mark, " ", word);
  const why = document.createElement("div");
  why.className = "course-quiz__why";
  why.append(...nodes);
  feedback.replaceChildren(verdict, why);
  feedback.dataset.result = correct ? "correct" : "incorrect";
  form.dataset.answered = correct ? "correct" : "incorrect";

  for (const option of form.querySelectorAll(".course-quiz__option")) {
    const radio = option.querySelector("input[type=radio]");
    const chosen = radio === input;
    option.classList.toggle("course-quiz__option--chosen", chosen);
    option.classList.toggle("course-quiz__option--correct", chosen && correct);
    option.classList.toggle("course-quiz__option--incorrect", chosen && !correct);
  }
}

export function initQuiz(form) {
  form.dataset.courseQuiz = "ready";
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
