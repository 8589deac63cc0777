// The page: draws what the server sends and posts what a person picks. No rule of any game
// is written here: the table comes as zones of cards, the moves as the engine's choice tree.
"use strict";

const $ = (selector) => document.querySelector(selector);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  // a game answers only requests that carry its secret, which its creation answered with
  if (path.startsWith("/api/games/") && page.secret) options.headers["X-Game-Secret"] = page.secret;
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ state
const page = {
  catalog: null,
  mode: "play",
  session: null, // {id, state}
  secret: null, // the session's secret: sent with every request about it
  names: [],
  seat: null,
  run: 0, // bumped to stop a running animation or watch loop
  replay: null, // {frames, index, names}
  paused: false,
};

function pace() {
  return Number($("#pace").value);
}

function gameInfo(name) {
  return page.catalog.games.find((game) => game.name === name);
}

// ------------------------------------------------------------------ drawing the table
function cardNode(card) {
  if (card.face_down) return el("span", { class: "card back", title: "face down" });
  const classes = ["card", card.color ? `c-${card.color}` : "c-plain"];
  return el("span", { class: classes.join(" "), title: card.label }, card.label);
}

function zoneNode(zone, extra) {
  return el(
    "div",
    { class: `zone${zone.highlight ? " turn" : ""}` },
    el("div", { class: "zone-title" }, zone.title, extra ? el("span", { class: "who" }, ` ${extra}`) : null),
    el("div", { class: "cards" }, zone.cards.map(cardNode)),
    zone.note ? el("div", { class: "note" }, zone.note) : null,
  );
}

function drawTable(table, names) {
  const root = $("#table");
  root.replaceChildren();
  if (!table.view) {
    root.append(el("pre", { class: "text-table" }, table.text));
    return;
  }
  const view = table.view;
  root.append(
    el("div", { class: "table-header" }, view.header),
    el("div", { class: "centre" }, view.centre.map((zone) => zoneNode(zone))),
    el("div", { class: "players" }, view.players.map((zone, seat) =>
      zoneNode(zone, names[seat] && !zone.title.includes(`(${names[seat]})`) ? names[seat] : null))),
    el("div", { class: "footer" }, view.footer),
  );
}

function logMove(frame, names) {
  if (frame.player === null || frame.player === undefined) {
    $("#log").replaceChildren(el("li", { class: "deal", value: 0 }, frame.move));
    return;
  }
  const who = names[frame.player] || "";
  const item = el("li", { value: frame.step, "data-player": frame.player },
    el("b", {}, `player_${frame.player}${who ? ` (${who})` : ""}: `), frame.move);
  $("#log").append(item);
  item.scrollIntoView({ block: "nearest" });
}

function drawResult(result) {
  const box = $("#result");
  if (!result) {
    box.hidden = true;
    return;
  }
  const keys = [...new Set(result.seats.flatMap((seat) => Object.keys(seat.info)))];
  const rows = [...result.seats].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  box.replaceChildren(
    el("h3", {}, result.truncated ? "Stopped at the step cap (ranked by cards held)" : "Game over"),
    el("table", { class: "results" },
      el("tr", {}, el("th", {}, "rank"), el("th", {}, "player"), el("th", {}, "who"), keys.map((k) => el("th", {}, k))),
      rows.map((seat) => el("tr", { class: seat.who === "you" ? "you" : null },
        el("td", {}, String(seat.rank)), el("td", {}, seat.name), el("td", {}, seat.who),
        keys.map((k) => el("td", {}, seat.info[k] === undefined ? "" : String(seat.info[k])))))),
  );
  box.hidden = false;
}

// ------------------------------------------------------------------ choices (the engine's tree)
function drawChoices(groups, path = []) {
  const root = $("#choices");
  root.replaceChildren();
  if (!groups.length) return;
  let current = groups;
  const trail = [];
  for (const step of path) {
    trail.push(step.label);
    current = step.then;
  }
  root.append(el("div", { class: "prompt" }, "Your move", trail.length ? `: ${trail.join(" → ")}` : ""));
  if (path.length) {
    root.append(el("button", { class: "back", onclick: () => drawChoices(groups, path.slice(0, -1)) }, "← back"));
  }
  for (const group of current) {
    root.append(
      el("div", { class: "group" },
        el("div", { class: "group-title" }, group.title),
        group.choices.map((choice) => choiceButton(choice, groups, path))),
    );
  }
  markPlayable();
}

