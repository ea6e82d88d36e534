// One game: the players and their marks, whose move it is and the clock, the board, and
// what this member may press (the server's `actions`). A spectator sees all of it and
// presses nothing. During a review the board shows the reviewed step instead.
import { BoardView } from "./board.js";
import { avatar, h, markShape, replaceKeepingFocus, setText, statusLine } from "./dom.js";

/** Seconds left as m:ss (h:mm:ss past an hour). */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** Shows a text from its parts (marks drawn), replacing it only when it changed: the
 * element is a live region. */
function showParts(el, parts, text) {
  const key = JSON.stringify([parts ?? null, text]);
  if (el.dataset.parts === key) return;
  el.dataset.parts = key;
  el.replaceChildren(...statusLine(parts, text));
}

/** A review step's cells: Game-like `{mark, label}` objects, or plain marks. */
function stepCells(step) {
  return (step.cells ?? []).map((cell) =>
    cell !== null && typeof cell === "object" ? cell : { mark: cell ?? null },
  );
}

export class GameView {
  /** @param {{play, act, back, step}} intents */
  constructor(intents) {
    this.intents = intents;
    this.board = new BoardView((cell) => intents.play(cell));
    this.back = h("button", { type: "button", class: "back", dataset: { key: "back" },
      onClick: () => intents.back() });
    this.players = h("ul", { class: "players" });
    this.status = h("p", { class: "status", "aria-live": "polite" });
    // Where the side to move may play (ultimate), said when it changes.
    this.where = h("p", { class: "where", "aria-live": "polite" });
    // A correspondence game's pace, as the server words it (none for a live game).
    this.pace = h("p", { class: "pace" });
    this.yourTurn = h("span", { class: "your-turn" });
    this.clockLabel = h("span", { class: "clock-label" });
    this.clockTime = h("time", { class: "clock-time" });
    this.clock = h("span", { class: "clock", role: "timer" }, this.clockLabel, " ", this.clockTime);
    this.spectating = h("p", { class: "spectating" });
    this.hint = h("p", { class: "hint", id: "hint-text", "aria-live": "polite" });
    this.rulesTitle = h("summary", {});
    this.rulesList = h("ul", { class: "rules-list" });
    this.rules = h("details", { class: "rules" }, this.rulesTitle, this.rulesList);
    // The review's parts stay in place, so a screen reader hears each step's text.
    this.reviewText = h("p", { class: "review-text", id: "review-text", "aria-live": "polite" });
    this.prev = h("button", { type: "button", class: "prev", dataset: { key: "review-prev" },
      onClick: () => intents.step(-1) });
    this.next = h("button", { type: "button", class: "next", dataset: { key: "review-next" },
      onClick: () => intents.step(1) });
    this.reviewCount = h("span", { class: "review-count" });
    this.reviewSummary = h("p", { class: "review-summary" });
    this.review = h("div", { class: "review" }, this.reviewText,
      h("div", { class: "review-steps" }, this.prev, this.reviewCount, this.next),
      this.reviewSummary);
    this.actions = h("div", { class: "actions" });
    this.turnLine = h("p", { class: "turn-line" }, this.yourTurn, this.clock);
    // In reading order (who plays, the state, the board, what to press); a wide screen
    // puts the board in a column of its own (app.css), without changing this order.
    this.el = h("section", { class: "game" },
      h("nav", { class: "game-nav" }, this.back),
      h("div", { class: "game-layout" }, this.players, this.status, this.turnLine,
        this.pace, this.where, this.spectating, h("div", { class: "board-area" }, this.board.el),
        this.hint, this.review, this.actions, this.rules));
    this.deadline = null;
    setInterval(() => this.tick(), 250);
  }

