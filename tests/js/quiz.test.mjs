// How a quiz marks the option chosen (assets/js/quiz.js), on a stand-in document built from the
// names the build uses (contract.json); run by tests/unit/test_node_tests.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import names from "../../src/course_site/course_site/assets/js/contract.json" with { type: "json" };
import { FakeElement, FakeNode, children, fakeDocument } from "./fake_dom.mjs";
import { DENIED, MemoryStorage } from "./fake_storage.mjs";

const QUIZ = names.quiz;
const DATA = names.quizData;

class FakeInput extends FakeElement {}
globalThis.document = fakeDocument;
globalThis.HTMLInputElement = FakeInput;
globalThis.CSS = { escape: (value) => value.replace(/["\\]/g, "\\$&") };
const { initQuizzes } = await import("../../src/course_site/course_site/assets/js/quiz.js");

/* A rendered quiz (quiz.py) whose options are `options`: [value, correct, explanation text or null]. */
function quiz(options, { checked = null, feedback = true } = {}) {
  const radios = options.map(([value]) => Object.assign(new FakeInput("input"), { type: "radio", value, checked: value === checked }));
  const labels = radios.map((radio) => new FakeElement("label", { "input[type=radio]": radio }));
  const found = {
    [`.${QUIZ.option}`]: labels,
    "input[type=radio]:checked": radios.find((radio) => radio.checked) ?? [],
  };
  if (feedback) found[`.${QUIZ.feedback}`] = new FakeElement("div");
  for (const [value, correct, why] of options) {
    if (value === "unlisted") continue;
    const explanation = new FakeElement("div");
    explanation.append(new FakeNode("#text", why ?? ""), Object.assign(new FakeElement("em"), { textContent: "!" }));
    const item = new FakeElement("li", why === null ? {} : { [`.${QUIZ.why}`]: explanation });
    item.setAttribute(DATA.correct, String(correct));
    found[`.${QUIZ.answers} li[${DATA.option}="${CSS.escape(value)}"]`] = item;
  }
  const form = new FakeElement("form", found);
  return { form, radios, labels, feedback: found[`.${QUIZ.feedback}`], explanations: found };
}

const OPTIONS = [["1", false, "Sines repeat: "], ["2", true, "Each position differs: "], ["3", false, null]];

/* The learner chooses `radio` (a click, or an arrow key in the radio group). */
function choose(form, radio) {
  for (const other of form.querySelectorAll(`.${QUIZ.option}`)) other.querySelector("input[type=radio]").checked = false;
  radio.checked = true;
  form.dispatch("change", { target: radio });
}

/* What the feedback says: the mark, the word, the explanation's nodes. */
function said(feedback) {
  const [verdict, why] = feedback.childNodes;
  const [mark, , word] = verdict.childNodes;
  assert.deepEqual([verdict, mark, word, why].map((node) => node.nodeName), ["P", "SPAN", "STRONG", "DIV"]);
  assert.equal(verdict.className, QUIZ.verdict);
  assert.equal(mark.className, QUIZ.mark);
  assert.equal(mark.getAttribute("aria-hidden"), "true");
  assert.equal(why.className, QUIZ.why);
  return { mark: mark.textContent, word: word.textContent, text: verdict.textContent, why: children(why) };
}

const chosenClasses = (labels) =>
  labels.map((label) => ["chosen", "correct", "incorrect"].filter((k) => label.classList.contains(`${QUIZ.option}--${k}`)));

test("the right option is marked correct, with its explanation", () => {
  const { form, radios, labels, feedback } = quiz(OPTIONS);
  initQuizzes([form]);
  assert.equal(form.getAttribute(DATA.enhanced), "ready");
  assert.deepEqual(feedback.childNodes, []);
  choose(form, radios[1]);
  assert.deepEqual(said(feedback), {
    mark: "✓", word: "Correct.", text: "✓ Correct.", why: [["#text", "Each position differs: "], ["EM", "!"]],
  });
  assert.equal(feedback.getAttribute(DATA.result), "correct");
  assert.equal(form.getAttribute(DATA.answered), "correct");
  assert.deepEqual(chosenClasses(labels), [[], ["chosen", "correct"], []]);
});

test("a wrong option is marked incorrect, with its own explanation; the next choice replaces it", () => {
  const { form, radios, labels, feedback, explanations } = quiz(OPTIONS);
  initQuizzes([form]);
  choose(form, radios[0]);
  assert.deepEqual(said(feedback), {
    mark: "✗", word: "Not quite.", text: "✗ Not quite.", why: [["#text", "Sines repeat: "], ["EM", "!"]],
  });
  assert.equal(feedback.getAttribute(DATA.result), "incorrect");
  assert.equal(form.getAttribute(DATA.answered), "incorrect");
  assert.deepEqual(chosenClasses(labels), [["chosen", "incorrect"], [], []]);
  // The explanation is a copy: the answers block keeps its own.
  const item = explanations[`.${QUIZ.answers} li[${DATA.option}="1"]`];
  assert.equal(item.querySelector(`.${QUIZ.why}`).childNodes.length, 2);
  assert.notEqual(feedback.childNodes[1].childNodes[0], item.querySelector(`.${QUIZ.why}`).childNodes[0]);
  choose(form, radios[1]);
  assert.equal(said(feedback).word, "Correct.");
  assert.deepEqual(chosenClasses(labels), [[], ["chosen", "correct"], []]);
});

test("an option without an explanation, or not in the answers, gets the verdict alone", () => {
  const { form, radios, feedback } = quiz([...OPTIONS, ["unlisted", true, ""]]);
  initQuizzes([form]);
  choose(form, radios[2]);
  assert.deepEqual(said(feedback), { mark: "✗", word: "Not quite.", text: "✗ Not quite.", why: [] });
  choose(form, radios[3]);
  assert.deepEqual(said(feedback), { mark: "✗", word: "Not quite.", text: "✗ Not quite.", why: [] });
});

test("an option the browser restored as checked is marked at once", () => {
  const { form, feedback } = quiz(OPTIONS, { checked: "2" });
  initQuizzes([form]);
  assert.equal(said(feedback).word, "Correct.");
});

test("changes that are not a radio being checked are not marked", () => {
  const { form, radios, feedback } = quiz(OPTIONS);
  initQuizzes([form]);
  form.dispatch("change", { target: radios[1] }); // unchecked
  form.dispatch("change", { target: Object.assign(new FakeElement("input"), { type: "radio", checked: true }) });
  form.dispatch("change", { target: Object.assign(new FakeInput("input"), { type: "checkbox", checked: true }) });
  assert.deepEqual(feedback.childNodes, []);
  assert.equal(form.getAttribute(DATA.answered), null);
});

test("a form without a feedback region is left as it is", () => {
  const { form, radios, labels } = quiz(OPTIONS, { feedback: false });
  initQuizzes([form]);
  choose(form, radios[1]);
  assert.equal(form.getAttribute(DATA.answered), null);
  assert.deepEqual(chosenClasses(labels), [[], [], []]);
});

test("submitting the form (Enter in a radio group) does not leave the page", () => {
  const { form } = quiz(OPTIONS);
  initQuizzes([form]);
  let prevented = false;
  form.dispatch("submit", { preventDefault: () => (prevented = true) });
  assert.equal(prevented, true);
});

test("every quiz on the page is enhanced", () => {
  const quizzes = [quiz(OPTIONS), quiz(OPTIONS)];
  initQuizzes(quizzes.map((q) => q.form));
  assert.ok(quizzes.every((q) => q.form.getAttribute(DATA.enhanced) === "ready"));
});

/* A quiz as quiz.py renders it on page /lessons/x/: an id, its text, the answers block and Try again. */
function keptQuiz(storage, options = OPTIONS) {
  globalThis.localStorage = storage;
  globalThis.location = { pathname: "/lessons/x/" };
  const q = quiz(options);
  q.answers = new FakeElement("details");
  q.retry = new FakeElement("button");
  Object.assign(q.form.found, { [`.${QUIZ.answers}`]: q.answers, [`.${QUIZ.retry}`]: q.retry });
  q.form.id = "quiz-1";
  q.form.textContent = "Which one?";
  return q;
}

test("the answers stay hidden until the learner answers; then they and Try again show", () => {
  const { form, radios, answers, retry } = keptQuiz(new MemoryStorage());
  initQuizzes([form]);
  assert.deepEqual([answers.hidden, retry.hidden], [true, true]);
  choose(form, radios[0]);
  assert.deepEqual([answers.hidden, retry.hidden], [false, false]);
});

test("the answer is kept across a reload, and Try again forgets it", () => {
  const storage = new MemoryStorage();
  const first = keptQuiz(storage);
  initQuizzes([first.form]);
  choose(first.form, first.radios[1]);
  assert.deepEqual(JSON.parse(storage.items.get("course-quiz:/lessons/x/:quiz-1")).value, "2");

  const reloaded = keptQuiz(storage);
  initQuizzes([reloaded.form]);
  assert.equal(reloaded.radios[1].checked, true);
  assert.equal(said(reloaded.feedback).word, "Correct.");
  assert.deepEqual([reloaded.answers.hidden, reloaded.retry.hidden], [false, false]);

  reloaded.retry.click();
  assert.equal(storage.items.size, 0);
  assert.ok(reloaded.radios.every((radio) => !radio.checked));
  assert.deepEqual(reloaded.feedback.childNodes, []);
  assert.equal(reloaded.form.getAttribute(DATA.answered), null);
  assert.deepEqual(chosenClasses(reloaded.labels), [[], [], []]);
  assert.deepEqual([reloaded.answers.hidden, reloaded.retry.hidden], [true, true]);
  assert.equal(reloaded.radios[0].focused, true);
});

test("a quiz whose text changed since it was answered starts unanswered", () => {
  const storage = new MemoryStorage();
  const first = keptQuiz(storage);
  initQuizzes([first.form]);
  choose(first.form, first.radios[1]);
  const changed = keptQuiz(storage);
  changed.form.textContent = "Which one, now?";
  initQuizzes([changed.form]);
  assert.ok(changed.radios.every((radio) => !radio.checked));
  assert.equal(changed.answers.hidden, true);
});

test("storage that throws never breaks a quiz: the answer is just not kept", () => {
  const { form, radios, feedback, retry } = keptQuiz(DENIED);
  initQuizzes([form]);
  choose(form, radios[1]);
  assert.equal(said(feedback).word, "Correct.");
  retry.click();
  assert.deepEqual(feedback.childNodes, []);
});
