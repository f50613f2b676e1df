"use strict";
// The memory page: shows what the bot remembers about the user and lets them
// edit, delete, add, export or erase it, and cancel its reminders. Talks to the bot's API with relative
// URLs; needs nothing from outside (no telegram-web-app.js).
// words.js (WORDS) and graph.js (buildGraph, svgEl) are loaded before this file.

const UNDO_MS = 5000;
const INIT_KEY = "memory-page-init-data";

const S = {
  init: "",           // Telegram initData, sent with every call
  lang: "en",
  T: WORDS.en,        // the strings in the user's language
  data: null,         // the api/memory answer, kept up to date after each change
  pending: new Map(), // "fact:12" / "topic:7" / "reminder:3" -> {kind, id, timer, sent}: deletes waiting for undo
  editing: new Map(), // fact id -> {value, when, error, busy}: open edit forms
  expired: false,
};

// ---------- DOM helpers: elements and text nodes only, never HTML strings ----------

const $ = (sel) => document.querySelector(sel);

// h("button", {class: "x", text: "Hi", onclick: fn}, child, ...)
function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "value" || k === "checked" || k === "disabled" || k === "hidden") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

const ICONS = { edit: "M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4", delete: "M6 6l12 12M18 6L6 18" };

function iconButton(kind, label, onclick) {
  const svg = svgEl("svg", { viewBox: "0 0 24 24", "aria-hidden": "true" });
  svg.append(svgEl("path", { d: ICONS[kind] }));
  return h("button", { type: "button", class: `${kind} icon`, "aria-label": label, title: label, onclick }, svg);
}

function section(id, title, ...content) {
  return h("section", { id, class: "card" }, h("h2", { text: title }), ...content);
}

// ---------- Telegram: identity, theme, events ----------

function readInitData() {
  let init = window.Telegram?.WebApp?.initData ||
    new URLSearchParams(location.hash.slice(1)).get("tgWebAppData") || "";
  try {
    if (init) sessionStorage.setItem(INIT_KEY, init);
    else init = sessionStorage.getItem(INIT_KEY) || "";
  } catch { /* storage may be off; the fragment still works */ }
  return init;
}

// The language before the API answers: the Telegram user's, else the browser's.
function guessLanguage(init) {
  let code = navigator.language || "";
  try {
    const user = JSON.parse(new URLSearchParams(init).get("user") || "{}");
    if (user.language_code) code = user.language_code;
  } catch { /* no user in initData */ }
  return /^(ru|uk|be)\b/i.test(code) ? "ru" : "en";
}

function setLanguage(lang) {
  S.lang = lang === "ru" ? "ru" : "en";
  S.T = WORDS[S.lang];
  document.documentElement.lang = S.lang;
  document.title = S.T.title;
}

const THEME_VARS = {
  bg_color: "--bg", text_color: "--text", hint_color: "--hint", link_color: "--link",
  button_color: "--button", button_text_color: "--button-text", section_bg_color: "--section-bg",
  destructive_text_color: "--destructive",
};

function isDark(hex) {
  let c = hex.slice(1);
  if (c.length < 6) c = c.split("").map((x) => x + x).join("");
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(c.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 128;
}

function applyTheme(params) {
  if (!params || typeof params !== "object") return;
  const color = (k) => (typeof params[k] === "string" && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(params[k]) ? params[k] : null);
  const root = document.documentElement;
  for (const [key, name] of Object.entries(THEME_VARS)) if (color(key)) root.style.setProperty(name, color(key));
  const bg = color("bg_color"), second = color("secondary_bg_color");
  const cards = color("section_bg_color") || second;
  if (cards) root.style.setProperty("--section-bg", cards);
  // Cards as light as the page: the page takes the secondary color, as Telegram's settings screens do.
  if (bg && second && cards && cards.toLowerCase() === bg.toLowerCase()) root.style.setProperty("--bg", second);
  if (bg) root.dataset.scheme = isDark(bg) ? "dark" : "light";
}

function startTheme() {
  try {
    const raw = new URLSearchParams(location.hash.slice(1)).get("tgWebAppThemeParams");
    if (raw) applyTheme(JSON.parse(raw));
  } catch { /* a broken fragment leaves the CSS defaults */ }
  const app = window.Telegram?.WebApp;
  if (app?.themeParams && Object.keys(app.themeParams).length) applyTheme(app.themeParams);
  if (app?.onEvent) app.onEvent("themeChanged", () => applyTheme(app.themeParams));
  // Native clients call Telegram.WebView.receiveEvent; Telegram Web posts messages.
  window.Telegram = window.Telegram || {};
  if (!window.Telegram.WebView) {
    window.Telegram.WebView = {
      receiveEvent(name, data) {
        if (name === "theme_changed" && data) applyTheme(data.theme_params);
      },
    };
  }
  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || typeof event.data !== "string") return;
    let msg;
    try { msg = JSON.parse(event.data); } catch { return; }
    if (msg?.eventType === "theme_changed" && msg.eventData) applyTheme(msg.eventData.theme_params);
  });
}

