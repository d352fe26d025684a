/* Where the runner's files are, stated once for the worker, the build under Node (node/build_python.mjs)
 * and the bytecode compiler (compile_bytecode.mjs): in Pyodide's file system, and in the site,
 * relative to this folder (…/runner-<hash>/js/worker/).  The settings file: main.js (it is fetched
 * before any module loads) and, for the pages, site_layout.py. */

/** The folder on Pyodide's import path that the package course_kernel is written into. */
export const PYTHON_DIR = "/home/pyodide/.course";

/** sys.pycache_prefix: where the packages' pre-compiled bytecode is extracted. */
export const BYTECODE_PREFIX = "/course-pyc";

/** A file of the runner's Python (`course_kernel/cell_exec.py`), as the site publishes it. */
export function pythonURL(name) {
  return new URL(`../../py/${name}`, import.meta.url);
}
