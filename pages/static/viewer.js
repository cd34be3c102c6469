"use strict";
(function () {
// The replay viewer, shared by every game's page: the page holds only its game, as the
// deflated, base64'd JSON of pages/viewer.py (page_data), in #replay-data, from which
// steps.js (CircusSteps, loaded before this file) rebuilds every step and its tables.
const LAYOUT = `<header>
  <h1 id="title"></h1>
  <div class="sub" id="sub"></div>
  <div class="controls">
    <button type="button" id="first" title="first step (Home)">&#8676;</button>
    <button type="button" id="prev" title="previous step (&#8592;)">&#9664;</button>
    <button type="button" id="play" title="play or pause (space)">&#9654; play</button>
    <button type="button" id="next" title="next step (&#8594;)">&#9654;</button>
    <button type="button" id="last" title="last step (End)">&#8677;</button>
    <input type="range" id="slider" min="0" value="0" aria-label="step">
    <span id="stepLabel"></span>
    <label>view <select id="view" aria-label="perspective"></select></label>
    <label>speed <select id="speed" aria-label="speed">
      <option value="1200">slow</option><option value="600" selected>normal</option>
      <option value="250">fast</option></select></label>
  </div>
</header>
<main>
  <section id="table" aria-label="the table"></section>
  <aside>
    <div class="box" id="decisionBox"><h2 id="decisionTitle"></h2><div id="decision"></div>
      <ol id="actions" start="0"></ol></div>
    <div class="box"><h2>What happened</h2><ul id="events"></ul></div>
    <div class="box"><h2>Result</h2><p id="over"></p><table class="result" id="result"></table></div>
    <div class="box"><details id="raw"><summary id="rawTitle"></summary><pre id="rawText"></pre>
      </details>
      <div class="muted"><kbd>&#8592;</kbd> <kbd>&#8594;</kbd> step, <kbd>space</kbd> play,
        <kbd>Home</kbd> <kbd>End</kbd></div></div>
  </aside>
</main>`;

// The page's data: inflated by the browser (DecompressionStream reads file: pages too).
async function loadReplay() {
  const text = document.getElementById("replay-data").textContent.trim();
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return JSON.parse(await new Response(stream).text());
}

// Resolves once the first step is drawn (tests wait on it: the data loads after the page).
// A page that cannot be shown (a record its rules refuse) says why in one line.
window.replayLoaded = loadReplay().then((data) => {
  document.body.insertAdjacentHTML("afterbegin", LAYOUT);
  showReplay(data);
}).catch((error) => {
  const note = document.createElement("p");
  note.id = "failed";
  note.textContent = "This replay cannot be shown: " + error.message;
  document.body.prepend(note);
  throw error;
});

function showReplay(data) {
  const meta = data.meta, frames = CircusSteps.rebuild(data), looks = {};
  // The views the page holds, as meta.views lists them: 0 the omniscient one or what every
  // seat saw, s + 1 seat s's (frame.v's order).
  const viewAt = (view) => view.seat === null ? 0 : view.seat + 1;
  const viewable = meta.views.map(viewAt);
  const last = frames.length - 1;
  const $ = (id) => document.getElementById(id);
  const state = { step: 0, view: 0, timer: null, hashTimer: null, scroll: 0 };

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }
  const seatName = (seat) => "seat " + seat + " \u00b7 " + meta.seats[seat];
  // The seat whose view is shown; null for every card, or what every seat saw.
  const viewSeat = () => state.view === 0 ? null : state.view - 1;

  // A card is its id ("" face down; "*id": the other seats know it), drawn from its look.
  function card(code) {
    if (code === "") return el("div", { class: "card back", title: "face down" });
    const seen = code[0] === "*", id = seen ? code.slice(1) : code;
    const c = looks[id] || (looks[id] = CircusSteps.look(meta.game, id));
    const node = el("div", { class: "card" + (c.word ? " word" : "") + (seen ? " seen" : ""),
                             "data-card": id, title: c.small ? c.big + " \u00b7 " + c.small : c.big,
                             style: "--tone:" + c.tone },
                    [el("b", { text: c.big, "data-short": c.short || c.big }),
                     el("i", { text: c.word ? "" : c.small })]);
    return node;
  }

  function zone(z) {
    const cap = el("div", { class: "cap", text: z.title },
                   [z.note ? el("span", { class: "note", text: z.note }) : null]);
    if (z.style === "earth") {
      return el("div", { class: "zone", "data-zone": z.title },
                [cap, el("div", { class: "earth", text: z.note.split(" ")[0] })]);
    }
    return el("div", { class: "zone z-" + z.style, "data-zone": z.title },
              [cap, el("div", { class: "cards" }, z.cards.map(card))]);
  }

  function seatPanel(s, decision) {
    const chips = s.stats.map(([k, v]) => el("span", { class: "chip", text: k + " " + v }));
    const flags = s.flags.map((f) => el("span", { class: "chip flag", text: f }));
    const deciding = decision && decision.seat === s.seat;
    if (deciding) flags.unshift(el("span", { class: "chip flag", text: "deciding: " + decision.kind }));
    const classes = "seat" + (deciding ? " deciding" : "") +
                    (viewSeat() === s.seat ? " viewer" : "");
    return el("div", { class: classes, "data-seat": s.seat },
              [el("h3", {}, [el("span", { class: "name", text: seatName(s.seat) }), ...chips, ...flags]),
               el("div", { class: "zones" }, s.zones.map(zone))]);
  }

  function drawTable(frame) {
    const view = frame.v[state.view];
    const seats = view.seats;
    const home = viewSeat() === null ? 0 : viewSeat();
    const table = $("table");
    table.replaceChildren();
    table.appendChild(el("div", { class: "row" },
      seats.filter((s) => s.seat !== home).map((s) => seatPanel(s, frame.d))));
    const center = el("div", { class: "center" }, view.center.map(zone));
    table.appendChild(center);
    if (view.note) table.appendChild(el("div", { class: "tablenote", text: view.note }));
    table.appendChild(el("div", { class: "row" },
      seats.filter((s) => s.seat === home).map((s) => seatPanel(s, frame.d))));
  }

  function drawDecision(frame) {
    const d = frame.d, box = $("decision"), list = $("actions");
    box.replaceChildren();
    list.replaceChildren();
    if (!d) {
      $("decisionTitle").textContent = "Game over";
      box.appendChild(el("p", { text: "The game ended: " + meta.endWords + "." }));
      return;
    }
    $("decisionTitle").textContent = "Decision " + d.n + " of " + last + ": " + seatName(d.seat);
    const about = d.actions ? d.prompt : "another seat's decision: its choices are not shown here";
    box.appendChild(el("div", {}, [el("b", { text: d.kind }),
                                   el("span", { class: "muted", text: " \u2014 " + about })]));
    if (d.actions) {
      box.appendChild(el("div", { class: "time", text: d.ms === null
        ? "no reply timed: the referee chose (substituted)"
        : "decided in " + d.ms.toFixed(d.ms < 10 ? 2 : 1) + " ms" }));
    }
    for (const f of d.faults) {
      box.appendChild(el("div", { class: "fault", text: "fault: " + f["class"] + " (" + f.policy +
                                                        ") \u2014 " + f.detail }));
    }
    if (!d.actions) return;
    d.actions.forEach((label, i) => list.appendChild(
      el("li", { class: i === d.chosen ? "chosen" : "", title: d.codes[i], text: label })));
    // Scrolled once the frame is drawn: reading offsetTop now would lay the page out
    // at every step of a fast walk.
    cancelAnimationFrame(state.scroll);
    state.scroll = requestAnimationFrame(() => {
      const chosen = list.children[d.chosen];
      if (chosen) list.scrollTop = Math.max(0, chosen.offsetTop - list.offsetTop - 60);
    });
  }

  function drawEvents(frame) {
    const list = $("events");
    list.replaceChildren();
    const seat = viewSeat();
    for (let i = frame.e[0]; i < frame.e[1]; i++) {
      const [text, to] = data.events[i];
      if (seat !== null && to !== null && !to.includes(seat)) continue;
      const hidden = to !== null;
      const whom = hidden && seat === null ? "  (seen by seat " + to.join(", ") + " only)" : "";
      list.appendChild(el("li", { class: hidden ? "private" : "", text: text + whom }));
    }
    if (!list.children.length) list.appendChild(el("li", { class: "muted",
      text: state.step === 0 ? "the deal" : "nothing visible" }));
  }

  function drawResult(frame) {
    const rows = meta.seats.map((name, seat) => seat).sort((a, b) => meta.ranks[a] - meta.ranks[b]);
    const table = $("result");
    table.replaceChildren(el("tr", {}, ["rank", "seat", "bot", "score"].map((h) => el("th", { text: h }))));
    for (const seat of rows) {
      table.appendChild(el("tr", { class: meta.ranks[seat] === 1 ? "first" : "" }, [
        el("td", { class: "num", text: String(meta.ranks[seat]) }),
        el("td", { class: "num", text: String(seat) }), el("td", { text: meta.seats[seat] }),
        el("td", { class: "num", text: String(meta.scores[seat]) })]));
    }
    $("over").textContent = frame.d ? "" : "Game over: " + meta.endWords + ".";
  }

  function drawRaw(frame) {
    const raw = frame.o[state.view];
    $("raw").hidden = raw === null;
    $("rawTitle").textContent = viewSeat() === null ? "The whole position (engine state)"
      : "Observation as sent to seat " + viewSeat();
    if ($("raw").open) $("rawText").textContent = JSON.stringify(raw, null, 1);
  }

  function show() {
    const frame = frames[state.step];
    drawTable(frame);
    drawDecision(frame);
    drawEvents(frame);
    drawResult(frame);
    drawRaw(frame);
    $("slider").value = String(state.step);
    $("stepLabel").textContent = (frame.d ? "decision " + frame.d.n + " of " + last
      : "end of the game") + " \u00b7 turn " + frame.v[state.view].turn;
    const root = document.documentElement;
    root.dataset.step = String(state.step);
    root.dataset.view = String(state.view);
    // The address keeps the step and view (a link can open there), written once the
    // stepping pauses: Chrome throttles a page that rewrites its history at every step.
    clearTimeout(state.hashTimer);
    state.hashTimer = setTimeout(() => {
      try { history.replaceState(null, "", "#step=" + state.step + "&view=" + state.view); }
      catch (error) { /* some file: URLs refuse it; the page works without */ }
    }, 300);
  }

  function go(step) {
    state.step = Math.max(0, Math.min(last, step));
    show();
  }
  function setView(view) {
    state.view = viewable.includes(view) ? view : viewable[0];
    $("view").value = String(state.view);
    show();
  }
  function play(on) {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    if (on) {
      if (state.step === last) go(0);
      state.timer = setInterval(() => {
        if (state.step >= last) play(false); else go(state.step + 1);
      }, Number($("speed").value));
    }
    $("play").textContent = state.timer ? "\u275a\u275a pause" : "\u25b6 play";
  }

  $("title").textContent = meta.title;
  $("sub").textContent = meta.gameTitle + " (" + meta.variant + "), " + meta.seats.length +
    " seats: " + meta.seats.map((n, s) => s + "=" + n).join(", ") +
    (meta.seed ? " \u00b7 seed " + meta.seed : "") + " \u00b7 " + last +
    " decisions \u00b7 ended: " + meta.endWords;
  const select = $("view");
  meta.views.forEach((view) => select.appendChild(
    el("option", { value: String(viewAt(view)), text: view.label })));
  $("slider").max = String(last);
  $("slider").addEventListener("input", (e) => { play(false); go(Number(e.target.value)); });
  select.addEventListener("change", (e) => setView(Number(e.target.value)));
  $("first").addEventListener("click", () => { play(false); go(0); });
  $("prev").addEventListener("click", () => { play(false); go(state.step - 1); });
  $("next").addEventListener("click", () => { play(false); go(state.step + 1); });
  $("last").addEventListener("click", () => { play(false); go(last); });
  $("play").addEventListener("click", () => play(!state.timer));
  $("speed").addEventListener("change", () => { if (state.timer) play(true); });
  $("raw").addEventListener("toggle", () => drawRaw(frames[state.step]));
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT") return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in moves) { play(false); go(state.step + moves[e.key]); }
    else if (e.key === "Home") { play(false); go(0); }
    else if (e.key === "End") { play(false); go(last); }
    else if (e.key === " ") play(!state.timer);
    else return;
    e.preventDefault();
  });
  const wanted = new URLSearchParams(location.hash.slice(1));
  const view = Number(wanted.get("view")) || 0;
  state.view = viewable.includes(view) ? view : viewable[0];
  select.value = String(state.view);
  window.replay = { go, setView, play, steps: last + 1, frames };
  go(Number(wanted.get("step")) || 0);
  document.documentElement.dataset.ready = "1";
}
})();