  /** @param {import("./store.js").Store} store */
  update(store) {
    const game = store.current;
    if (!game) return;
    const t = (key) => store.t(key);
    const review = store.review?.id === game.id ? store.review : null;
    const hint = store.hint?.id === game.id && store.hint.ply === game.ply ? store.hint : null;

    setText(this.back, `\u2039 ${t("back")}`);
    // Back to the list, or to the puzzles (which live on the home view).
    this.back.hidden = !(store.games.length > 1 || !game.running || store.puzzles);

    replaceKeepingFocus(this.players, ["X", "O"].map((mark) => this.player(game, mark)));
    // Replaced only when it changed: the line is a live region.
    const line = JSON.stringify([game.status_parts, game.status]);
    if (this.status.dataset.line !== line) {
      this.status.dataset.line = line;
      this.status.replaceChildren(...statusLine(game.status_parts, game.status));
    }
    setText(this.yourTurn, game.can_move ? t("your_turn") : "");
    this.yourTurn.hidden = !game.can_move;
    this.deadline = game.running && game.deadline ? game.deadline : null;
    this.clock.hidden = this.deadline === null;
    this.turnLine.hidden = this.clock.hidden && this.yourTurn.hidden;
    setText(this.clockLabel, t("clock"));
    this.tick();
    setText(this.spectating, game.you === null ? t("spectating") : "");
    this.spectating.hidden = game.you !== null;
    setText(this.pace, game.pace ?? "");
    this.pace.hidden = !game.pace;
    setText(this.where, game.where ?? "");
    this.where.hidden = !game.where;
    showParts(this.hint, hint?.parts, hint ? hint.text : "");
    this.hint.hidden = !hint;
    const rules = t(`rules.${game.variant}`);
    setText(this.rulesTitle, t("rules"));
    if (this.rulesList.dataset.text !== rules) {
      this.rulesList.dataset.text = rules;
      this.rulesList.replaceChildren(...rules.split("\n").filter(Boolean)
        .map((line) => h("li", {}, line)));
    }
    this.rules.hidden = !rules;

    let highlight = new Set(hint ? hint.cells : []);
    if (review) {
      const step = review.steps[review.index];
      this.board.update({ size: game.size, cells: stepCells(step ?? {}), label: t("review"),
        playable: () => false, highlight: new Set(step?.best ?? []), describedBy: "review-text",
        last: step?.last_move ?? null, regions: step?.board_statuses ? {
          statuses: step.board_statuses, playable: [], winning: step.winning_boards ?? [] }
          : null });
      highlight = null;
    } else {
      // The server says which squares may be played (`legal`); an older answer without
      // it means every empty one.
      this.board.update({ size: game.size, cells: game.cells, label: t("title"),
        playable: (cell) => game.can_move && !store.busy && (cell.legal ?? cell.mark === null),
        highlight, describedBy: hint ? "hint-text" : null, last: game.last_move ?? null,
        regions: game.board_statuses ? { statuses: game.board_statuses,
          playable: game.playable_boards ?? [], winning: game.winning_boards ?? [] } : null });
    }
    this.board.el.classList.toggle("reviewing", Boolean(review));

    this.review.hidden = !review;
    if (review) this.showReview(review, t);
    replaceKeepingFocus(this.actions, game.actions.map((action) =>
      h("button", { type: "button", class: `action action-${action}`,
        dataset: { key: `action-${action}` }, "aria-disabled": String(store.busy),
        "aria-pressed": action === "review" ? String(Boolean(review)) : null,
        onClick: () => this.intents.act(action) }, t(action))));
  }

  player(game, mark) {
    const person = game.players?.[mark] ?? { name: "" };
    const turn = game.running && game.to_move === mark;
    return h("li", { class: `player${turn ? " turn" : ""}${game.you === mark ? " you" : ""}`,
      "aria-current": turn ? "true" : null },
      h("span", { class: "turn-arrow", "aria-hidden": "true" }),
      avatar(person),
      h("span", { class: "player-name name" }, person.name),
      markShape(mark, "player-mark"),
      h("span", { class: "sr-only" }, mark));
  }

  showReview(review, t) {
    const step = review.steps[review.index] ?? {};
    showParts(this.reviewText, step.parts, step.text ?? "");
    setText(this.prev, `\u2039 ${t("prev")}`);
    setText(this.next, `${t("next")} \u203A`);
    this.prev.setAttribute("aria-disabled", String(review.index <= 0));
    this.next.setAttribute("aria-disabled", String(review.index >= review.steps.length - 1));
    setText(this.reviewCount, `${review.index + 1} / ${review.steps.length}`);
    setText(this.reviewSummary, review.summary);
    this.reviewSummary.hidden = !review.summary;
  }

  tick() {
    if (this.deadline === null) return;
    const left = this.deadline - Date.now() / 1000;
    setText(this.clockTime, clockText(left));
    this.clock.classList.toggle("urgent", left <= 10);
  }
}