// A card of the person's hand is clickable where the moves shown name it: it presses the one
// button whose label has the card's code as a word (or, several, points at them).
const words = (text) => text.split(/[\s,;:()]+/).filter(Boolean);

function markPlayable() {
  if (page.seat === null || page.mode !== "play") return;
  const zone = document.querySelectorAll("#table .players .zone")[page.seat];
  if (!zone) return;
  const buttons = [...document.querySelectorAll("#choices button.choice")];
  for (const card of zone.querySelectorAll(".card:not(.back)")) {
    const code = card.textContent;
    const matching = buttons.filter((button) => words(button.querySelector(".label").textContent).includes(code));
    card.classList.toggle("playable", matching.length > 0);
    card.onclick = null; // the moves of an earlier step are gone
    if (!matching.length) continue;
    card.title = matching.map((button) => button.querySelector(".label").textContent).join(" | ");
    card.onclick = () => {
      if (matching.length === 1) matching[0].click();
      else for (const button of buttons) button.classList.toggle("pointed", matching.includes(button));
    };
  }
}

function choiceButton(choice, groups, path) {
  const inner = choice.action === undefined;
  const button = el(
    "button",
    {
      class: `choice${choice.warn ? " warn" : ""}${inner ? " inner" : ""}`,
      "data-action": inner ? null : String(choice.action),
      title: choice.note || null,
    },
    el("span", { class: "label" }, choice.label + (inner ? " …" : "")),
    choice.note ? el("span", { class: "choice-note" }, choice.note) : null,
  );
  button.addEventListener("click", () => {
    if (choice.warn && !button.classList.contains("armed")) {
      button.classList.add("armed");
      button.querySelector(".label").textContent = `${choice.label}: click again to confirm`;
      return;
    }
    if (inner) drawChoices(groups, [...path, choice]);
    else playMove(choice.action);
  });
  return button;
}

// ------------------------------------------------------------------ playing and watching
async function showFrames(frames, names, seat, run) {
  for (const [index, frame] of frames.entries()) {
    if (run !== page.run) return false;
    page.step = frame.step;
    drawTable(frame.table, names);
    logMove(frame, names);
    const others = frame.player !== null && frame.player !== seat;
    if (others && index < frames.length - 1 && pace() > 0) await sleep(pace());
    else if (others && pace() > 0) await sleep(pace() / 2);
  }
  return run === page.run;
}

function setStatus(text) {
  const controls = $("#controls");
  let status = $("#status");
  if (!status) {
    status = el("div", { id: "status" });
    controls.prepend(status);
  }
  status.textContent = text;
}

function settle(state) {
  drawTable(state.table, state.names);
  drawResult(state.result);
  drawChoices(state.your_turn ? state.choices : []);
  if (state.your_turn) $("#choices").scrollIntoView({ block: "nearest" });
  $("#legend").textContent = state.legend;
  if (state.result) setStatus("game over");
  else if (state.your_turn) setStatus(`your turn (${state.phase})`);
  else setStatus(`player_${state.current} to move (${state.phase})`);
  document.body.dataset.phase = state.result ? "over" : state.your_turn ? "yours" : "waiting";
  if (state.people.length > 1 && !state.result) schedulePoll(page.run);
}

// ------------------------------------------------------------------ friends at one table
// With other people at the table the page asks every second for the moves made since the
// last one it showed (also on its own turn: the server counts a silent page as gone and lets
// its seat's stand-in play after a while). ?poll=MS in the address sets the interval.
const POLL_MS = Math.max(100, Number(new URLSearchParams(location.search).get("poll")) || 1000);

function schedulePoll(run) {
  if (page.polling) return;
  page.polling = setTimeout(async () => {
    page.polling = null;
    if (run !== page.run || !page.session) return;
    try {
      const data = await api("GET", `/api/games/${page.session.id}?since=${page.step}`);
      page.session = data;
      if (data.frames.length || data.state.your_turn !== (document.body.dataset.phase === "yours")) {
        if (await showFrames(data.frames, data.state.names, page.seat, run)) settle(data.state);
      } else schedulePoll(run);
    } catch (error) {
      showError(error.message);
    }
  }, POLL_MS);
}

