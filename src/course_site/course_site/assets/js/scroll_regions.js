/* Boxes that scroll sideways can be reached by keyboard (WCAG 2.1.1, axe's scrollable-region-focusable).
 *
 * Display math (.course-math) and Material's wrapper of wide tables scroll inside
 * themselves on a narrow screen. While such a box's content is wider than the box,
 * it gets tabindex="0", so Tab reaches it and the arrow keys scroll it; once the
 * content fits again it loses it, so a wide screen has no tab stop for nothing.
 * (Material does the same for its code blocks; a cell's editor and output are
 * focusable already.)
 */

const SCROLL_BOXES = ".course-math, .md-typeset__scrollwrap";
const MARK = "data-course-scroll-region"; // the tabindex is ours to take away again

function update(box) {
  const scrolls = box.scrollWidth > box.clientWidth + 1;
  if (scrolls && !box.hasAttribute("tabindex")) {
    box.setAttribute("tabindex", "0");
    box.setAttribute(MARK, "");
  } else if (!scrolls && box.hasAttribute(MARK)) {
    // A box that stops scrolling while it has focus (the math font arrived, the window widened) keeps
    // its tab stop until focus leaves it: a browser moves the focus of an element that can no longer
    // take it to <body>, and the learner's next Tab would start again from the top of the page.
    if (box === document.activeElement) {
      box.addEventListener("blur", () => update(box), { once: true });
      return;
    }
    box.removeAttribute("tabindex");
    box.removeAttribute(MARK);
  }
}

// The box resizes with the window; its content, when a font arrives: watch both.
const resizes = new ResizeObserver((entries) => {
  for (const { target } of entries) update(target.closest(SCROLL_BOXES));
});
const watched = new WeakSet();

/** Keep every scroll box under `root` focusable exactly while it scrolls (call again for new content). */
export function watchScrollBoxes(root = document) {
  for (const box of root.querySelectorAll(SCROLL_BOXES)) {
    if (watched.has(box)) continue;
    watched.add(box);
    resizes.observe(box);
    if (box.firstElementChild) resizes.observe(box.firstElementChild);
  }
}
