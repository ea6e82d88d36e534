// A stand-in for the Discord client's side of an Activity, for tests. It frames the
// Activity's URL as Discord does (frame_id, instance_id, channel_id, guild_id, platform in
// the query) and answers the Embedded App SDK's postMessage RPC: messages are
// [opcode, payload] with opcodes HANDSHAKE 0, FRAME 1, CLOSE 2 (HELLO 3 is legacy).
// Like Discord's client it answers only the window it framed, at that frame's origin.
//
// Configuration comes from this page's query string (see server.py): activity, client_id,
// instance_id, channel_id, guild_id, platform, code, access_token, user, participants.
// A test may expose async hooks on this window (Playwright's expose_function):
//   tttAuthorize(args) -> code string (or null to refuse), tttAuthenticate(token) -> user|null.
"use strict";

const OP = { HANDSHAKE: 0, FRAME: 1, CLOSE: 2, HELLO: 3 };
// The SDK's RPCErrorCodes and RPCCloseCodes (output/Constants.mjs).
const ERR = { INVALID_PAYLOAD: 4000, INVALID_COMMAND: 4002, INVALID_EVENT: 4004,
  INVALID_CLIENTID: 4007, INVALID_ORIGIN: 4008, INVALID_TOKEN: 4009, OAUTH2: 5000 };
const CLOSE = { INVALID_CLIENTID: 4000, INVALID_ORIGIN: 4001, INVALID_VERSION: 4004,
  INVALID_ENCODING: 4005 };
const EVENTS = new Set(["READY", "VOICE_STATE_UPDATE", "SPEAKING_START", "SPEAKING_STOP",
  "ACTIVITY_LAYOUT_MODE_UPDATE", "ORIENTATION_UPDATE", "CURRENT_USER_UPDATE",
  "CURRENT_GUILD_MEMBER_UPDATE", "ENTITLEMENT_CREATE", "THERMAL_STATE_UPDATE",
  "ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE", "RELATIONSHIP_UPDATE", "ACTIVITY_JOIN",
  "QUEST_ENROLLMENT_STATUS_UPDATE"]);

const query = new URLSearchParams(location.search);
const json = (name, fallback) => (query.has(name) ? JSON.parse(query.get(name)) : fallback);
const config = {
  activity: query.get("activity"),
  clientId: query.get("client_id") ?? "1",
  instanceId: query.get("instance_id") ?? "i-1",
  channelId: query.get("channel_id"),
  guildId: query.get("guild_id"),
  platform: query.get("platform") ?? "desktop",
  code: query.get("code"),
  accessToken: query.get("access_token"), // when set, AUTHENTICATE must bring this token
  user: json("user", { id: "1", username: "member", global_name: null, avatar: null }),
  participants: json("participants", []),
};

/** The user as Discord's RPC describes one (the SDK's zod schemas want every field). */
function rpcUser(user) {
  return { id: String(user.id), username: user.username ?? user.name ?? "member",
    discriminator: user.discriminator ?? "0", global_name: user.global_name ?? null,
    avatar: user.avatar ?? null, flags: user.flags ?? 0, bot: Boolean(user.bot),
    ...(user.nickname ? { nickname: user.nickname } : {}) };
}

const frame = {
  config,
  frameId: crypto.randomUUID(),
  log: [], // {dir: "in"|"out"|"refused", opcode, payload}: what crossed, for the test to read
  subscriptions: new Set(),
  logs: [], // what the Activity sent through CAPTURE_LOG
  ready: false,
  closed: null,
  participants: config.participants.map(rpcUser),
  /** People join or leave: dispatched to the Activity if it subscribed. */
  setParticipants(people) {
    this.participants = people.map(rpcUser);
    dispatch("ACTIVITY_INSTANCE_PARTICIPANTS_UPDATE", { participants: this.participants });
  },
};
window.discordFrame = frame;

const activityUrl = new URL(config.activity);
const activityOrigin = activityUrl.origin;
for (const [name, value] of [["frame_id", frame.frameId], ["instance_id", config.instanceId],
  ["channel_id", config.channelId], ["guild_id", config.guildId],
  ["platform", config.platform]]) {
  if (value) activityUrl.searchParams.set(name, value);
}
const iframe = document.createElement("iframe");
iframe.title = "Activity";
// The SDK posts to document.referrer's origin. Discord's Activity is https, so it gets
// https://discord.com/; a test's Activity on plain http would get no referrer (a
// downgrade), hence the explicit policy that sends the origin as Discord's case does.
iframe.referrerPolicy = "origin";
iframe.allow = "autoplay; clipboard-write; fullscreen";
iframe.sandbox = "allow-scripts allow-same-origin allow-forms allow-popups " +
  "allow-popups-to-escape-sandbox allow-modals";
iframe.src = activityUrl.href;

function post(opcode, payload) {
  frame.log.push({ dir: "out", opcode, payload });
  iframe.contentWindow?.postMessage([opcode, payload], activityOrigin);
}