function inviteLinks(invites) {
  if (!invites.length) return null;
  const link = (invite) => `${location.origin}/#game=${page.session.id}&secret=${invite.secret}`;
  return el("div", { id: "invites" },
    el("p", { class: "hint" }, "Send each friend their link (it is their seat: keep it between you):"),
    invites.map((invite) => el("label", { class: "invite" }, `player_${invite.seat} `,
      el("input", { type: "text", readonly: true, value: link(invite), "data-seat": String(invite.seat) }))));
}

async function playMove(action) {
  if (!page.session) return;
  const run = page.run;
  $("#choices").replaceChildren();
  document.body.dataset.phase = "waiting";
  try {
    const data = await api("POST", `/api/games/${page.session.id}/move`, { action });
    page.session = data;
    if (await showFrames(data.frames, data.state.names, page.seat, run)) settle(data.state);
  } catch (error) {
    showError(error.message);
    try {
      settle((await api("GET", `/api/games/${page.session.id}`)).state);
    } catch {
      setStatus("this game is gone (it expired): deal a new one"); // the error above says why
      document.body.dataset.phase = "gone";
    }
  }
}

function readRules(info) {
  const rules = {};
  for (const rule of info.rules) {
    const input = document.getElementById(`rule-${rule.name}`);
    if (rule.kind === "bool") rules[rule.name] = input.checked;
    else if (rule.kind === "int") rules[rule.name] = Number(input.value);
    else if (rule.kind === "float") rules[rule.name] = Number(input.value);
    else rules[rule.name] = input.value;
  }
  return rules;
}

function readSeats() {
  // {friends: the seats friends take, opponents: the spec of each other agent's seat}
  const friends = [];
  const opponents = [];
  for (const row of document.querySelectorAll("#opponents .opponent")) {
    const select = row.querySelector("select");
    if (select.value === PERSON) friends.push(Number(select.dataset.seat));
    else opponents.push(select.value === "custom" ? row.querySelector("input").value.trim() : select.value);
  }
  return { friends, opponents };
}

async function startGame(event) {
  event.preventDefault();
  showError("");
  const info = gameInfo($("#game").value);
  const watching = page.mode === "watch";
  const seed = $("#seed").value === "" ? null : Number($("#seed").value);
  const { friends, opponents } = readSeats();
  const yours = Number($("#seat").value);
  const body = {
    game: info.name,
    players: Number($("#players").value),
    rules: readRules(info),
    seat: watching ? null : friends.length ? [yours, ...friends] : yours,
    opponents,
    seed,
  };
  page.run += 1;
  const run = page.run;
  let data;
  try {
    if (page.session) await api("DELETE", `/api/games/${page.session.id}`).catch(() => null);
    data = await api("POST", "/api/games", body);
  } catch (error) {
    showError(error.message);
    return;
  }
  openBoard(data, data.secret, data.invites);
  if (!(await showFrames(data.frames, data.state.names, page.seat, run))) return;
  settle(data.state);
  if (watching) watchLoop(run);
}

function openBoard(data, secret, invites) {
  // the board of a game just dealt or joined (the seat is the one the secret is for)
  page.session = data;
  page.secret = secret;
  page.seat = data.state.seat;
  page.step = -1;
  page.paused = false;
  $("#setup").hidden = true;
  $("#board").hidden = false;
  $("#side").hidden = false;
  $("#result").hidden = true;
  $("#controls").replaceChildren(
    el("div", { id: "status" }),
    el("button", { id: "new-game", onclick: () => { $("#setup").hidden = false; } }, "new game…"),
    el("span", { class: "hint", id: "seed-note" }, `seed ${data.state.seed}`),
    inviteLinks(invites),
  );
}

async function joinGame(id, secret) {
  // a friend's invite link: /#game=ID&secret=SECRET (after the #, so no request carries it)
  page.run += 1;
  const run = page.run;
  page.secret = secret;
  try {
    const data = await api("GET", `/api/games/${encodeURIComponent(id)}?since=-1`);
    openBoard(data, secret, []);
    if (await showFrames(data.frames, data.state.names, page.seat, run)) settle(data.state);
  } catch (error) {
    showError(`cannot join this game: ${error.message}`);
  }
}

