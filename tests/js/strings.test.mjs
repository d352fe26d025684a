/* strings.js under Node: a message by key in the page's language, its plural form by Intl.PluralRules,
 * numbers and sizes by Intl.NumberFormat, elements in a message (tParts), and a worker's error told
 * again in the catalogue that came after it was made (learnerError, messageOf). */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

const strings = await import("../../src/course_site/course_site/assets/js/strings.js");
const { formatDecimal, formatMegabytes, learnerError, messageOf, t, tParts, useCatalogue } = strings;

const CATALOGUES = new URL("../../src/course_site/course_site/catalogues/", import.meta.url);
const read = async (lang) => ({ lang, messages: JSON.parse(await readFile(new URL(`${lang}.json`, CATALOGUES), "utf8")) });
const [english, french, german] = await Promise.all(["en", "fr", "de"].map(read));

test("a message by key, its placeholders filled; a key the catalogue lacks comes back as itself", () => {
  useCatalogue(english);
  assert.equal(t("python.ready"), "Python is ready");
  assert.equal(t("run.done", { duration: "12.3 s" }), "Done in 12.3 s");
  assert.equal(t("no.such_key"), "no.such_key");
  assert.equal(t("cell.region"), "Python cell {cell}", "a placeholder not given stays");
});

test("a message that counts takes the page language's plural form", () => {
  useCatalogue(english);
  assert.equal(t("exercise.count", { solved: 1, count: 1 }), "1 of 1 exercise solved");
  assert.equal(t("exercise.count", { solved: 0, count: 3 }), "0 of 3 exercises solved");
  useCatalogue(french);
  // French says "one" for 0 and 1 (CLDR), "other" from 2.
  assert.equal(t("exercise.count", { solved: 0, count: 1 }), french.messages["exercise.count"].one.replace("{solved}", "0").replace("{count}", "1"));
  assert.match(t("exercise.count", { solved: 2, count: 5 }), /^2 .*5 exercices/);
  useCatalogue(german);
  assert.match(t("exercise.count", { solved: 2, count: 5 }), /2 .*5/);
});

test("numbers and sizes are written the page's way", () => {
  useCatalogue(french);
  assert.equal(formatMegabytes(8_840_000).replace(/\s/g, " "), "8,8 Mo");
  assert.equal(formatDecimal(12.345, 1), "12,3");
  assert.equal(t("run.queued_behind", { count: 1234 }).includes("1\u202f234"), true);
  useCatalogue(english);
  assert.equal(formatMegabytes(8_840_000), "8.8 MB");
});

test("tParts puts elements where the message has their placeholders", () => {
  useCatalogue(english);
  const code = { nodeName: "CODE" };
  assert.deepEqual(tParts("cell.defined_above", { name: code, cell: 2 }), [code, " is defined in cell 2 above: run it first."]);
});

test("a worker's error made before the page's words came is told in them afterwards", () => {
  useCatalogue({ lang: "en", messages: {} }); // the worker, before the page's catalogue
  const inner = learnerError("download.packages", { packages: "matplotlib" });
  const outer = learnerError("download.package_failed", { name: "numpy", reason: inner });
  assert.equal(inner.message, "download.packages");
  useCatalogue(french);
  assert.equal(messageOf(inner), t("download.packages", { packages: "matplotlib" }));
  assert.equal(messageOf(outer), t("download.package_failed", { name: "numpy", reason: messageOf(inner) }));
  assert.equal(messageOf(new Error("plain")), "plain");
});
