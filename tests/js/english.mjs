// The English catalogue in use, as a page of an English course has it (strings.js reads the page's
// <script id="course-strings">; under Node there is none): the tests read the page's English words.
import { readFile } from "node:fs/promises";

const { useCatalogue } = await import("../../src/course_site/course_site/assets/js/strings.js");
const url = new URL("../../src/course_site/course_site/catalogues/en.json", import.meta.url);
useCatalogue({ lang: "en", messages: JSON.parse(await readFile(url, "utf8")) });
