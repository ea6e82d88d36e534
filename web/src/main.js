// The Activity's page: signs in through the Discord client, shows the channel's games as
// the server describes them and sends the member's intents. The server decides and words
// everything; the only text here is the fallback for a page that could not load at all.
import "./app.css";
import { Api, ApiError } from "./api.js";
import { DiscordSession } from "./discord.js";
import { setText } from "./dom.js";
import { GameView } from "./game_view.js";
import { HomeView } from "./home_view.js";
import { LiveSocket } from "./live.js";
import { PuzzleView } from "./puzzle_view.js";
import { Store } from "./store.js";

const FALLBACK = "The game could not load. Close the Activity and start it again.";

const api = new Api();
const discord = new DiscordSession(api);
const store = new Store();
const $ = (id) => document.getElementById(id);

/** Runs an intent; shows the server's reason when it is refused. A lapsed session
 * (401) is renewed through the Discord client and the intent sent once more. */
async function send(intent, retried = false) {
  if (store.busy) return;
  store.set({ busy: true, alert: "", notice: "" });
  let again = false;
  try {
    await intent();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !retried) {
      again = await discord.signIn().then(() => true, () => false);
    }
    if (!again) {
      if (error?.body?.game) store.putGame(error.body.game); // 409 stale: the stored game
      if (error?.body?.puzzle) store.putPuzzle(error.body.puzzle); // played elsewhere first
      const reason = error instanceof ApiError && error.status < 500 ? error.reason : null;
      store.alert = reason || store.t("error");
    }
  } finally {
    store.set({ busy: false });
  }
  if (again) await send(intent, true);
}

/** A game (with a notice when the chat cannot show it), or a challenge posted there. */
function started(answer) {
  if (answer?.game) store.putGame(answer.game);
  if (answer?.notice) store.set({ notice: answer.notice });
  else if (answer?.challenge) store.set({ notice: store.t("challenge_sent") });
}

/** "My games" again (the home view shows it): a read, as the channel's games are. */
async function refreshMyGames() {
  try {
    const answer = await api.get("api/my-games");
    store.texts = { ...store.texts, ...(answer?.texts ?? {}) };
    store.set({ myGames: answer?.entries ?? [] });
  } catch {
    // a process without it, or a failed read: the home view shows the channel alone
  }
}

/** The page's courtesy actions, each the server's name for it. */
const COURTESY = { more_time: "time", offer_draw: "offer", accept_draw: "accept" };

const intents = {
  pick: (id) => store.select(id),
  back: () => {
    store.select(null);
    refreshMyGames();
  },
  play: (cell) => {
    const game = store.current;
    if (!game?.can_move || store.review) return;
    send(async () => {
      const answer = await api.post(`api/games/${game.id}/move`, { ply: game.ply, cell });
      store.putGame(answer.game);
    });
  },
  act: (action) => {
    const game = store.current;
    if (!game) return;
    if (action === "review") return toggleReview(game);
    send(async () => {
      if (action === "hint") {
        const hint = await api.post(`api/games/${game.id}/hint`, { ply: game.ply });
        store.set({ hint: { id: game.id, ply: game.ply, text: hint.text, parts: hint.parts,
          cells: hint.cells ?? [] } });
      } else if (action === "resign") {
        store.putGame((await api.post(`api/games/${game.id}/resign`)).game);
      } else if (action === "rematch") {
        started(await api.post(`api/games/${game.id}/rematch`));
      } else if (action in COURTESY) {
        // a correspondence game's more time or draw, as the chat's Options make them
        const answer = await api.post(`api/games/${game.id}/courtesy`,
          { ply: game.ply, action: COURTESY[action] });
        store.putGame(answer.game);
        store.set({ notice: answer.notice ?? "" });
      }
    });
  },
  step: (delta) => {
    const review = store.review;
    if (!review) return;
    const index = Math.min(review.steps.length - 1, Math.max(0, review.index + delta));
    store.set({ review: { ...review, index } });
  },
  start: (choice) => send(async () => started(await api.post("api/games", choice))),
  challenge: (opponentId, board) =>
    send(async () => started(await api.post("api/games", { opponent_id: opponentId, ...board }))),
  // Puzzles: the same attempt as the chat's /ttt puzzle (the server keeps it).
  puzzleStart: (choice) =>
    send(async () => store.putPuzzle((await api.post("api/puzzles", choice)).puzzle)),
  puzzleOpen: () => store.set({ puzzleShown: true, notice: "" }),
  puzzleBack: () => store.set({ puzzleShown: false, notice: "" }),
  puzzleMove: (cell) => {
    const puzzle = store.puzzle;
    if (!puzzle?.can_move) return;
    send(async () => {
      const answer = await api.post(`api/puzzles/${puzzle.id}/move`, { ply: puzzle.ply, cell });
      store.putPuzzle(answer.puzzle);
    });
  },
  puzzleRetry: () => {
    const puzzle = store.puzzle;
    if (!puzzle) return;
    send(async () => store.putPuzzle((await api.post(`api/puzzles/${puzzle.id}/retry`)).puzzle));
  },
};

