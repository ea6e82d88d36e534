// The board: a grid of real buttons named by the server's labels ("B2, empty", "board B2,
// square A1, empty"). Arrow keys move the focus across it (one cell is in the tab order),
// Enter and Space press the focused cell as any button does. The buttons are kept between
// updates, so the focus and a screen reader's place stay where they were when the server
// sends a new position.
//
// A board made of small boards (ultimate: each cell names its `board` and `square`) is drawn
// as those boards in a grid, set apart, each under a layer that shows what the server says
// of it: to be played in, won (one big mark), full, or part of the winning line.
import { h, markShape } from "./dom.js";

const KEYS = {
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
};

/** Where a cell is drawn, `[row, col]`: row-major, or by its small board and square. */
function place(cell, index, size) {
  if (cell.board === undefined) return [Math.floor(index / size), index % size];
  const side = Math.round(Math.sqrt(size)); // small boards per side, squares per side
  return [Math.floor(cell.board / side) * side + Math.floor(cell.square / side),
    (cell.board % side) * side + (cell.square % side)];
}

export class BoardView {
  /** @param {(cell: number) => void} onPress */
  constructor(onPress) {
    this.onPress = onPress;
    this.shape = "";
    this.size = 0;
    this.buttons = []; // by cell number
    this.at = []; // the cell number drawn at row * size + col
    this.where = []; // [row, col] by cell number
    this.regions = []; // one layer per small board
    this.marks = [];
    this.focusIndex = 0;
    this.el = h("div", { class: "board", role: "grid", onKeydown: (e) => this.key(e) });
  }

  /**
   * @param {{size: number, cells: Array<{mark: string|null, label?: string, win?: boolean,
   *   board?: number, square?: number}>, playable: (cell: object) => boolean,
   *   highlight: Set<number>, describedBy: string|null, label: string, last?: number|null,
   *   regions?: {statuses: Array<string|null>, playable: number[], winning: number[]}|null}} view
   */
  update(view) {
    const split = view.cells[0]?.board !== undefined;
    const shape = `${view.size}:${split}:${view.cells.length}`;
    if (shape !== this.shape) this.build(view.size, view.cells, split, shape);
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
      button.classList.toggle("last", view.last === i);
      const lit = view.highlight.has(i);
      button.classList.toggle("lit", lit);
      if (lit && view.describedBy) button.setAttribute("aria-describedby", view.describedBy);
      else button.removeAttribute("aria-describedby");
    });
    this.showRegions(view.regions ?? null);
  }

  showRegions(regions) {
    this.regions.forEach((layer, b) => {
      const status = regions?.statuses?.[b] ?? null;
      const won = status === "X" || status === "O";
      if (layer.dataset.status !== String(status)) {
        layer.dataset.status = String(status);
        layer.replaceChildren(...(won ? [markShape(status, "big-mark")] : []));
      }
      layer.classList.toggle("won", won);
      layer.classList.toggle("full", status === "draw");
      layer.classList.toggle("open", Boolean(regions?.playable?.includes(b)));
      layer.classList.toggle("win", Boolean(regions?.winning?.includes(b)));
      for (const button of this.buttons.slice(b * 9, b * 9 + 9)) {
        button.classList.toggle("in-open", layer.classList.contains("open"));
        button.classList.toggle("decided", status !== null);
      }
    });
  }

  build(size, cells, split, shape) {
    this.shape = shape;
    this.size = size;
    this.marks = [];
    this.focusIndex = Math.min(this.focusIndex, cells.length - 1);
    this.el.style.setProperty("--size", String(size));
    this.el.dataset.size = String(size);
    this.el.classList.toggle("split", split);
    this.buttons = [];
    this.at = [];
    this.where = cells.map((cell, i) => place(cell, i, size));
    this.where.forEach(([r, c], i) => { this.at[r * size + c] = i; });
    const rows = [];
    for (let r = 0; r < size; r += 1) {
      const gridcells = [];
      for (let c = 0; c < size; c += 1) {
        const index = this.at[r * size + c];
        const button = h("button", {
          type: "button",
          class: "cell",
          tabindex: index === this.focusIndex ? "0" : "-1",
          dataset: { key: `cell-${index}`, cell: String(index) },
          onClick: () => this.press(index),
          onFocus: () => this.focusOn(index, false),
        });
        this.buttons[index] = button;
        const gridcell = h("div", { role: "gridcell", class: "gridcell" }, button);
        if (split) {
          // Tracks 4 and 8 are the gaps between small boards (app.css).
          gridcell.style.gridRow = String(r + 1 + Math.floor(r / 3));
          gridcell.style.gridColumn = String(c + 1 + Math.floor(c / 3));
        }
        gridcells.push(gridcell);
      }
      rows.push(h("div", { role: "row", class: "row" }, gridcells));
    }
    this.regions = [];
    if (split) {
      for (let b = 0; b < cells.length / 9; b += 1) {
        const layer = h("div", { class: "region", "aria-hidden": "true" });
        layer.style.gridRow = `${Math.floor(b / 3) * 4 + 1} / span 3`;
        layer.style.gridColumn = `${(b % 3) * 4 + 1} / span 3`;
        this.regions.push(layer);
      }
    }
    this.el.replaceChildren(...rows, ...this.regions);
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
    let [row, col] = this.where[index];
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
    this.focusOn(this.at[row * size + col]);
  }
}