function postEvent(type, data) {
  try {
    if (window.TelegramWebviewProxy?.postEvent) window.TelegramWebviewProxy.postEvent(type, JSON.stringify(data));
    else if (window.parent !== window) window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data }), "*");
  } catch { /* outside Telegram nobody listens */ }
}

function finishFirstRender() {
  document.body.classList.add("ready");
  postEvent("web_app_ready", {});
  postEvent("web_app_expand", {});
}

// ---------- API ----------

// Never throws: {ok, status, data} or {ok: false, status, error: a line to show}.
async function api(method, path, body, keepalive) {
  const options = { method, headers: { Authorization: `tma ${S.init}` }, cache: "no-store", keepalive: !!keepalive };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, options);
  } catch {
    return { ok: false, status: 0, error: S.T.offline };
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (res.ok) return { ok: true, status: res.status, data: data || {} };
  if (res.status === 401) {
    say(S.T.expired, true);
    S.expired = true;
  }
  const error = res.status === 401 ? S.T.expired : res.status === 429 ? S.T.busy
    : (typeof data?.error === "string" && data.error) || S.T.failed;
  return { ok: false, status: res.status, error };
}

let statusTimer = 0;

// One line in #status: notices fade after a while, errors stay until the next line.
function say(text, sticky) {
  if (S.expired && text !== S.T.expired) return;
  const el = $("#status");
  el.textContent = text || "";
  el.classList.toggle("bad", !!sticky);
  clearTimeout(statusTimer);
  if (text && !sticky) statusTimer = setTimeout(() => { el.textContent = ""; }, 6000);
}

// ---------- dates ----------

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/;

// "2026-12-04T10:00" -> "Fri, 4 Dec 2026, 10:00" / "пт, 4 декабря 2026, 10:00"
function formatWhen(when) {
  const m = DATE_RE.exec(when || "");
  if (!m) return String(when);
  const [y, mo, d] = [+m[1], +m[2], +m[3]];
  const weekday = new Date(Date.UTC(y, mo - 1, d)).getUTCDay();
  const T = S.T;
  const date = T.date(T.days[weekday], d, T.months[mo - 1] || m[2], y);
  return m[4] ? `${date}, ${m[4]}:${m[5]}` : date;
}

// "2026-11-30" -> "30.11.2026"
function shortDate(day) {
  const m = DATE_RE.exec(day || "");
  return m ? `${m[3]}.${m[2]}.${m[1]}` : String(day);
}

// An instant as a readable day in the user's time zone (else the device's).
function dayOf(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return "";
  const pick = (parts) => ["year", "month", "day"].map((t) => parts.find((p) => p.type === t).value).join("-");
  const options = { year: "numeric", month: "2-digit", day: "2-digit" };
  try {
    return formatWhen(pick(new Intl.DateTimeFormat("en-GB", { ...options, timeZone: S.data.settings.timezone || undefined }).formatToParts(d)));
  } catch {
    return formatWhen(pick(new Intl.DateTimeFormat("en-GB", options).formatToParts(d)));
  }
}

function pastText(fact) {
  const T = S.T;
  if (fact.ended === "died") return fact.ended_on ? T.diedOn(shortDate(fact.ended_on)) : T.died;
  return fact.ended_on ? T.pastSince(shortDate(fact.ended_on)) : T.past;
}

// ---------- the memory: header, wishes, facts, graph, reminders, topics ----------

const hiddenNow = (kind, id) => S.pending.has(`${kind}:${id}`);

