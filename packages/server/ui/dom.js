// Every node is built here, and text only ever goes in as text nodes: no markup is parsed from data.

/**
 * Creates an element. `attrs`: properties and attributes (`on*` functions become listeners, `class`,
 * `for`, `aria-*`, `data-*` become attributes); children: nodes, strings (as text) or arrays of them.
 * @param {string} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class' || key === 'for' || key.includes('-') || key === 'role') {
      el.setAttribute(key, value === true ? '' : String(value));
    } else el[key] = value;
  }
  append(el, children);
  return el;
}

/** Appends children (nodes, or anything else as text). */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}
