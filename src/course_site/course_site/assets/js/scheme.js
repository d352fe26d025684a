/* The page's colour scheme, as Material's palette sets it on <body data-md-color-scheme>:
 * "slate" (dark) or "default" (light). The worker draws a run's figures in it (figure_style.py). */
export function pageScheme() {
  return globalThis.document?.body?.getAttribute("data-md-color-scheme") === "slate" ? "slate" : "default";
}