function renderMemory() {
  const focus = saveFocus();
  const d = S.data, T = S.T;
  const facts = d.facts.filter((f) => !hiddenNow("fact", f.id));
  const wishes = d.wishes.filter((w) => !hiddenNow("fact", w.id));
  const reminders = d.reminders.filter((r) => !hiddenNow("reminder", r.id));
  const topics = d.topics.filter((t) => !hiddenNow("topic", t.id));
  const parts = [h("header", { class: "head" },
    h("h1", { text: T.title }),
    d.name ? h("p", { class: "name", text: T.name(d.name) }) : null,
    d.settings.memory === false ? h("p", { class: "hint", text: T.memoryOff }) : null)];
  if (wishes.length) parts.push(section("wishes", T.wishes, h("ul", {}, ...wishes.map(wishRow))));
  parts.push(factsSection(facts, wishes.length));
  const graph = buildGraph(facts, d.relations, T);
  if (graph) parts.push(section("graph", T.links, graph.svg, graph.list));
  if (reminders.length) parts.push(section("reminders", T.reminders, h("ul", {}, ...reminders.map(reminderRow))));
  if (topics.length) parts.push(section("topics", T.topics, h("ul", {}, ...topics.map(topicRow))));
  if (d.replies.length) parts.push(repliesSection("replies", T.replies, d.replies));
  d.groups.forEach((g, index) => parts.push(groupSection(g, index)));
  $("#lists").replaceChildren(...parts);
  restoreFocus(focus);
}

function factsSection(facts, wishCount) {
  const d = S.data;
  const order = [...d.categories];
  for (const f of facts) if (!order.includes(f.category)) order.push(f.category);
  const groups = order.map((cat) => [cat, facts.filter((f) => f.category === cat)]).filter(([, list]) => list.length);
  const box = h("section", { id: "facts" });
  if (!groups.length && !wishCount) box.append(h("div", { class: "card" }, h("p", { class: "hint", text: S.T.nothing })));
  for (const [cat, list] of groups) {
    box.append(h("div", { class: "card group", "data-category": cat },
      h("h2", { text: d.category_names[cat] || cat }), h("ul", {}, ...list.map(factRow))));
  }
  return box;
}

function factRow(f) {
  const T = S.T;
  const isPast = !!(f.past || f.ended);
  const li = h("li", { class: isPast ? "fact muted" : "fact", "data-id": f.id });
  const draft = S.editing.get(f.id);
  if (draft) {
    li.append(editForm(f, draft));
    return li;
  }
  const when = f.when ? h("span", { class: "when", text: formatWhen(f.when) }) : null;
  const past = isPast ? h("span", { class: "past", text: `(${pastText(f)})` }) : null;
  li.append(
    h("div", { class: "body" }, h("span", { class: "value", text: f.value }),
      when || past ? h("div", { class: "meta" }, when, past) : null),
    shareToggle(f),
    iconButton("edit", T.edit, () => startEdit(f.id)),
    iconButton("delete", T.del, () => removeItem("fact", f.id)));
  return li;
}

function wishRow(w) {
  return h("li", { class: "fact", "data-id": w.id },
    h("div", { class: "body" }, h("span", { class: "value", text: w.text || w.value })),
    shareToggle(w),
    iconButton("delete", S.T.del, () => removeItem("fact", w.id)));
}

// Whether a private fact (or wish) follows the user into the groups they talk in, or one said in a group into
// their private chat: off until they turn it on.
function shareToggle(f, label = S.T.share, hint = S.T.shareHint) {
  return h("label", { class: "share", title: hint },
    h("input", { type: "checkbox", class: "share-input", checked: !!f.shared, onchange: (e) => setShared(f, e.target) }),
    h("span", { text: label }));
}

async function setShared(f, box) {
  const wanted = box.checked;
  box.disabled = true;
  const res = await api("PATCH", `api/facts/${f.id}`, { shared: wanted });
  box.disabled = false;
  if (!res.ok) {
    box.checked = !wanted;
    say(res.error, true);
    return;
  }
  f.shared = res.data.fact.shared;
  say(f.shared ? S.T.sharedOn : S.T.sharedOff);
}

