// The web service's API (docs/develop/activity-api.md). Paths are relative to the page's own
// prefix: Discord serves an Activity under /.proxy/, and its CSP lets the page reach its
// own origin only.

/** The root every API path hangs from: `/.proxy/` when the page was loaded under it. */
export function apiRoot(location = window.location) {
  const prefix = location.pathname.startsWith("/.proxy/") ? "/.proxy/" : "/";
  return new URL(prefix, location.origin);
}

/** A refusal (4xx/5xx with the server's `error` and `reason`) or no answer (status 0). */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.reason ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error ?? (status === 0 ? "unreachable" : "failed");
    this.reason = typeof body?.reason === "string" ? body.reason : null;
    this.body = body ?? {};
  }
}

export class Api {
  constructor(root = apiRoot()) {
    this.root = root;
    /** The session token from `POST api/session`, sent as a bearer token. */
    this.session = null;
  }

  url(path) {
    return new URL(path, this.root);
  }

  /** The JSON answer to a call. Raises ApiError for a refusal or a failed request. */
  async call(method, path, body) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.session) headers.Authorization = `Bearer ${this.session}`;
    let response;
    try {
      response = await fetch(this.url(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
      });
    } catch {
      throw new ApiError(0, null);
    }
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  get(path) {
    return this.call("GET", path);
  }

  post(path, body = {}) {
    return this.call("POST", path, body);
  }

  /** The live socket's address: `api/live` over ws(s), with the game shown (`game`), if
   * one is; the session goes in the socket's first message, not here. */
  liveUrl(game = null) {
    const url = this.url("api/live");
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    if (game !== null) url.searchParams.set("game", game);
    return url.href;
  }
}