function reply(request, data) {
  post(OP.FRAME, { cmd: request.cmd, evt: null, nonce: request.nonce, data });
}

function refuse(request, code, message) {
  post(OP.FRAME, { cmd: request.cmd, evt: "ERROR", nonce: request.nonce ?? null,
    data: { code, message } });
}

function dispatch(evt, data) {
  if (!frame.subscriptions.has(evt)) return;
  post(OP.FRAME, { cmd: "DISPATCH", evt, nonce: null, data });
}

function close(code, message) {
  post(OP.CLOSE, { code, message });
  frame.closed = { code, message, by: "client" };
}

function handshake(payload) {
  if (frame.ready) return; // one handshake per frame
  if (payload?.v !== 1) return close(CLOSE.INVALID_VERSION, "Invalid version");
  if ((payload.encoding ?? "json") !== "json") return close(CLOSE.INVALID_ENCODING, "Invalid encoding");
  if (payload.client_id !== config.clientId) return close(CLOSE.INVALID_CLIENTID, "Invalid Client ID");
  if (payload.frame_id !== frame.frameId) return close(CLOSE.INVALID_ORIGIN, "Invalid frame");
  frame.ready = true;
  const user = rpcUser(config.user);
  post(OP.FRAME, { cmd: "DISPATCH", evt: "READY", nonce: null, data: {
    v: 1,
    config: { cdn_host: "cdn.discordapp.com", api_endpoint: "//discord.com/api",
      environment: "production" },
    user: { id: user.id, username: user.username, discriminator: user.discriminator,
      ...(user.avatar ? { avatar: user.avatar } : {}) },
  } });
}

const commands = {
  async AUTHORIZE(args) {
    if (args?.client_id !== config.clientId) throw [ERR.INVALID_CLIENTID, "Invalid Client ID"];
    if (args.response_type !== "code" || !Array.isArray(args.scope)) {
      throw [ERR.INVALID_PAYLOAD, "Invalid authorize arguments"];
    }
    const code = typeof window.tttAuthorize === "function"
      ? await window.tttAuthorize(args) : config.code;
    if (!code) throw [ERR.OAUTH2, "OAuth2 Error: access_denied"];
    return { code };
  },
  async AUTHENTICATE(args) {
    const token = args?.access_token;
    let user = rpcUser(config.user);
    if (typeof window.tttAuthenticate === "function") {
      user = await window.tttAuthenticate(token);
      if (!user) throw [ERR.INVALID_TOKEN, "Invalid access token"];
      user = rpcUser(user);
    } else if (!token || (config.accessToken && token !== config.accessToken)) {
      throw [ERR.INVALID_TOKEN, "Invalid access token"];
    }
    return { access_token: token, scopes: ["identify"],
      expires: new Date(Date.now() + 7 * 86400e3).toISOString(),
      user: { id: user.id, username: user.username, discriminator: user.discriminator,
        avatar: user.avatar, global_name: user.global_name, public_flags: 0 },
      application: { id: config.clientId, name: "ttt", description: "", icon: null } };
  },
  async GET_ACTIVITY_INSTANCE_CONNECTED_PARTICIPANTS() {
    return { participants: frame.participants };
  },
  async SUBSCRIBE(args, request) {
    if (!EVENTS.has(request.evt)) throw [ERR.INVALID_EVENT, `Invalid event ${request.evt}`];
    frame.subscriptions.add(request.evt);
    return { evt: request.evt };
  },
  async UNSUBSCRIBE(args, request) {
    frame.subscriptions.delete(request.evt);
    return { evt: request.evt };
  },
  async CAPTURE_LOG(args) {
    frame.logs.push(args);
    return null;
  },
};

async function command(request) {
  if (!frame.ready) return refuse(request, ERR.INVALID_PAYLOAD, "Not ready");
  const handler = commands[request?.cmd];
  if (!handler) return refuse(request, ERR.INVALID_COMMAND, `Unknown command ${request?.cmd}`);
  try {
    reply(request, await handler(request.args, request));
  } catch (error) {
    const [code, message] = Array.isArray(error) ? error : [ERR.INVALID_PAYLOAD, String(error)];
    refuse(request, code, message);
  }
}

window.addEventListener("message", (event) => {
  // Only the Activity this client framed, from the origin it was framed at.
  if (event.source !== iframe.contentWindow) return;
  if (event.origin !== activityOrigin) {
    frame.log.push({ dir: "refused", origin: event.origin, payload: event.data });
    return;
  }
  if (!Array.isArray(event.data)) return;
  const [opcode, payload] = event.data;
  frame.log.push({ dir: "in", opcode, payload });
  if (opcode === OP.HANDSHAKE) handshake(payload);
  else if (opcode === OP.FRAME) command(payload);
  else if (opcode === OP.CLOSE) {
    // The Activity closed itself: Discord takes the frame down.
    frame.closed = { code: payload?.code, message: payload?.message, by: "activity" };
    iframe.remove();
  }
});

document.body.append(iframe);