// What the bot keeps of the user in one group: said there, never shown in private prompts, nor in other groups.
function groupSection(g, index) {
  const T = S.T;
  const facts = g.facts.filter((f) => !hiddenNow("fact", f.id));
  const topics = g.topics.filter((t) => !hiddenNow("topic", t.id));
  const rows = facts.map((f) => h("li", { class: "fact", "data-id": f.id },
    h("div", { class: "body" }, h("span", { class: "value", text: f.value })),
    shareToggle(f, T.sharePrivate, T.sharePrivateHint),
    iconButton("delete", T.del, () => removeItem("fact", f.id))));
  return section(`group-${index}`, T.inGroup(g.title || T.untitled),
    h("p", { class: "hint", text: T.groupHint }),
    rows.length ? h("ul", {}, ...rows) : h("p", { class: "hint", text: T.groupNothing }),
    topics.length ? h("ul", { class: "topics" }, ...topics.map(topicRow)) : null,
    g.replies.length ? repliesBlock(g.replies) : null);
}

// Each earlier reply with what its prompt held of memory, as /why lists it in the chat.
function repliesSection(id, title, replies) {
  return section(id, title, h("p", { class: "hint", text: S.T.repliesHint }), repliesBlock(replies));
}

function repliesBlock(replies) {
  return h("ol", { class: "replies" }, ...replies.map(replyRow));
}

function replyRow(r) {
  const T = S.T;
  const memories = r.memories.length
    ? h("ul", { class: "used" }, ...r.memories.map((m) => h("li", { class: m.value === null ? "used muted" : "used", "data-kind": m.kind },
      h("span", { class: "kind", text: T.kinds[m.kind] || m.kind }),
      h("span", { class: "value", text: m.value === null ? T.gone : m.value }))))
    : h("p", { class: "hint", text: T.usedNothing });
  return h("li", { class: "reply", "data-id": r.id },
    h("div", { class: "body" }, h("span", { class: "date", text: dayOf(r.at) }), h("span", { class: "text", text: r.text })),
    memories);
}

// Its local time in its own zone (named when it is not the user's), the task, and a recurring one's rule as stored.
function reminderRow(r) {
  const zone = r.zone && r.zone !== S.data.settings.timezone ? ` (${r.zone})` : "";
  return h("li", { class: "reminder", "data-id": r.id },
    h("div", { class: "body" }, h("span", { class: "value", text: r.task }),
      h("div", { class: "meta" }, h("span", { class: "when", text: formatWhen(r.due) + zone }),
        r.rule ? h("span", { class: "rule", text: S.T.repeats(r.rule) }) : null)),
    iconButton("delete", S.T.del, () => removeItem("reminder", r.id)));
}

function topicRow(t) {
  return h("li", { class: "topic", "data-id": t.id },
    h("div", { class: "body" }, h("span", { class: "date", text: dayOf(t.ended_at) }), h("span", { class: "text", text: t.text })),
    iconButton("delete", S.T.del, () => removeItem("topic", t.id)));
}

// Re-rendering keeps the caret in an open edit form.
function saveFocus() {
  const el = document.activeElement;
  const row = el?.closest?.("#lists li[data-id]");
  if (!row || !el.matches("input")) return null;
  return { id: row.dataset.id, cls: el.classList[0], start: el.selectionStart, end: el.selectionEnd };
}

function restoreFocus(focus) {
  if (!focus) return;
  const el = document.querySelector(`#lists li[data-id="${CSS.escape(focus.id)}"] input.${focus.cls}`);
  if (!el) return;
  el.focus();
  try { el.setSelectionRange(focus.start, focus.end); } catch { /* not a text input */ }
}

// ---------- editing a fact ----------

const findFact = (id) => S.data.facts.find((f) => f.id === id);

function startEdit(id) {
  const f = findFact(id);
  if (!f) return;
  S.editing.set(id, { value: f.value, when: f.when || "", error: "", busy: false });
  renderMemory();
  $(`#lists li.fact[data-id="${id}"] input.value-input`)?.focus();
}

