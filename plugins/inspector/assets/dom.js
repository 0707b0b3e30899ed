// DOM helpers of the inspector page. Every string that comes from the
// server (agent output above all, which whoever steers an agent controls)
// goes into the page as text — textContent, text nodes, dataset values —
// and never as markup.

export const byId = (id) => document.getElementById(id);

/** A new element: `text` becomes its textContent, `cls` its class, `data` its data-* values. */
export function el(tag, { cls, text, data } = {}, children = []) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (data) for (const [key, value] of Object.entries(data)) node.dataset[key] = String(value);
  node.append(...children);
  return node;
}

/** A table row of text cells. */
export function row(cells, { cls, data } = {}) {
  return el('tr', { cls, data }, cells.map((cell) => el('td', { text: cell ?? '' })));
}

/** Puts `rows` into a table body, or one row saying `empty`. */
export function fillTable(tbody, rows, empty) {
  if (rows.length) return tbody.replaceChildren(...rows);
  const cell = el('td', { cls: 'empty', text: empty });
  cell.colSpan = tbody.parentElement.querySelectorAll('th').length || 1;
  tbody.replaceChildren(el('tr', {}, [cell]));
}

/** A note line: its text and a class saying how it reads (`error`, or none). */
export function note(node, text, kind = '') {
  node.textContent = text;
  node.className = kind ? `note ${kind}` : 'note';
}

/** Seconds since the epoch as a local time of day. */
export function clock(seconds) {
  if (typeof seconds !== 'number') return '';
  return new Date(seconds * 1000).toLocaleTimeString();
}
