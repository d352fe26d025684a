// Firefox for the cross-browser tests (tests/browser/fixture/engines.py): puppeteer-core drives
// the Firefox given in argv over WebDriver BiDi, one browser process per bridge, and answers the
// test's commands, one JSON object a line on stdin: {id, op, ...}; each answer is one line on
// stdout: {id, value} or {id, error}.
//
//   node firefox_bridge.mjs '{"executablePath": "...", "userDataDir": "...", "prefs": {...}}'
//
// ops: "tab" (a new page in a new browser context, or in the profile's own context with
// {persistent: true}), "goto" {tab, url}, "reload" {tab}, "evaluate" {tab, source, arg} (source:
// a function of one argument; its awaited result), "click" {tab, selector, still} (still:
// a function of the selector that brings it into view and resolves once it is still), "console" {tab,
// pattern, timeoutMs} (the first console line of the page or its workers matching the pattern, awaited),
// "closeTab" {tab}, "close".
import puppeteer from "puppeteer-core";
import { createInterface } from "node:readline";

const options = JSON.parse(process.argv[2]);
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: options.executablePath,
  headless: true,
  userDataDir: options.userDataDir,
  extraPrefsFirefox: options.prefs,
  protocolTimeout: 600_000,
  // Firefox's release builds follow the "services.settings.server" pref only with this set.
  env: { ...process.env, MOZ_REMOTE_SETTINGS_DEVTOOLS: "1" },
});

const tabs = new Map(); // id -> {page, context, lines, waiters}
let nextTab = 1;

async function newTab({ persistent }) {
  const context = persistent ? browser.defaultBrowserContext() : await browser.createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(600_000);
  const tab = { page, context: persistent ? null : context, lines: [], waiters: [] };
  page.on("console", (message) => {
    const text = message.text();
    tab.lines.push(text);
    tab.waiters = tab.waiters.filter(({ pattern, resolve }) => !(pattern.test(text) && (resolve(text), true)));
  });
  const id = nextTab++;
  tabs.set(id, tab);
  return id;
}

// The last lines the page and its workers said, for a failure's message.
function lastLines(tab) {
  return tab.lines.slice(-12).map((line) => `\n  console: ${line.slice(0, 300)}`).join("");
}

// The first console line of the tab matching `source`, seen already or within `timeoutMs`; a wait that
// ends without it fails with the lines that did come (the steps' waits are as long: steps.WAIT_MS).
function consoleLine(tab, source, timeoutMs) {
  const pattern = new RegExp(source);
  const seen = tab.lines.find((line) => pattern.test(line));
  if (seen !== undefined) return seen;
  return new Promise((resolve, reject) => {
    const waiter = { pattern, resolve: (line) => (clearTimeout(timer), resolve(line)) };
    const timer = setTimeout(() => {
      tab.waiters = tab.waiters.filter((other) => other !== waiter);
      reject(new Error(`no console line matched /${source}/ in ${timeoutMs / 1000} s; the last lines:${lastLines(tab)}`));
    }, timeoutMs);
    tab.waiters.push(waiter);
  });
}

// A guard on the window for the click to come at `selector`'s middle (the test has brought it into
// view and still: engines.py IN_VIEW_AND_STILL, given as `still`): a pointer or mouse event aimed at
// anything but the element (the page's late layout moved it between this and the click) is stopped
// before the page sees it, and counted as a miss.  Gives the point to click.
const ARM = `(selector) => {
  const element = document.querySelector(selector);
  const box = element.getBoundingClientRect();
  const guard = { missed: false, events: ["pointerdown", "mousedown", "pointerup", "mouseup", "click"] };
  guard.stop = (event) => {
    if (element.contains(event.target) || event.target === element.control) return; // a label clicks its control
    guard.missed = true;
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  for (const type of guard.events) window.addEventListener(type, guard.stop, true);
  window.__clickGuard = guard;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}`;
const LANDED = `() => {
  const guard = window.__clickGuard;
  delete window.__clickGuard;
  if (!guard) return true; // the click navigated: it landed
  for (const type of guard.events) window.removeEventListener(type, guard.stop, true);
  return !guard.missed;
}`;
const CLICKABLE_MS = 30_000;

// A click as a learner's, on the element's middle once it is in view and still (`still`); a click that the page's
// late layout sent elsewhere is stopped and tried again (as Playwright's hit-target check does).
async function click({ tab, selector, still }) {
  const { page } = tabs.get(tab);
  const deadline = Date.now() + CLICKABLE_MS;
  for (;;) {
    await page.evaluate(`(${still})(${JSON.stringify(selector)})`);
    const { x, y } = await page.evaluate(`(${ARM})(${JSON.stringify(selector)})`);
    await page.mouse.click(x, y);
    if (await page.evaluate(`(${LANDED})()`)) return null;
    if (Date.now() > deadline) throw new Error(`a click at the middle of ${selector} (${x}, ${y}) hit something else`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// A test's function in the page; a failure says what the page and its workers said last.
async function evaluate(tab, source, arg) {
  try {
    return await tab.page.evaluate(`(${source})(${JSON.stringify(arg ?? null)})`);
  } catch (error) {
    throw new Error(`${error?.message || error}${lastLines(tab)}`);
  }
}

const ops = {
  tab: (command) => newTab(command),
  goto: ({ tab, url }) => tabs.get(tab).page.goto(url).then(() => null),
  reload: ({ tab }) => tabs.get(tab).page.reload().then(() => null),
  evaluate: ({ tab, source, arg }) => evaluate(tabs.get(tab), source, arg),
  click,
  console: ({ tab, pattern, timeoutMs }) => consoleLine(tabs.get(tab), pattern, timeoutMs),
  closeTab: async ({ tab }) => {
    const { page, context } = tabs.get(tab);
    tabs.delete(tab);
    await (context ? context.close() : page.close());
    return null;
  },
  close: async () => {
    await browser.close();
    return null;
  },
};

function answer(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

answer({ id: 0, value: await browser.version() });
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  try {
    answer({ id: command.id, value: (await ops[command.op](command)) ?? null });
  } catch (error) {
    answer({ id: command.id, error: String(error?.message || error) });
  }
  if (command.op === "close") break;
}
process.exit(0); // stdin may still be open: nothing is left to answer
