// Signing in through the Discord client, as Discord's Activity starter does: the SDK's
// handshake, a code from authorize(), the code exchanged by our own server (the only
// place the client secret lives), then authenticate() with the token it returns.
import { DiscordSDK } from "@discord/embedded-app-sdk";
import { ApiError } from "./api.js";

/** How long the Discord client may take to answer the handshake. */
const READY_TIMEOUT_MS = 20000;
/** Sign-ins tried when the server says "too early" (429), before the page gives up. */
const SIGN_IN_TRIES = 6;
/** The first wait before trying again, doubled each time, and the longest. */
const BACKOFF_MS = 1000;
const BACKOFF_CAP_MS = 30000;

/** The wait before try `attempt + 1`: the server's `retry_after` (seconds) or the backoff,
 * whichever is longer, capped, plus up to half again at random, so pages refused together
 * do not come back together. */
export function retryDelay(attempt, retryAfter, random = Math.random) {
  const told = Number.isFinite(retryAfter) ? retryAfter * 1000 : 0;
  const base = Math.min(BACKOFF_CAP_MS, Math.max(told, BACKOFF_MS * 2 ** attempt));
  return base + random() * base * 0.5;
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function within(ms, promise) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error("the Discord client did not answer")), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export class DiscordSession {
  /** @param {import("./api.js").Api} api */
  constructor(api) {
    this.api = api;
    this.sdk = null;
    this.clientId = null;
    this.signedIn = null; // the answer of POST api/session: user, channel, locale
  }

  /** Handshake, then sign in. Raises when the page is not inside Discord. */
  async start() {
    const config = await this.api.get("api/config");
    this.clientId = String(config.client_id);
    this.sdk = new DiscordSDK(this.clientId);
    await within(READY_TIMEOUT_MS, this.sdk.ready());
    return this.signIn();
  }

  /** Authorize, exchange the code for a session, authenticate the SDK. Again after a 401.
   * A sign-in the server refuses for now (429) is tried again after the wait it says:
   * with the same code if the server did not send it to Discord, else with a new one. */
  async signIn() {
    let code = await this.authorize();
    for (let attempt = 0; ; attempt++) {
      this.api.session = null;
      let answer;
      try {
        answer = await this.api.post("api/session", { code, instance_id: this.sdk.instanceId });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 429) throw error;
        if (attempt + 1 >= SIGN_IN_TRIES) throw error;
        await pause(retryDelay(attempt, Number(error.body.retry_after)));
        if (error.body.code_spent !== false) code = await this.authorize();
        continue;
      }
      await this.sdk.commands.authenticate({ access_token: answer.access_token });
      this.api.session = answer.session;
      this.signedIn = answer;
      return answer;
    }
  }

  /** A code from the Discord client (single use), for the server to exchange. */
  async authorize() {
    const { code } = await this.sdk.commands.authorize({
      client_id: this.clientId,
      response_type: "code",
      state: "",
      prompt: "none",
      scope: ["identify"],
    });
    return code;
  }

  /** The other people in this Activity, for the challenge form. */
  async participants() {
    const { participants } = await this.sdk.commands.getInstanceConnectedParticipants();
    return participants;
  }

  /** Calls `listener(participants)` whenever people join or leave the Activity. */
  async watchParticipants(listener) {
    await this.sdk.subscribe("ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE", (event) =>
      listener(event.participants),
    );
  }
}

/** A participant's avatar on Discord's CDN (the Activity's CSP allows it), or null. */
export function participantAvatar(person) {
  if (!person.avatar) return null;
  return `https://cdn.discordapp.com/avatars/${person.id}/${person.avatar}.png?size=64`;
}