function toggleReview(game) {
  if (store.review?.id === game.id) return store.set({ review: null });
  send(async () => {
    const answer = await api.get(`api/games/${game.id}/review`);
    const steps = answer.steps ?? [];
    store.set({ review: { id: game.id, steps, summary: answer.summary ?? "",
      index: Math.max(0, steps.length - 1) } });
  });
}

const gameView = new GameView(intents);
const homeView = new HomeView(intents);
const puzzleView = new PuzzleView(intents);

function render() {
  $("app").removeAttribute("aria-busy");
  setText($("title"), store.t("title"));
  document.title = store.t("title") || document.title;
  // The service's reason, when it closed the socket on purpose (too many pages open, no
  // longer in the Activity, too many connects), else the state in the catalog's words.
  const connection = { connecting: "connecting", reconnecting: "reconnecting" }[store.connection];
  const line = store.connectionReason || (connection ? store.t(connection) : "");
  setText($("connection"), line);
  $("connection").hidden = !line;
  $("connection").dataset.state = store.connection;
  // The wait before the next try, for the tests to read (nothing is shown).
  if (store.retryMs !== null) $("connection").dataset.retryMs = String(store.retryMs);
  else delete $("connection").dataset.retryMs;
  setText($("notice"), store.notice);
  setText($("alert"), store.alert);
  const main = $("main");
  const puzzle = store.puzzleShown && store.puzzle !== null;
  const view = puzzle ? puzzleView : store.current ? gameView : homeView;
  if (main.firstElementChild !== view.el) {
    // Another view (a game picked, back to the list): the focus follows if it was in the
    // view that goes, and is not taken from the member on a page that just loaded.
    const hadFocus = main.contains(document.activeElement);
    main.replaceChildren(view.el);
    view.update(store);
    if (hadFocus) view.el.querySelector("button:not([hidden]), select")?.focus();
  } else {
    view.update(store);
  }
  main.dataset.view = puzzle ? "puzzle" : store.current ? "game" : "home";
}

function fail(error) {
  const reason = error instanceof ApiError ? error.reason : null;
  const main = $("main");
  main.replaceChildren();
  main.dataset.view = "failed";
  const p = document.createElement("p");
  p.className = "failed";
  p.textContent = reason ? `${FALLBACK} (${reason})` : FALLBACK;
  main.append(p);
  $("app").removeAttribute("aria-busy");
}

async function boot() {
  const signedIn = await discord.start();
  document.documentElement.lang = signedIn.locale || "en";
  store.me = signedIn.user;
  const [{ games, texts }, puzzles] = await Promise.all([api.get("api/games"),
    // A process without puzzles answers 404: the page shows none.
    api.get("api/puzzles").catch((error) => {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    })]);
  store.texts = { ...(texts ?? {}), ...(puzzles?.texts ?? {}) };
  store.puzzles = puzzles !== null;
  // An attempt open in the chat shows here: the home view offers to go on with it.
  if (puzzles?.puzzle) store.puzzle = puzzles.puzzle;
  store.puzzleToday = puzzles?.today ?? null;
  store.subscribe(render);
  store.setGames(games ?? []);
  refreshMyGames();
  // The game shown goes with each connection: one that ended while the socket was down
  // has left the channel's running games, and the server sends it first, ended.
  const live = new LiveSocket(() => api.liveUrl(store.selected), {
    session: () => api.session ?? "",
    message: (data) => {
      if (data.type === "games" && Array.isArray(data.games)) store.setGames(data.games);
      else if (data.type === "game" && data.game) store.putGame(data.game);
    },
    state: (connection, retryMs, reason) =>
      store.set({ connection, retryMs: retryMs ?? null, connectionReason: reason ?? "" }),
    // The service ended the socket with the session: a new one, as after a 401.
    expired: () => discord.signIn(),
    failed: async () => {
      // A socket refused before opening: a lapsed session shows as a 401 here. The game
      // shown stays for the socket to name: if it ended meanwhile, it sends it first.
      try {
        store.setGames((await api.get("api/games")).games ?? [], true);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) await discord.signIn();
        else throw error;
      }
    },
  });
  live.start();
  discord.participants().then((people) => store.set({ participants: people }), () => {});
  discord.watchParticipants((people) => store.set({ participants: people })).catch(() => {});
}

boot().catch(fail);