function editForm(f, draft) {
  const T = S.T;
  const field = (label, input) => h("label", { class: "field" }, h("span", { class: "label", text: label }), input);
  return h("form", { class: "edit", onsubmit: (e) => { e.preventDefault(); saveEdit(f.id); } },
    field(T.valueLabel, h("input", {
      class: "value-input", type: "text", value: draft.value, autocomplete: "off",
      oninput: (e) => { draft.value = e.target.value; },
    })),
    field(T.whenLabel, h("input", {
      class: "when-input", type: "text", value: draft.when, placeholder: T.whenHint, autocomplete: "off",
      oninput: (e) => { draft.when = e.target.value; },
    })),
    h("p", { class: "error", role: "alert", text: draft.error }),
    h("div", { class: "buttons" },
      h("button", { type: "button", class: "cancel", text: T.cancel, onclick: () => { S.editing.delete(f.id); renderMemory(); } }),
      h("button", { type: "submit", class: "save primary", text: T.save, disabled: draft.busy })));
}

async function saveEdit(id) {
  const f = findFact(id), draft = S.editing.get(id);
  if (!f || !draft || draft.busy) return;
  const body = {};
  const value = draft.value.trim();
  const when = draft.when.trim().replace(/^(\d{4}-\d{2}-\d{2}) +(\d)/, "$1T$2");
  if (value !== f.value) body.value = value;
  if (when !== (f.when || "")) body.when = when || null;
  if (!Object.keys(body).length) {
    S.editing.delete(id);
    renderMemory();
    return;
  }
  draft.busy = true;
  draft.error = "";
  renderMemory();
  const res = await api("PATCH", `api/facts/${id}`, body);
  draft.busy = false;
  if (res.ok) {
    const fresh = res.data.fact || { ...f, ...body };
    S.data.facts = S.data.facts.map((x) => (x.id === id ? fresh : x));
    S.editing.delete(id);
    say(S.T.saved);
  } else if (res.status === 404) {
    dropItem("fact", id);
    say(res.error, true);
  } else {
    draft.error = res.error;
  }
  renderMemory();
}

// ---------- deleting with undo ----------

function removeItem(kind, id) {
  const key = `${kind}:${id}`;
  if (S.pending.has(key)) return;
  if (kind === "fact") S.editing.delete(id);
  S.pending.set(key, { kind, id, sent: false, timer: setTimeout(() => commitDelete(key, false), UNDO_MS) });
  renderMemory();
  showToast();
}

async function commitDelete(key, keepalive) {
  const p = S.pending.get(key);
  if (!p || p.sent) return;
  clearTimeout(p.timer);
  p.sent = true;
  showToast();
  const res = await api("DELETE", `api/${p.kind}s/${p.id}`, undefined, keepalive);
  if (S.pending.get(key) !== p) return; // "forget everything" happened meanwhile
  S.pending.delete(key);
  if (res.ok || res.status === 404) dropItem(p.kind, p.id);
  else say(res.error, true); // the row comes back
  renderMemory();
}

function undoDeletes() {
  for (const [key, p] of S.pending) {
    if (p.sent) continue;
    clearTimeout(p.timer);
    S.pending.delete(key);
  }
  renderMemory();
  showToast();
}

// The page is going away: send the waiting deletes now.
function flushDeletes() {
  for (const key of [...S.pending.keys()]) commitDelete(key, true);
}

function dropItem(kind, id) {
  const d = S.data;
  if (kind === "topic" || kind === "reminder") {
    d[`${kind}s`] = d[`${kind}s`].filter((x) => x.id !== id);
    if (kind === "topic") for (const g of d.groups) g.topics = g.topics.filter((t) => t.id !== id);
    return;
  }
  d.facts = d.facts.filter((f) => f.id !== id);
  d.wishes = d.wishes.filter((w) => w.id !== id);
  for (const g of d.groups) g.facts = g.facts.filter((f) => f.id !== id);
  d.relations = d.relations.filter((r) => r.source !== id && r.target !== id);
}

function showToast() {
  const waiting = [...S.pending.values()].filter((p) => !p.sent).length;
  const toast = $("#toast");
  toast.hidden = !waiting;
  if (waiting) toast.querySelector(".message").textContent = S.T.deleted(waiting);
}

// ---------- settings ----------

