// A puzzle: its title, "X to move: win in N", the board (the game's board component), what
// the last move did (the defender's reply, or the end), and once it is over the solution,
// the rating's change and the streak, with Retry. The server judges and words everything;
// this view draws the attempt it sends and sends the cell pressed with the attempt's ply.
import { BoardView } from "./board.js";
import { h, replaceKeepingFocus, setText, statusLine } from "./dom.js";

/** Shows a line from its parts (marks drawn), replacing it only when it changed: some of
 * these elements are live regions. */
function showLine(el, parts, text) {
  const key = JSON.stringify([parts ?? null, text ?? null]);
  if (el.dataset.line === key) return;
  el.dataset.line = key;
  el.replaceChildren(...(text ? statusLine(parts, text) : []));
  el.hidden = !text;
}

export class PuzzleView {
  /** @param {{puzzleMove, puzzleRetry, puzzleBack}} intents */
  constructor(intents) {
    this.intents = intents;
    this.board = new BoardView((cell) => intents.puzzleMove(cell));
    this.back = h("button", { type: "button", class: "back", dataset: { key: "puzzle-back" },
      onClick: () => intents.puzzleBack() });
    this.title = h("h2", { class: "puzzle-title" });
    this.tag = h("span", { class: "puzzle-tag" });
    this.goal = h("p", { class: "status puzzle-goal", "aria-live": "polite" });
    this.where = h("p", { class: "where", "aria-live": "polite" });
    this.line = h("p", { class: "puzzle-line", id: "puzzle-line", "aria-live": "polite" });
    this.solution = h("p", { class: "puzzle-solution" });
    this.record = h("p", { class: "puzzle-record" });
    this.actions = h("div", { class: "actions" });
    // In reading order, as a game's view: a wide screen puts the board in its own column.
    this.el = h("section", { class: "puzzle" },
      h("nav", { class: "game-nav" }, this.back),
      h("div", { class: "game-layout" },
        h("div", { class: "puzzle-head" }, this.title, this.tag), this.goal, this.where,
        h("div", { class: "board-area" }, this.board.el),
        this.line, this.solution, this.record, this.actions));
  }

  /** @param {import("./store.js").Store} store */
  update(store) {
    const puzzle = store.puzzle;
    if (!puzzle) return;
    const t = (key) => store.t(key);
    setText(this.back, `\u2039 ${t("puzzle.back")}`);
    setText(this.title, puzzle.title ?? "");
    setText(this.tag, puzzle.rated ? "" : t("puzzle.unrated"));
    this.tag.hidden = puzzle.rated;
    this.el.dataset.status = puzzle.status;
    showLine(this.goal, puzzle.goal_parts, puzzle.goal);
    setText(this.where, puzzle.where ?? "");
    this.where.hidden = !puzzle.where;
    this.board.update({ size: puzzle.size, cells: puzzle.cells, label: puzzle.title ?? "",
      playable: (cell) => puzzle.can_move && !store.busy && (cell.legal ?? cell.mark === null),
      highlight: new Set(), describedBy: null, last: puzzle.last_move ?? null,
      regions: puzzle.board_statuses ? { statuses: puzzle.board_statuses,
        playable: puzzle.playable_boards ?? [], winning: puzzle.winning_boards ?? [] } : null });
    this.board.el.dataset.status = puzzle.status;
    showLine(this.line, puzzle.line_parts, puzzle.line);
    this.line.dataset.outcome = puzzle.outcome ?? "";
    showLine(this.solution, puzzle.solution_text_parts, puzzle.solution_text);
    setText(this.record, puzzle.record ?? "");
    this.record.hidden = !puzzle.record;
    replaceKeepingFocus(this.actions, (puzzle.actions ?? []).map((action) =>
      h("button", { type: "button", class: `action action-${action}`,
        dataset: { key: `puzzle-${action}` }, "aria-disabled": String(store.busy),
        onClick: () => this.intents.puzzleRetry() }, t(`puzzle.${action}`))));
  }
}