function watchControls(run) {
  const pause = el("button", { id: "pause", onclick: () => {
    page.paused = !page.paused;
    pause.textContent = page.paused ? "resume" : "pause";
    if (!page.paused) watchLoop(run);
  } }, "pause");
  const step = el("button", { id: "step", onclick: () => watchLoop(run, 1) }, "one move");
  $("#controls").append(pause, step);
}

async function watchLoop(run, only) {
  if (!$("#pause")) watchControls(run);
  if (page.watching) return;
  page.watching = true;
  try {
    while (run === page.run && page.session && !page.session.state.result && (only || !page.paused)) {
      const steps = only || (pace() > 0 ? 1 : 50);
      const data = await api("POST", `/api/games/${page.session.id}/advance`, { steps });
      page.session = data;
      if (!(await showFrames(data.frames, data.state.names, null, run))) return;
      settle(data.state);
      if (only) return;
      if (pace() > 0) await sleep(pace() / 2);
    }
  } catch (error) {
    showError(error.message);
  } finally {
    page.watching = false;
  }
}

// ------------------------------------------------------------------ the setup form
function ruleInput(rule) {
  const id = `rule-${rule.name}`;
  let input;
  if (rule.kind === "bool") input = el("input", { id, type: "checkbox", checked: rule.default });
  else if (rule.options) {
    input = el("select", { id }, rule.options.map((o) => el("option", { value: o, selected: o === rule.default }, o)));
  } else input = el("input", { id, type: rule.kind === "str" ? "text" : "number", value: String(rule.default) });
  return el("label", {}, rule.name, " ", input);
}

// a seat that a friend takes: their stand-in plays it while they are away
const PERSON = "person";

function opponentRow(info, seat, players) {
  const runs = info.runs.filter((run) => run.players.includes(players));
  const select = el("select", { "data-seat": seat },
    info.presets.map((p) => el("option", { value: p.spec }, p.label)),
    runs.map((r) => el("option", { value: r.spec }, r.label)),
    el("option", { value: "custom" }, "other spec…"),
    page.mode === "watch" ? null : el("option", { value: PERSON }, "a friend (invite link)"));
  const custom = el("input", { type: "text", placeholder: "e.g. rule:" + info.knobs.map((k) => `${k.name}=${k.default}`).slice(0, 2).join(":"), hidden: true });
  select.addEventListener("change", () => { custom.hidden = select.value !== "custom"; });
  return el("div", { class: "opponent" }, el("span", {}, `player_${seat}`), select, custom);
}

function refreshSetup() {
  const info = gameInfo($("#game").value);
  const players = $("#players");
  players.min = info.min_players;
  players.max = info.max_players;
  const count = Math.min(Math.max(Number(players.value) || info.default_players, info.min_players), info.max_players);
  players.value = count;
  const seat = $("#seat");
  const chosen = Math.min(Number(seat.value) || 0, count - 1);
  seat.replaceChildren(...Array.from({ length: count }, (_, s) => el("option", { value: s, selected: s === chosen }, `player_${s}`)));
  const rules = $("#rules");
  rules.replaceChildren(el("legend", {}, "rules"), ...info.rules.map(ruleInput));
  const watching = page.mode === "watch";
  $("#seat-label").hidden = watching;
  const opponents = $("#opponents");
  const before = new Map([...opponents.querySelectorAll(".opponent")].map((row) =>
    [row.querySelector("select").dataset.seat, [row.querySelector("select").value, row.querySelector("input").value]]));
  const seats = Array.from({ length: count }, (_, s) => s).filter((s) => watching || s !== chosen);
  const knobs = info.knobs.map((k) => `${k.name}=${k.default}`).join(", ");
  opponents.replaceChildren(el("legend", {}, watching ? "agents" : "opponents"), ...seats.map((s) => opponentRow(info, s, count)),
    el("p", { class: "hint" }, `rule-based knobs: ${knobs}`));
  for (const row of opponents.querySelectorAll(".opponent")) {
    // keep what was picked for a seat, when the same game offers it
    const select = row.querySelector("select");
    const [kept, custom] = before.get(select.dataset.seat) || [];
    if (kept && [...select.options].some((option) => option.value === kept) && opponents.dataset.game === info.name) {
      select.value = kept;
      row.querySelector("input").value = custom;
      row.querySelector("input").hidden = kept !== "custom";
    }
  }
  opponents.dataset.game = info.name;
}