function settingsSection() {
  const T = S.T;
  const toggle = (id, label, onchange) => h("label", { class: "switch" },
    h("span", { text: label }), h("input", { id, type: "checkbox", role: "switch", onchange }));
  const onToggle = (name) => async (e) => {
    const box = e.target;
    box.disabled = true;
    await patchSettings({ [name]: box.checked });
  };
  return h("section", { id: "settings", class: "card" },
    h("h2", { text: T.settings }),
    h("p", { id: "persona", hidden: true }), // who they talk with, above the settings' labelled rows
    h("p", { class: "label", text: T.zone }),
    h("p", { id: "zone" }),
    h("form", { id: "zone-form", class: "row", onsubmit: (e) => { e.preventDefault(); saveZone(); } },
      h("input", { id: "zone-input", type: "text", placeholder: T.zoneHint, autocomplete: "off", "aria-label": T.zone }),
      h("button", { id: "zone-save", type: "submit", class: "primary", text: T.save })),
    h("button", { id: "zone-auto", type: "button", text: T.zoneAuto, onclick: () => patchSettings({ timezone: null }) }),
    toggle("checkins", T.checkins, onToggle("checkins")),
    h("p", { id: "checkins-note", class: "hint", text: T.checkinsOff, hidden: true }),
    toggle("memory", T.memory, onToggle("memory")),
    h("p", { id: "voice-label", class: "label", text: T.voice, hidden: true }),
    h("p", { id: "voice", hidden: true }),
    h("p", { id: "voice-note", class: "hint", text: T.voiceHint, hidden: true }),
    h("p", { id: "settings-error", class: "error", role: "alert" }));
}

function updateSettings() {
  const s = S.data.settings;
  $("#persona").hidden = !S.data.persona;
  $("#persona").textContent = S.data.persona ? S.T.persona(S.data.persona) : "";
  $("#zone").textContent = (s.timezone || S.T.zoneUnset) + (s.zone_origin ? ` (${s.zone_origin})` : "");
  $("#zone-auto").hidden = s.zone_chosen === false; // already automatic: nothing to put back
  const checkins = $("#checkins"), memory = $("#memory");
  checkins.checked = !!s.checkins;
  checkins.disabled = s.checkins_available === false;
  $("#checkins-note").hidden = s.checkins_available !== false;
  memory.checked = s.memory !== false;
  memory.disabled = false;
  const speaks = typeof s.voice === "string"; // null: the owner set no speech model
  for (const id of ["#voice-label", "#voice", "#voice-note"]) $(id).hidden = !speaks;
  $("#voice").textContent = speaks ? s.voice : "";
}

async function patchSettings(body) {
  const error = $("#settings-error");
  const res = await api("PATCH", "api/settings", body);
  if (res.ok && res.data.settings) {
    S.data.settings = res.data.settings;
    error.textContent = "";
    say(S.T.saved);
  } else {
    error.textContent = res.error || S.T.failed;
  }
  updateSettings();
  renderMemory(); // the header's memory line and the topics' dates follow the settings
  return res.ok;
}

async function saveZone() {
  const input = $("#zone-input");
  const zone = input.value.trim();
  if (!zone) {
    input.focus();
    return;
  }
  if (await patchSettings({ timezone: zone })) input.value = "";
}

// ---------- actions: add, export, forget ----------

function actionsSection() {
  const T = S.T;
  const d = S.data;
  const options = d.categories.map((cat) => h("option", { value: cat, text: d.category_names[cat] || cat }));
  const field = (label, input) => h("label", { class: "field" }, h("span", { class: "label", text: label }), input);
  return h("section", { id: "actions" },
    h("div", { class: "card" },
      h("h2", { text: T.add }),
      h("form", { id: "add-form", onsubmit: (e) => { e.preventDefault(); addFact(e.target); } },
        field(T.category, h("select", { name: "category" }, ...options)),
        field(T.valueLabel, h("input", { name: "value", type: "text", autocomplete: "off" })),
        field(T.whenLabel, h("input", { name: "when", type: "text", placeholder: T.whenHint, autocomplete: "off" })),
        h("p", { class: "error", role: "alert" }),
        h("button", { type: "submit", class: "primary wide", text: T.addButton }))),
    h("div", { class: "card buttons-card" },
      h("button", { id: "export", type: "button", class: "wide", text: T.exportButton, onclick: exportAll }),
      h("button", { id: "forget-all", type: "button", class: "wide danger", text: T.forgetButton, onclick: openConfirm })));
}

