// The live socket (`api/live`): the page sends its session as the socket's first message
// (never in the URL, which proxies log) and nothing after it: the service closes a socket
// that sends more (1008), and keeps it alive with pings of its own, which the browser
// answers. The server sends the channel's games on connecting and each game as it
// changes. A lost socket comes back with backoff, and the full state it sends on
// connecting replaces whatever was missed meanwhile.
//
// A web process that restarts is back within seconds: for the first minute of an outage
// the page tries at least once a second, so it is live again within a second of the
// process (a doubling backoff had it wait up to 8 s by then). A longer outage backs off
// to one try in 15 s.
//
// The service ends a socket on purpose with a close code of its own (bot/web/live_page.py),
// after a `closing` message with the reason when there is one to show.

/** The session ended: sign in again, silently, and reconnect at once. */
export const CLOSE_EXPIRED = 4001;
/** The member is no longer in the Activity: show why, and stay closed. */
export const CLOSE_LEFT = 4003;
/** The member has too many pages open: show why, and stay closed. */
export const CLOSE_TOO_MANY = 4008;
/** Too many connects, or pages: show why, and try again after the wait it says. */
export const CLOSE_BUSY = 4029;

const FIRST_DELAY_MS = 250;
const FAST_DELAY_MS = 1000;
const FAST_FOR_MS = 60000;
const MAX_DELAY_MS = 15000;

/** The wait before the next try: doubling from the first, at most a second for the first
 * minute of an outage (`downMs`), then at most 15 s; half of it random, so the pages of
 * a restarted process do not all come back at once. */
export function retryDelay(attempts, downMs, random = Math.random) {
  const cap = downMs < FAST_FOR_MS ? FAST_DELAY_MS : MAX_DELAY_MS;
  const ceiling = Math.min(cap, FIRST_DELAY_MS * 2 ** attempts);
  return ceiling / 2 + random() * (ceiling / 2);
}

export class LiveSocket {
  /**
   * @param {() => string} url the address to connect to (read again at each attempt)
   * @param {{session: () => string, message: (data: object) => void,
   *          state: (s: string, retryMs?: number, reason?: string) => void,
   *          failed?: () => Promise<void>, expired?: () => Promise<void>}} on
   *   `session` is the session token the socket's first message names (read at each
   *   opening: a renewed sign-in's);
   *   `state` says "reconnecting" with the wait before the next try (and the service's
   *   reason when it asked for the wait), or "stopped" with the reason;
   *   `failed` runs before retrying a socket that never opened (the session may be over);
   *   `expired` signs in again when the service ended the socket with the session
   */
  constructor(url, on) {
    this.url = url;
    this.on = on;
    this.attempts = 0;
    this.downSince = null; // when the socket was lost, while it is
    this.socket = null;
    this.timer = null;
    this.stopped = false;
    this.holdUntil = 0; // the service asked to wait until then (CLOSE_BUSY)
    this.renewed = false; // signed in again for this socket, and nothing came since
    window.addEventListener("online", () => this.now());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.now();
    });
  }

  start() {
    this.on.state("connecting");
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.socket?.close(1000);
  }

  /** Retry at once when waiting (the network came back, the page is shown again). */
  now() {
    if (this.stopped || this.socket || this.timer === null) return;
    if (Date.now() < this.holdUntil) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.connect();
  }

  connect() {
    this.timer = null;
    let opened = false;
    let said = null; // the service's `closing` message: why it closes this socket
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      opened = true;
      this.downSince = null;
      socket.send(JSON.stringify({ type: "session", session: this.on.session() }));
      this.on.state("live");
    });
    socket.addEventListener("message", (event) => {
      this.attempts = 0; // the server talked: the next loss starts the backoff again
      let data;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!data || typeof data !== "object") return;
      if (data.type === "closing") said = data;
      else {
        this.renewed = false;
        this.on.message(data);
      }
    });
    socket.addEventListener("close", (event) => {
      if (this.socket === socket) this.socket = null;
      if (this.stopped) return;
      this.closed(event.code, said, opened);
    });
  }

  /** What a close code of the service's asks for; any other close is a loss. */
  closed(code, said, opened) {
    const reason = typeof said?.reason === "string" ? said.reason : "";
    if (code === CLOSE_LEFT || code === CLOSE_TOO_MANY) {
      this.stopped = true; // trying again would be refused again: the member acts first
      this.on.state("stopped", undefined, reason);
    } else if (code === CLOSE_BUSY) {
      // up to half again at random: the pages a full process refused do not all come
      // back at the same moment
      const wait = Math.max(1, Number(said?.retry_after) || 1) * 1000;
      const delay = wait + Math.random() * (wait / 2);
      this.holdUntil = Date.now() + delay;
      this.on.state("reconnecting", delay, reason);
      this.timer = setTimeout(() => this.connect(), delay);
    } else if (code === CLOSE_EXPIRED && this.on.expired && !this.renewed) {
      this.renew();
    } else {
      this.retry(opened);
    }
  }

  /** Sign in again and reconnect at once; once only until the service talks again, so a
   * session refused at once again falls back to the backoff. */
  async renew() {
    this.renewed = true;
    try {
      await this.on.expired();
    } catch {
      this.retry(false); // Discord's client did not sign in: the backoff, as for a loss
      return;
    }
    if (!this.stopped && !this.socket) this.connect();
  }

  retry(opened) {
    this.downSince ??= Date.now();
    const delay = retryDelay(this.attempts, Date.now() - this.downSince);
    this.attempts += 1;
    this.on.state("reconnecting", delay);
    this.timer = setTimeout(async () => {
      this.timer = null;
      if (!opened && this.on.failed) {
        try {
          await this.on.failed();
        } catch {
          // still unreachable: try the socket anyway, the backoff grows
        }
      }
      if (!this.stopped && !this.socket) this.connect();
    }, delay);
  }
}
