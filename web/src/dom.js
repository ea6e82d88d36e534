// A few DOM helpers: the page builds its views from these, never from HTML strings, so no
// text from the server is ever parsed as markup.

const SVG = "http://www.w3.org/2000/svg";

/** An element with attributes (`on*` functions become listeners) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (name in el && typeof value !== "string") {
      el[name] = value;
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

/** The mark's shape, drawn (not a font glyph, not a colour): a cross or a ring. */
export function markShape(mark, className = "mark") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", `${className} mark-${mark}`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  if (mark === "X") {
    for (const d of ["M22 22L78 78", "M78 22L22 78"]) {
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("d", d);
      svg.append(path);
    }
  } else {
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", "50");
    circle.setAttribute("cy", "50");
    circle.setAttribute("r", "29");
    svg.append(circle);
  }
  return svg;
}

/** The bot's face, drawn like the marks (an emoji would be an empty box without a colour
 * emoji font). */
function botFace() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 40 40");
  svg.setAttribute("class", "bot-face");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const shapes = [["rect", { x: 9, y: 12, width: 22, height: 18, rx: 5 }],
    ["circle", { cx: 16, cy: 21, r: 2.6 }], ["circle", { cx: 24, cy: 21, r: 2.6 }],
    ["path", { d: "M20 12V7" }], ["circle", { cx: 20, cy: 6, r: 2 }]];
  for (const [tag, attrs] of shapes) {
    const el = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
    svg.append(el);
  }
  return svg;
}

/** A person's picture, or the first letter of their name on a disc when there is none. */
export function avatar(person) {
  if (person?.avatar) {
    return h("img", { class: "avatar", src: person.avatar, alt: "", width: 40, height: 40 });
  }
  if (person?.bot) return h("span", { class: "avatar avatar-bot", "aria-hidden": "true" }, botFace());
  const letter = Array.from((person?.name ?? "").trim())[0] ?? "";
  return h("span", { class: "avatar avatar-letter", "aria-hidden": "true" }, letter.toUpperCase());
}

/**
 * A status line from the server's parts: its words, each name kept whole (cut with an
 * ellipsis when it is wider than the line), and each mark drawn as the board draws it,
 * named for a screen reader by its letter.
 */
export function statusLine(parts, fallback) {
  if (!Array.isArray(parts)) return [fallback ?? ""];
  // A mark keeps the punctuation that touches it ("(X)", "X!") on its line: the words
  // next to it give up their touching ends to the mark's unbreakable span.
  const texts = parts.map((part) =>
    (part.mark || part.name !== undefined ? null : part.text ?? ""));
  const glued = parts.map((part, i) => {
    if (!part.mark) return null;
    const before = texts[i - 1]?.match(/\S+$/)?.[0] ?? "";
    const after = texts[i + 1]?.match(/^\S+/)?.[0] ?? "";
    if (before) texts[i - 1] = texts[i - 1].slice(0, -before.length);
    if (after) texts[i + 1] = texts[i + 1].slice(after.length);
    return [before, after];
  });
  return parts.map((part, i) => {
    if (part.mark) {
      const [before, after] = glued[i];
      return h("span", { class: "status-mark" }, before, markShape(part.mark, "inline-mark"),
        h("span", { class: "sr-only" }, part.mark), after);
    }
    if (part.name !== undefined) return h("span", { class: "name" }, part.name);
    return texts[i];
  });
}

/** Sets a text only when it changed, so live regions speak only about changes. */
export function setText(el, text) {
  const value = text ?? "";
  if (el.textContent !== value) el.textContent = value;
}

/**
 * Replaces a container's children, keeping the keyboard focus on the element that has
 * the same `data-key` in the new children (a re-render must not throw focus away).
 */
export function replaceKeepingFocus(container, children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.key : undefined;
  container.replaceChildren(...children.flat().filter(Boolean));
  if (key !== undefined) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}