async function addFact(form) {
  const input = (name) => form.elements.namedItem(name);
  const value = input("value").value.trim();
  const when = input("when").value.trim().replace(/^(\d{4}-\d{2}-\d{2}) +(\d)/, "$1T$2");
  const error = form.querySelector(".error");
  if (!value) {
    input("value").focus();
    return;
  }
  const body = { category: input("category").value, value };
  if (when) body.when = when;
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  const res = await api("POST", "api/facts", body);
  button.disabled = false;
  if (res.ok && res.data.fact) {
    S.data.facts.push(res.data.fact);
    input("value").value = "";
    input("when").value = "";
    error.textContent = "";
    renderMemory();
    say(S.T.added);
  } else {
    error.textContent = res.error || S.T.failed;
  }
}

async function exportAll(e) {
  const button = e.currentTarget;
  button.disabled = true;
  const res = await api("POST", "api/export", {});
  button.disabled = false;
  if (res.ok) say(S.T.exported);
  else say(res.error, true);
}

function openConfirm() {
  const texts = S.data.texts || {};
  const box = $("#confirm");
  $("#confirm-text").textContent = texts.forget_ask || `${S.T.forgetButton}?`;
  box.querySelector(".yes").textContent = texts.forget_yes || S.T.forgetButton;
  box.querySelector(".no").textContent = texts.forget_no || S.T.cancel;
  box.querySelectorAll("button").forEach((b) => { b.disabled = false; });
  box.hidden = false;
  box.querySelector(".no").focus();
}

function closeConfirm() {
  $("#confirm").hidden = true;
  $("#forget-all")?.focus();
}

async function forgetAll() {
  const box = $("#confirm");
  box.querySelectorAll("button").forEach((b) => { b.disabled = true; });
  const res = await api("POST", "api/forget", { confirm: true });
  closeConfirm();
  if (!res.ok) {
    say(res.error, true);
    return;
  }
  for (const p of S.pending.values()) clearTimeout(p.timer);
  S.pending.clear();
  S.editing.clear();
  showToast();
  Object.assign(S.data, { name: null, facts: [], wishes: [], relations: [], reminders: [], topics: [] });
  renderMemory();
  say(S.T.forgotten(res.data.messages ?? 0, res.data.facts ?? 0));
}

// ---------- start ----------

function normalize(data) {
  const d = data && typeof data === "object" ? data : {};
  for (const k of ["facts", "wishes", "relations", "reminders", "topics", "categories", "replies", "groups"]) {
    if (!Array.isArray(d[k])) d[k] = [];
  }
  for (const g of d.groups) for (const k of ["facts", "topics", "replies"]) if (!Array.isArray(g[k])) g[k] = [];
  for (const k of ["category_names", "settings", "texts"]) if (!d[k] || typeof d[k] !== "object") d[k] = {};
  return d;
}

function renderAll() {
  $("#app").replaceChildren($("#status"), h("div", { id: "lists" }), settingsSection(), actionsSection());
  renderMemory();
  updateSettings();
  $("#toast .undo").textContent = S.T.undo;
}

async function load() {
  $("#retry")?.remove();
  document.body.classList.add("loading");
  const res = await api("GET", "api/memory");
  document.body.classList.remove("loading");
  if (!res.ok) {
    say(res.error, true);
    if (res.status !== 401) $("#app").append(h("button", { id: "retry", type: "button", text: S.T.retry, onclick: load }));
  } else {
    S.data = normalize(res.data);
    setLanguage(S.data.language);
    renderAll();
    say("");
  }
  if (!document.body.classList.contains("ready")) finishFirstRender();
}

function start() {
  S.init = readInitData();
  setLanguage(guessLanguage(S.init));
  startTheme();
  if (!S.init) {
    say(S.T.noInit, true);
    $("#status").classList.remove("bad"); // a hint, not an error
    finishFirstRender();
    return;
  }
  $("#toast .undo").addEventListener("click", undoDeletes);
  $("#confirm .no").addEventListener("click", closeConfirm);
  $("#confirm .yes").addEventListener("click", forgetAll);
  $("#confirm").addEventListener("click", (e) => { if (e.target.id === "confirm") closeConfirm(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !$("#confirm").hidden) closeConfirm(); });
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") flushDeletes(); });
  window.addEventListener("pagehide", flushDeletes);
  load();
}

start();