function setupGames() {
  const select = $("#game");
  select.replaceChildren(...page.catalog.games.map((g) => el("option", { value: g.name }, g.title)));
  const uno = page.catalog.games.find((g) => g.name === "uno");
  if (uno) select.value = "uno";
  $("#players").value = gameInfo(select.value).default_players;
  refreshSetup();
}

// ------------------------------------------------------------------ folder listings
// The records or the reports of the server's folders, each a button that opens it.
async function listFolder(kind, { noFolders, none, pick, open }) {
  const list = $(`#${kind}s`);
  list.replaceChildren();
  if (!page.catalog[`${kind}s`]) {
    $(`#${kind}s-hint`).textContent = noFolders;
    return;
  }
  const items = (await api("GET", `/api/${kind}s`))[`${kind}s`];
  $(`#${kind}s-hint`).textContent = items.length ? pick : none;
  for (const item of items) {
    const [name, label] = typeof item === "string" ? [item, item] : [item.name, item.label];
    list.append(el("li", {}, el("button", { class: kind, "data-path": name, onclick: () => open(name) }, label)));
  }
}

// ------------------------------------------------------------------ replay
const listRecords = () => listFolder("record", {
  noFolders: "Start the server with --records DIR (a folder from evaluate.py --record DIR) to replay games.",
  none: "No .jsonl records in the records folders.",
  pick: "Pick a record:",
  open: openRecord,
});

async function openRecord(name) {
  showError("");
  page.run += 1;
  let data;
  try {
    data = await api("GET", `/api/records/open?path=${encodeURIComponent(name)}`);
  } catch (error) {
    showError(error.message);
    return;
  }
  page.replay = { ...data, index: 0 };
  $("#board").hidden = false;
  $("#side").hidden = false;
  $("#choices").replaceChildren();
  $("#legend").textContent = data.legend;
  const slider = el("input", { id: "replay-slider", type: "range", min: 0, max: data.frames.length - 1, value: 0 });
  slider.addEventListener("input", () => replayTo(Number(slider.value)));
  const go = (delta) => () => replayTo(page.replay.index + delta);
  const play = el("button", { id: "replay-play", onclick: () => replayPlay(play) }, "play");
  $("#controls").replaceChildren(
    el("div", { id: "status" }, `${data.game}, ${data.players} players, seed ${data.seed}: ${data.names.join(", ")}`),
    el("button", { id: "replay-first", onclick: () => replayTo(0) }, "|◀ first"),
    el("button", { id: "replay-back", onclick: go(-1) }, "◀ back"),
    el("button", { id: "replay-next", onclick: go(1) }, "next ▶"),
    el("button", { id: "replay-last", onclick: () => replayTo(data.frames.length - 1) }, "last ▶|"),
    play, slider, el("span", { id: "replay-step" }),
  );
  replayTo(0);
}

function replayTo(index) {
  const replay = page.replay;
  replay.index = Math.max(0, Math.min(index, replay.frames.length - 1));
  const frame = replay.frames[replay.index];
  drawTable(frame.table, replay.names);
  $("#log").replaceChildren();
  for (const past of replay.frames.slice(Math.max(0, replay.index - 30), replay.index + 1)) logMove(past, replay.names);
  $("#replay-slider").value = replay.index;
  $("#replay-step").textContent = `move ${replay.index} of ${replay.frames.length - 1}`;
  drawResult(replay.index === replay.frames.length - 1 ? replay.result : null);
}

async function replayPlay(button) {
  if (button.textContent === "pause") {
    page.run += 1;
    button.textContent = "play";
    return;
  }
  page.run += 1;
  const run = page.run;
  button.textContent = "pause";
  while (run === page.run && page.replay.index < page.replay.frames.length - 1) {
    replayTo(page.replay.index + 1);
    await sleep(Math.max(pace(), 30));
  }
  button.textContent = "play";
}

// ------------------------------------------------------------------ reports
const listReports = () => listFolder("report", {
  noFolders: "Start the server with --reports DIR (evaluate.py --out DIR writes one) to read reports.",
  none: "No report.md in the reports folders.",
  pick: "Pick a report:",
  open: openReport,
});

const fileUrl = (folder, file) => `/api/reports/file?path=${encodeURIComponent(`${folder}/${file}`)}`;

