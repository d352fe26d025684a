/* The home page's "Your work" (work_html.py's section.course-work): save the learner's work on this
 * site to a file, load such a file (merged with what is here: work_file.js's planImport), and start over.
 *
 * Each control says what it did in the section's status line (a live region); a file that cannot be
 * loaded is refused there with why, and changes nothing.  Questions (edits that the file would replace,
 * the work that starting over deletes) are a modal <dialog> of real buttons: Escape answers with the
 * one that changes nothing.  Text nodes only.
 */
import { siteRoot } from "./storage.js";
import {
  applyWork, clearWork, collectWork, countWork, planImport, readWorkFile, WorkFileError, workFile, workFileName,
} from "./work_file.js";
import { t } from "./strings.js";

/** "2 edited cells, 1 solved exercise, 3 console statements" (the parts that are not 0), or "no work yet". */
export function summary(counts) {
  const parts = [["work.edits", counts.edits], ["work.solved", counts.solved], ["work.quizzes", counts.quizzes], ["work.statements", counts.statements]]
    .filter(([, count]) => count > 0)
    .map(([key, count]) => t(key, { count }));
  return parts.length ? parts.join(", ") : t("work.nothing");
}

/** Why a work file was refused, in the learner's words. */
export function refusal(err) {
  if (err instanceof WorkFileError) return t(err.key, err.values);
  return t("work.unreadable", { reason: String(err?.message || err) });
}

/* Hand the browser `text` as a download named `name`. */
function download(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // a download that starts late still finds it
}

let dialogs = 0;

/**
 * Ask with a modal dialog: `title`, `text`, `items` (a list under the text), `buttons` [{label, value}];
 * resolves to the value of the button pressed (the first one has the focus), or `cancel` on Escape.
 * `onButton(value)`, if given, may answer false to keep the dialog open (a button that saves a file first).
 */
export function ask({ title, text, items = [], buttons, cancel, onButton = () => true }) {
  const id = `course-work-dialog-${++dialogs}`;
  const dialog = document.createElement("dialog");
  dialog.className = "course-work__dialog";
  dialog.setAttribute("aria-labelledby", `${id}-title`);
  dialog.setAttribute("aria-describedby", `${id}-text`);
  const heading = document.createElement("h2");
  heading.id = `${id}-title`;
  heading.textContent = title;
  const body = document.createElement("p");
  body.id = `${id}-text`;
  body.textContent = text;
  dialog.append(heading, body);
  if (items.length) {
    const list = document.createElement("ul");
    for (const item of items) {
      const entry = document.createElement("li");
      entry.textContent = item;
      list.append(entry);
    }
    dialog.append(list);
  }
  const row = document.createElement("div");
  row.className = "course-work__dialog-actions";
  dialog.append(row);
  return new Promise((resolve) => {
    const close = (value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    for (const { label, value } of buttons) {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.answer = value;
      button.textContent = label;
      button.addEventListener("click", async () => {
        if ((await onButton(value)) !== false) close(value);
      });
      row.append(button);
    }
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close(cancel);
    });
    document.body.append(dialog);
    dialog.showModal();
    row.querySelector("button").focus();
  });
}

/** The lesson's title for a page path ("lessons/32-positional-encoding/"), from the sidebar's link to it, else the path. */
function pageName(path) {
  const target = new URL(path.replace(/^\//, ""), new URL(siteRoot(), location.href)).href;
  for (const link of document.querySelectorAll("a.md-nav__link[href]")) {
    if (new URL(link.getAttribute("href"), location.href).href === target) {
      return (link.querySelector(".md-ellipsis") ?? link).firstChild?.textContent?.trim() || path;
    }
  }
  return path;
}

/** Enhance the section `section` (section.course-work); `refresh()` shows the progress again after a change. */
export function enhanceWork(section, refresh = () => {}) {
  const site = section.dataset.siteName;
  const status = section.querySelector(".course-work__status");
  const input = section.querySelector("input.course-work__file");
  const say = (text) => {
    status.textContent = text;
  };
  const save = () => {
    const work = collectWork();
    const name = workFileName(site);
    download(workFile(site, work), name);
    say(t("work.saved", { file: name, summary: summary(countWork(work)) }));
  };

  section.querySelector('button[data-action="save-work"]').addEventListener("click", save);
  section.querySelector('button[data-action="load-work"]').addEventListener("click", () => input.click());
  input.addEventListener("change", async () => {
    const [file] = input.files;
    input.value = ""; // the same file chosen again is a new change
    if (!file) return;
    say(await load(file, site));
    refresh();
  });
  section.querySelector('button[data-action="start-over"]').addEventListener("click", async () => {
    const done = await startOver(save);
    if (done) say(done); // cancelled: what it said (a save) stays
    refresh();
  });
  section.hidden = false;
}

/* Load the work file `file` for the site named `site`; what happened, in words. */
async function load(file, site) {
  let plan;
  try {
    plan = planImport(readWorkFile(await file.text(), site));
  } catch (err) {
    return t("work.refused", { file: file.name, reason: refusal(err) });
  }
  let replace = false;
  if (plan.conflicts.length) {
    const answer = await ask({
      title: t("work.conflict_title"),
      text: t("work.conflict", { count: plan.conflicts.length }),
      items: [...plan.conflicts.map(({ page, cell }) => t("work.conflict_cell", { page: pageName(page), cell })), t("work.conflict_rest")],
      buttons: [{ label: t("work.keep"), value: "keep" }, { label: t("work.replace"), value: "replace" }],
      cancel: "keep",
    });
    replace = answer === "replace";
  }
  try {
    const written = applyWork(plan, { replace });
    const kept = replace ? "" : plan.conflicts.length ? ` ${t("work.kept_mine", { count: plan.conflicts.length })}` : "";
    if (!written) return t("work.loaded_same", { file: file.name }) + kept;
    return t("work.loaded", { file: file.name, summary: summary(plan.counts) }) + kept;
  } catch (err) {
    return t("work.refused", { file: file.name, reason: refusal(err) });
  }
}

/* Ask, then clear the learner's work on this site (`save` saves it first, on request); what happened, in words. */
async function startOver(save) {
  const counts = countWork(collectWork());
  if (!Object.values(counts).some((count) => count > 0)) return t("work.clear_none");
  const answer = await ask({
    title: t("work.clear_title"),
    text: t("work.clear_what", { summary: summary(counts) }),
    buttons: [
      { label: t("work.save_first"), value: "save" },
      { label: t("work.clear"), value: "clear" },
      { label: t("work.cancel"), value: "cancel" },
    ],
    cancel: "cancel",
    onButton: (value) => (value === "save" ? (save(), false) : true), // saved: the question stays
  });
  if (answer !== "clear") return "";
  clearWork();
  return t("work.cleared");
}
