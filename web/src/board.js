// The board: a grid of real buttons named by the server's labels ("B2, empty"). Arrow keys
// move the focus across it (one cell is in the tab order), Enter and Space press the
// focused cell as any button does. The buttons are kept between updates, so the focus and
// a screen reader's place stay where they were when the server sends a new position.
import { h, markShape } from "./dom.js";

const KEYS = {
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
};

export class BoardView {
  /** @param {(cell: number) => void} onPress */
  constructor(onPress) {
    this.onPress = onPress;
    this.size = 0;
    this.buttons = [];
    this.marks = [];
    this.focusIndex = 0;
    this.el = h("div", { class: "board", role: "grid", onKeydown: (e) => this.key(e) });
  }

  /**
   * @param {{size: number, cells: Array<{mark: string|null, label?: string, win?: boolean}>,
   *   playable: (cell: object) => boolean, highlight: Set<number>, describedBy: string|null,
   *   label: string}} view
   */
  update(view) {
    if (view.size !== this.size) this.build(view.size);
    this.el.setAttribute("aria-label", view.label);
    view.cells.forEach((cell, i) => {
      const button = this.buttons[i];
      if (!button) return;
      const mark = cell.mark ?? null;
      if (this.marks[i] !== mark) {
        this.marks[i] = mark;
        button.replaceChildren(...(mark ? [markShape(mark)] : []));
      }
      if (cell.label) button.setAttribute("aria-label", cell.label);
      else button.removeAttribute("aria-label");
      const playable = view.playable(cell);
      button.setAttribute("aria-disabled", String(!playable));
      button.classList.toggle("playable", playable);
      button.classList.toggle("win", Boolean(cell.win));
      const lit = view.highlight.has(i);
      button.classList.toggle("lit", lit);
      if (lit && view.describedBy) button.setAttribute("aria-describedby", view.describedBy);
      else button.removeAttribute("aria-describedby");
    });
  }

  build(size) {
    this.size = size;
    this.marks = [];
    this.focusIndex = Math.min(this.focusIndex, size * size - 1);
    this.el.style.setProperty("--size", String(size));
    this.el.dataset.size = String(size);
    this.buttons = [];
    const rows = [];
    for (let r = 0; r < size; r += 1) {
      const cells = [];
      for (let c = 0; c < size; c += 1) {
        const index = r * size + c;
        const button = h("button", {
          type: "button",
          class: "cell",
          tabindex: index === this.focusIndex ? "0" : "-1",
          dataset: { key: `cell-${index}`, cell: String(index) },
          onClick: () => this.press(index),
          onFocus: () => this.focusOn(index, false),
        });
        this.buttons.push(button);
        cells.push(h("div", { role: "gridcell", class: "gridcell" }, button));
      }
      rows.push(h("div", { role: "row", class: "row" }, cells));
    }
    this.el.replaceChildren(...rows);
  }

  press(index) {
    if (this.buttons[index]?.getAttribute("aria-disabled") === "true") return;
    this.onPress(index);
  }

  focusOn(index, move = true) {
    this.buttons[this.focusIndex]?.setAttribute("tabindex", "-1");
    this.focusIndex = index;
    const button = this.buttons[index];
    button.setAttribute("tabindex", "0");
    if (move) button.focus();
  }

  key(event) {
    const index = this.buttons.indexOf(document.activeElement);
    if (index < 0) return;
    const size = this.size;
    let row = Math.floor(index / size);
    let col = index % size;
    if (event.key in KEYS) {
      const [dr, dc] = KEYS[event.key];
      row = Math.min(size - 1, Math.max(0, row + dr));
      col = Math.min(size - 1, Math.max(0, col + dc));
    } else if (event.key === "Home") {
      if (event.ctrlKey) row = 0;
      col = 0;
    } else if (event.key === "End") {
      if (event.ctrlKey) row = size - 1;
      col = size - 1;
    } else {
      return;
    }
    event.preventDefault();
    this.focusOn(row * size + col);
  }
}