function inline(text, folder) {
  // `code`, **bold**, and plain text; links and images are handled per line
  const parts = [];
  const pattern = /(`[^`]+`|\*\*[^*]+\*\*)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(last, match.index));
    const token = match[0];
    parts.push(token.startsWith("`") ? el("code", {}, token.slice(1, -1)) : el("b", {}, token.slice(2, -2)));
    last = match.index + token.length;
  }
  parts.push(text.slice(last));
  return parts;
}

function renderMarkdown(text, folder) {
  // the subset report.md uses: headings, pipe tables, lists, images, paragraphs
  const out = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const image = line.match(/^!\[([^\]]*)\]\(([^)]+)\)/);
    const heading = line.match(/^(#{1,4})\s+(.*)/);
    if (image) out.push(el("img", { src: fileUrl(folder, image[2]), alt: image[1], class: "plot" }));
    else if (heading) out.push(el(`h${heading[1].length + 1}`, {}, inline(heading[2], folder)));
    else if (line.startsWith("|")) {
      const rows = [];
      while (i < lines.length && lines[i].startsWith("|")) rows.push(lines[i++]);
      i -= 1;
      const cells = (row) => row.replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim());
      const body = rows.filter((row) => !/^\|[\s:|-]+\|$/.test(row));
      out.push(el("table", { class: "md" }, body.map((row, r) =>
        el("tr", {}, cells(row).map((cell) => el(r === 0 ? "th" : "td", {}, inline(cell, folder)))))));
    } else if (/^\s*[-*] /.test(line)) {
      const items = [];
      while (i < lines.length && /^\s*[-*] /.test(lines[i])) items.push(lines[i++].replace(/^\s*[-*] /, ""));
      i -= 1;
      out.push(el("ul", {}, items.map((item) => el("li", {}, inline(item, folder)))));
    } else if (line.trim()) out.push(el("p", {}, inline(line, folder)));
  }
  return out;
}

async function openReport(name) {
  showError("");
  try {
    const response = await fetch(fileUrl(name, "report.md"));
    if (!response.ok) throw new Error((await response.json()).error);
    const text = await response.text();
    $("#report-view").replaceChildren(...renderMarkdown(text, name));
    $("#report-view").hidden = false;
  } catch (error) {
    showError(error.message);
  }
}

// ------------------------------------------------------------------ modes
function setMode(mode) {
  page.mode = mode;
  page.run += 1;
  for (const button of document.querySelectorAll("#modes button")) button.classList.toggle("active", button.dataset.mode === mode);
  document.body.dataset.mode = mode;
  const game = mode === "play" || mode === "watch";
  $("#setup").hidden = !game;
  $("#setup-title").textContent = mode === "watch" ? "Watch agents play" : "New game";
  $("#records-panel").hidden = mode !== "replay";
  $("#reports-panel").hidden = mode !== "report";
  $("#report-view").hidden = true;
  $("#board").hidden = true;
  $("#side").hidden = true;
  $("#controls").replaceChildren();
  $("#choices").replaceChildren();
  $("#log").replaceChildren();
  page.paused = false;
  if (game) refreshSetup();
  if (mode === "replay") listRecords().catch((error) => showError(error.message));
  if (mode === "report") listReports().catch((error) => showError(error.message));
}

async function main() {
  const params = new URLSearchParams(location.search);
  if (params.has("pace")) $("#pace").value = params.get("pace");
  const paceLabel = () => { $("#pace-label").textContent = `${(pace() / 1000).toFixed(2)} s`; };
  $("#pace").addEventListener("input", paceLabel);
  paceLabel();
  try {
    page.catalog = await api("GET", "/api/catalog");
  } catch (error) {
    showError(`cannot reach the server: ${error.message}`);
    return;
  }
  setupGames();
  $("#game").addEventListener("change", () => {
    $("#players").value = gameInfo($("#game").value).default_players;
    refreshSetup();
  });
  $("#players").addEventListener("change", refreshSetup);
  $("#seat").addEventListener("change", refreshSetup);
  $("#setup-form").addEventListener("submit", startGame);
  for (const button of document.querySelectorAll("#modes button")) button.addEventListener("click", () => setMode(button.dataset.mode));
  setMode(params.get("mode") || "play");
  const invite = new URLSearchParams(location.hash.slice(1));
  if (invite.has("game") && invite.has("secret")) await joinGame(invite.get("game"), invite.get("secret"));
  document.body.dataset.ready = "1";
}

main();
