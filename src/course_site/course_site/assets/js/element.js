/* A DOM element in one call: el("button", {class, text, type, …}, ...children).  `text` sets the
 * text content (never HTML); true gives an empty attribute, false or null none. */
export function el(name, attrs = {}, ...children) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children);
  return node;
}
