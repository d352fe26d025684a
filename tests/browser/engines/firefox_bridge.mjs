// Firefox for the cross-browser tests (tests/browser/fixture/engines.py): puppeteer-core drives
// the Firefox given in argv over WebDriver BiDi, one browser process per bridge, and answers the
// test's commands, one JSON object a line on stdin: {id, op, ...}; each answer is one line on
// stdout: {id, value} or {id, error}.
//
//   node firefox_bridge.mjs '{"executablePath": "...", "userDataDir": "...", "prefs": {...}}'
//
// ops: "tab" (a new page in a new browser context, or in the profile's own context with
// {persistent: true}), "goto" {tab, url}, "reload" {tab}, "evaluate" {tab, source, arg} (source:
// a function of one argument; its awaited result), "click" {tab, selector}, "console" {tab,
// pattern} (the first console line of the page or its workers matching the pattern, awaited),
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

function consoleLine(tab, source) {
  const pattern = new RegExp(source);
  const seen = tab.lines.find((line) => pattern.test(line));
  return seen ?? new Promise((resolve) => tab.waiters.push({ pattern, resolve }));
}

const ops = {
  tab: (command) => newTab(command),
  goto: ({ tab, url }) => tabs.get(tab).page.goto(url).then(() => null),
  reload: ({ tab }) => tabs.get(tab).page.reload().then(() => null),
  evaluate: ({ tab, source, arg }) => tabs.get(tab).page.evaluate(`(${source})(${JSON.stringify(arg ?? null)})`),
  click: ({ tab, selector }) => tabs.get(tab).page.click(selector).then(() => null),
  console: ({ tab, pattern }) => consoleLine(tabs.get(tab), pattern),
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
