// Signing in through the Discord client, as Discord's Activity starter does: the SDK's
// handshake, a code from authorize(), the code exchanged by our own server (the only
// place the client secret lives), then authenticate() with the token it returns.
import { DiscordSDK } from "@discord/embedded-app-sdk";

/** How long the Discord client may take to answer the handshake. */
const READY_TIMEOUT_MS = 20000;

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

  /** Authorize, exchange the code for a session, authenticate the SDK. Again after a 401. */
  async signIn() {
    const { code } = await this.sdk.commands.authorize({
      client_id: this.clientId,
      response_type: "code",
      state: "",
      prompt: "none",
      scope: ["identify"],
    });
    this.api.session = null;
    const answer = await this.api.post("api/session", {
      code,
      instance_id: this.sdk.instanceId,
    });
    await this.sdk.commands.authenticate({ access_token: answer.access_token });
    this.api.session = answer.session;
    this.signedIn = answer;
    return answer;
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
