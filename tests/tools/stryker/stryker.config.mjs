// StrykerJS for `make mutation-js`, which runs it once per module of modules.mjs, from the repository's
// root, with COURSE_JS_MODULE=<name>: that module mutated alone and checked by its own Node tests
// (tests/js/), with Stryker's command runner (`node --test`), one test process at a time.
const JS = "src/course_site/course_site/assets/js";

import { MODULES } from "./modules.mjs";

const name = process.env.COURSE_JS_MODULE;
if (!(name in MODULES)) throw new Error(`COURSE_JS_MODULE=${name}: expected one of ${Object.keys(MODULES).join(", ")}`);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "command",
  commandRunner: { command: `node --test ${MODULES[name].tests.map((test) => `tests/js/${test}.test.mjs`).join(" ")}` },
  mutate: [`${JS}/${MODULES[name].file}`],
  coverageAnalysis: "off",
  concurrency: 1,
  reporters: ["json", "clear-text"],
  jsonReporter: { fileName: `.cache/stryker/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: false },
  tempDirName: ".cache/stryker/tmp",
  // The sandbox gets the browser code, its tests and the files they read only (gitignore patterns:
  // each folder on the way is let in, its other entries left out).
  ignorePatterns: [
    "/*", "!/src", "!/tests", "!/pyodide_assets", "!/docs",
    "/src/*", "!/src/course_site",
    "/src/course_site/*", "!/src/course_site/course_site",
    "/src/course_site/course_site/*", "!/src/course_site/course_site/assets",
    "/tests/*", "!/tests/js",
    "/pyodide_assets/*", "!/pyodide_assets/manifest.json",
    "/docs/*", "!/docs/authors.md",
  ],
  disableTypeChecks: false,
  warnings: { slow: false },
};
