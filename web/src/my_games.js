// "My games" on the home view: the member's games and challenges in every place, as the
// server orders and words them (the same list as /ttt games). A game of this channel opens
// on this board; the others link to their message in Discord.
import { avatar, h } from "./dom.js";

const UNITS = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];

/** "in 3 days", "in 5 hours": a deadline in the page's language (the number only, from
 * the server's Unix seconds; nothing here decides it). */
export function relative(deadline, now = Date.now() / 1000, lang = document.documentElement.lang) {
  const seconds = deadline - now;
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? UNITS[3];
  const format = new Intl.RelativeTimeFormat(lang || "en", { numeric: "auto" });
  return format.format(Math.round(seconds / size), unit);
}

/** The section of `entries` (already in the server's order), headed where it changes. */
export function myGames(store, open) {
  const t = (key) => store.t(`my_games.${key}`);
  const entries = store.myGames;
  if (!Array.isArray(entries)) return null;
  const items = [];
  let section = null;
  for (const entry of entries) {
    const heading = t(`section.${entry.waiting}`);
    if (heading !== section) {
      section = heading;
      items.push(h("li", { class: "my-games-section" }, heading));
    }
    items.push(h("li", {}, entryCard(entry, t, open)));
  }
  return h("section", { class: "group my-games", dataset: { key: "my-games" } },
    h("h2", { class: "home-title" }, t("title")),
    entries.length
      ? h("ul", { class: "picker my-games-list" }, items)
      : h("p", { class: "my-games-none" }, t("none")));
}

function entryCard(entry, t, open) {
  const who = entry.opponent;
  const body = [
    h("span", { class: "pick-players" },
      h("span", { class: "pick-player" }, avatar(who ?? { name: "?" }),
        h("span", { class: "name" }, who?.name ?? ""))),
    h("span", { class: "pick-status" }, [entry.shape, entry.pace].join(" · ")),
    h("span", { class: "pick-size" },
      [t(`place.${entry.place}`), entry.deadline ? relative(entry.deadline) : null]
        .filter(Boolean).join(" · ")),
  ];
  const key = `my-${entry.kind}-${entry.id}`;
  const yours = entry.waiting === "you" || entry.waiting === "to_you";
  const cls = `pick my-game${yours ? " pick-yours" : ""}`;
  if (entry.here) {
    return h("button", { type: "button", class: cls, dataset: { key },
      onClick: () => open(entry.id) }, ...body, h("span", { class: "my-games-go" }, t("open")));
  }
  if (entry.link) {
    return h("a", { class: cls, href: entry.link, target: "_blank", rel: "noopener",
      dataset: { key } }, ...body, h("span", { class: "my-games-go" }, t("in_discord")));
  }
  return h("div", { class: cls, dataset: { key } }, ...body);
}
