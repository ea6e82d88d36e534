// What the page knows: the server's games and texts, and what this member is looking at.
// No rule of the game is here: the server says whose move it is, what may be pressed and
// what everything is called. The store only keeps the newest copy of each game.

/** True when `incoming` is at least as new as `held`: a later ply, or the same ply unless
 * it would bring an ended game back to running (a late copy from before a resignation). */
export function isNewer(held, incoming) {
  if (!held) return true;
  if (incoming.ply !== held.ply) return incoming.ply > held.ply;
  return !(held.running === false && incoming.running === true);
}

export class Store {
  constructor() {
    this.me = null; // {id, name, avatar}
    this.texts = {};
    this.games = []; // newest first, as the server lists them
    this.selected = null; // the id of the game shown, null for the list or the form
    this.hint = null; // {id, ply, text, parts, cells}
    this.review = null; // {id, steps, summary, index}
    this.participants = [];
    this.connection = "connecting"; // "connecting" | "live" | "reconnecting" | "stopped"
    this.retryMs = null; // reconnecting: the wait before the next try
    this.connectionReason = ""; // why the service closed the socket, in its words
    this.notice = ""; // a line from the server that something happened ("challenge sent")
    this.alert = ""; // a refusal's reason, or the server's word for a failure
    this.busy = false; // an intent is on its way
    this.puzzles = false; // the server plays puzzles (its `api/puzzles` answered)
    this.puzzle = null; // the member's puzzle attempt, as the server last sent it
    this.puzzleShown = false; // the puzzle's view is shown (over the games)
    this.puzzleToday = null; // today's daily: {number, kind, title}, null before #1
    this.myGames = null; // the member's games everywhere (`api/my-games`), in its order
    this.listeners = new Set();
  }

  subscribe(listener) {
    this.listeners.add(listener);
  }

  changed() {
    for (const listener of this.listeners) listener(this);
  }

  t(key) {
    return this.texts[key] ?? "";
  }

  game(id = this.selected) {
    return this.games.find((g) => g.id === id) ?? null;
  }

  get current() {
    return this.game();
  }

  /** The channel's games, from `GET api/games` or the socket's `games`: the whole truth.
   * `keepShown`: the game shown stays even if it left the list (the socket about to
   * connect sends how it ended). */
  setGames(games, keepShown = false) {
    const held = new Map(this.games.map((g) => [g.id, g]));
    const next = games.map((g) => (isNewer(held.get(g.id), g) ? g : held.get(g.id)));
    // A finished game stays on screen for its player (rematch, review); a game that left
    // the list while this copy still says it runs ended unseen, so it goes.
    const shown = this.current;
    if (shown && !next.some((g) => g.id === shown.id) && (!shown.running || keepShown)) {
      next.push(shown);
    }
    this.games = next;
    if (this.selected !== null && !this.current) this.selected = null;
    if (this.selected === null && next.length === 1) this.selected = next[0].id;
    this.forgetStale();
    this.changed();
  }

  /** One game, from an answer or the socket's `game`. */
  putGame(game) {
    const index = this.games.findIndex((g) => g.id === game.id);
    if (index >= 0) {
      if (!isNewer(this.games[index], game)) return;
      this.games[index] = game;
    } else {
      this.games.unshift(game);
      // A new game of yours (a rematch, an accepted challenge) is the one to show.
      const shown = this.current;
      if (game.you !== null && game.running && (!shown || !shown.running)) {
        this.select(game.id);
        return;
      }
      if (this.selected === null && this.games.length === 1) this.selected = game.id;
    }
    this.forgetStale();
    this.changed();
  }

  select(id) {
    this.selected = id;
    this.review = null;
    this.notice = "";
    this.forgetStale();
    this.changed();
  }

  /** A hint is for one ply of a running game; a review for the game shown. */
  forgetStale() {
    const hinted = this.hint && this.game(this.hint.id);
    if (this.hint && (!hinted?.running || hinted.ply !== this.hint.ply)) this.hint = null;
    if (this.review && this.review.id !== this.selected) this.review = null;
  }

  /** An attempt from an answer: a newer one (another id: a retry, a new puzzle) replaces
   * the one held; the same one only from its ply on (an answer that crossed a later one). */
  putPuzzle(puzzle, show = true) {
    const held = this.puzzle;
    if (!held || held.id !== puzzle.id || puzzle.ply >= held.ply) this.puzzle = puzzle;
    if (show) this.puzzleShown = true;
    this.changed();
  }

  set(fields) {
    Object.assign(this, fields);
    this.changed();
  }
}
