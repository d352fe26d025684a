/* The class names and attributes that the scripts and the build share (contract.json), for the
 * page's modules: `import names from "./dom_names.js"`.
 *
 * Read with fetch, not imported as a JSON module (`import … with { type: "json" }`): browsers
 * without JSON modules (Firefox before 138, Safari before 17.2) refuse such an import, and with
 * it every module of the page. */
const response = await fetch(new URL("./contract.json", import.meta.url));
if (!response.ok) throw new Error(`course: ${response.url}: HTTP ${response.status}`);
export default await response.json();
