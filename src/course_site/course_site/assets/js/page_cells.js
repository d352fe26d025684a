/* The page's cells, which share one Python namespace in page order (not the .ipynb export: notebook.py).
 *
 * A cell that needs an earlier one says so: after a NameError for a name that an
 * earlier cell defines (the build lists each cell's names in data-defines), and when
 * Python had to be restarted (the namespace is gone), its notice offers "Run the
 * cells above" (cell.js).  Exercises run on their own namespace and are left out.
 */

/** The name a NameError traceback says is not defined (its last such line), or null. */
export function undefinedName(traceback) {
  const found = [...String(traceback).matchAll(/^NameError: name '([^']+)' is not defined/gm)];
  return found.length ? found[found.length - 1][1] : null;
}

export class PageCells {
  /** @param {Array<{defines: Set<string>, isExercise: boolean, run(): void}>} cells in page order */
  constructor(cells) {
    this.cells = cells;
  }

  /** The cells above `cell` that share its namespace. */
  above(cell) {
    const at = this.cells.indexOf(cell);
    return (at < 0 ? [] : this.cells.slice(0, at)).filter((other) => !other.isExercise);
  }

  /** The nearest cell above `cell` whose code defines `name`, or null. */
  definer(cell, name) {
    return this.above(cell).reverse().find((other) => other.defines.has(name)) ?? null;
  }

  /** Queue the cells above `cell` in page order, then `cell` itself if `andThis`. */
  runAbove(cell, { andThis = false } = {}) {
    for (const other of this.above(cell)) other.run();
    if (andThis) cell.run();
  }
}
