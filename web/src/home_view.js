// What shows when no game is chosen: the channel's games to pick from, or, when none
// runs, a form to start one against the bot or to challenge someone in the Activity; and
// the puzzles: today's, training on a board, or the member's open attempt to go on with.
import { participantAvatar } from "./discord.js";
import { avatar, h, markShape, replaceKeepingFocus, statusLine } from "./dom.js";
import { myGames } from "./my_games.js";

/** The choices the server offers, in its order: keys `difficulty.easy`, `size.3`, … */
function choices(texts, group) {
  return Object.keys(texts)
    .filter((key) => key.startsWith(`${group}.`))
    .map((key) => ({ value: key.slice(group.length + 1), label: texts[key] }));
}

export class HomeView {
  /** @param {{pick, start, challenge, puzzleStart, puzzleOpen}} intents */
  constructor(intents) {
    this.intents = intents;
    this.choice = { difficulty: null, size: null, puzzleBoard: "any" };
    this.el = h("section", { class: "home" });
  }

  /** @param {import("./store.js").Store} store */
  update(store) {
    const t = (key) => store.t(key);
    const content = store.games.length ? this.picker(store, t) : this.form(store, t);
    replaceKeepingFocus(this.el, [...content, myGames(store, this.intents.pick),
      store.puzzles ? this.puzzles(store, t) : null]);
  }

  picker(store, t) {
    return [
      h("h2", { class: "home-title" }, t("pick")),
      h("ul", { class: "picker" }, store.games.map((game) =>
        h("li", {},
          h("button", { type: "button", class: `pick${game.can_move ? " pick-yours" : ""}`,
            dataset: { key: `pick-${game.id}` }, onClick: () => this.intents.pick(game.id) },
            h("span", { class: "pick-players" }, ["X", "O"].map((mark) =>
              h("span", { class: "pick-player" }, markShape(mark, "player-mark"),
                avatar(game.players?.[mark]),
                h("span", { class: "name" }, game.players?.[mark]?.name ?? "")))),
            h("span", { class: "pick-status" }, statusLine(game.status_parts, game.status)),
            h("span", { class: "pick-size" }, game.shape ?? t(`size.${game.size}`)),
            game.can_move ? h("span", { class: "your-turn" }, t("your_turn")) : null)))),
    ];
  }

  /** Today's puzzle, training on a chosen board, and the attempt open (from the chat, or
   * left here) to go on with. */
  puzzles(store, t) {
    const boards = choices(store.texts, "puzzle.board");
    const open = store.puzzle?.running ? store.puzzle : null;
    const busy = String(store.busy);
    return h("fieldset", { class: "group puzzles" }, h("legend", {}, t("puzzle.title")),
      open
        ? h("button", { type: "button", class: "pick pick-yours puzzle-open",
          dataset: { key: "puzzle-continue" }, onClick: () => this.intents.puzzleOpen() },
          h("span", { class: "pick-players" }, t("puzzle.continue")),
          h("span", { class: "pick-status" }, statusLine(open.goal_parts, open.goal)),
          h("span", { class: "pick-size" }, open.title ?? ""))
        : null,
      store.puzzleToday
        ? h("button", { type: "button", class: "primary puzzle-daily",
          dataset: { key: "puzzle-daily" }, "aria-disabled": busy,
          onClick: () => this.intents.puzzleStart({ mode: "daily" }) },
          h("span", { class: "puzzle-daily-label" }, t("puzzle.daily")),
          h("span", { class: "puzzle-daily-title" }, store.puzzleToday.title))
        : null,
      h("form", { class: "puzzle-train", onSubmit: (e) => {
        e.preventDefault();
        this.intents.puzzleStart({ mode: "training", board: this.choice.puzzleBoard });
      } },
        h("label", { class: "field" }, h("span", { class: "field-label" }, t("puzzle.board")),
          h("select", { class: "select", name: "puzzle-board", dataset: { key: "select-puzzle-board" },
            onChange: (e) => { this.choice.puzzleBoard = e.target.value; } },
            boards.map((o) => h("option", { value: o.value,
              selected: o.value === this.choice.puzzleBoard }, o.label)))),
        h("button", { type: "submit", dataset: { key: "puzzle-train" }, "aria-disabled": busy },
          t("puzzle.train"))));
  }

  form(store, t) {
    const difficulties = choices(store.texts, "difficulty");
    // The boards: the classic sizes, then the other games (`variant.ultimate`).
    const sizes = [...choices(store.texts, "size"), ...choices(store.texts, "variant")];
    this.choice.difficulty ??= difficulties.find((d) => d.value === "medium")?.value
      ?? difficulties[0]?.value;
    this.choice.size ??= sizes[0]?.value ?? "3";
    const select = (name, options) =>
      h("select", { class: "select", name, dataset: { key: `select-${name}` },
        onChange: (e) => { this.choice[name] = e.target.value; } },
        options.map((o) => h("option", { value: o.value, selected: o.value === this.choice[name] },
          o.label)));
    const others = store.participants.filter((p) => !p.bot && p.id !== store.me?.id);
    const board = () => (/^\d+$/.test(this.choice.size)
      ? { size: Number(this.choice.size) } : { variant: this.choice.size });
    return [
      h("h2", { class: "home-title" }, t("none")),
      h("label", { class: "field" }, h("span", { class: "field-label" }, t("size")),
        select("size", sizes)),
      h("form", { class: "start", onSubmit: (e) => {
        e.preventDefault();
        this.intents.start({ difficulty: this.choice.difficulty, ...board() });
      } },
        h("fieldset", { class: "group" }, h("legend", {}, t("start_bot")),
          h("label", { class: "field" }, h("span", { class: "field-label" }, t("difficulty")),
            select("difficulty", difficulties)),
          h("button", { type: "submit", class: "primary", dataset: { key: "start-bot" },
            "aria-disabled": String(store.busy) }, t("start_bot")))),
      others.length
        ? h("fieldset", { class: "group challenge" }, h("legend", {}, t("challenge")),
          h("ul", { class: "people" }, others.map((person) => {
            const name = person.nickname || person.global_name || person.username;
            return h("li", {}, h("button", { type: "button", class: "person",
              dataset: { key: `challenge-${person.id}` }, "aria-disabled": String(store.busy),
              onClick: () => this.intents.challenge(person.id, board()) },
              avatar({ name, avatar: participantAvatar(person) }),
              h("span", { class: "name" }, name)));
          })))
        : null,
    ];
  }
}
