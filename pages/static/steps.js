"use strict";
// Each step of a replay page, rebuilt from the page's data (pages/viewer.py),
// and its tables, drawn from the engine's state and the seats' observations: the port of
// referee/tables.py, which stays the reference (tests/test_replay_viewer.py runs this file
// under node over games of every kind and table size and compares every step's tables
// with Python's). A table is {center: [zone], seats: [seat]}; a zone {title, cards, note,
// style}; a card its id, "" face down, "*id" known to the others. No DOM here: the
// viewer (viewer.js) draws what this makes.
const CircusSteps = (function () {
const rules = typeof CircusRules !== "undefined" ? CircusRules : require("./rules.js");
const SEEN = "*";
const UPCOMING = 6;  // the omniscient view shows this many of a hidden pile's next cards

function zone(title, cards, note, style) {
  return { title, cards: cards || [], note: note || "", style: style || "row" };
}
const backs = (count) => new Array(Math.max(0, count)).fill("");

function pileZone(title, count, upcoming) {
  const note = count + " card" + (count !== 1 ? "s" : "");
  if (upcoming && upcoming.length) {
    return zone(title, upcoming.slice(0, UPCOMING), note + (count > 1 ? ", next first" : ""),
                "mini");
  }
  return zone(title, backs(Math.min(count, 1)), note, "stack");
}

function seatEntry(seat, zones, stats, flags) {
  return { seat, zones, stats, flags: flags || [] };
}

// -- Amazing Flea Circus ----------------------------------------------------------------
const FLEA_TONES = { A: "#c0392b", B: "#d35400", C: "#b7950b", D: "#27ae60", E: "#16a085",
                     F: "#2e86c1", G: "#7d3c98" };
const FLEA_ACTIONS = { numbers: ["In Numbers", "N", "In Numbers There Is Strength"],
                       counterattack: ["Counter-attack", "CA", "Animal Counterattack"],
                       recruitment: ["Recruit-ment", "R", "Recruitment"],
                       general: ["General", "Gen", "General Saving the Earth"] };
const FLEA_VALUES = { A: 2, B: 2, C: 3, D: 3, E: 3, F: 4, G: 4 };

const fleaCard = (card) => typeof card === "string" ? card : card.saucer || card.kind;

function fleaLook(code) {
  if (code in FLEA_ACTIONS) {
    const [word, short, name] = FLEA_ACTIONS[code];
    return { big: word, short, small: name, tone: "#4a235a", word: 1 };
  }
  return { big: code, small: "saucer \u00b7 " + (code in FLEA_VALUES ? FLEA_VALUES[code] : "?") +
           " loot", tone: FLEA_TONES[code] || "#555" };
}

function fleaTable(pub, hands, deck) {
  const seats = pub.loot.map((loot, seat) => {
    const hand = hands[seat];
    const cards = typeof hand === "number" ? backs(hand) : hand.map(fleaCard);
    const pile = pub.piles[seat].cards.map(fleaCard);
    return seatEntry(seat, [zone("Hand", cards),
                            zone("Pile", pile, pile.length > 1 ? "top last" : "", "mini")],
                     [["loot", loot]], pub.skipping[seat] ? ["skipping"] : []);
  });
  const center = [zone("Earth", [], pub.earth + " loot left", "earth"),
                  pileZone("Deck", pub.deck_size,
                           deck === null ? null : deck.slice(0, UPCOMING).map(fleaCard))];
  return { center, seats, turn: pub.turn };
}

function fleaSeatView(seat, obs) {
  return fleaTable(obs, obs.hand_sizes.map((size, other) => other === seat ? obs.hand : size),
                   null);
}

const fleaOmniscient = (state, observations) =>
  fleaTable(observations[0], state.hands, state.deck);

// -- Circus Flohcati --------------------------------------------------------------------
const FLOH_TONES = { red: "#c0392b", orange: "#e67e22", yellow: "#d4ac0d", green: "#27ae60",
                     teal: "#138d90", blue: "#2e86c1", purple: "#7d3c98", pink: "#d63384",
                     brown: "#8d5524", grey: "#707b7c" };
const FLOH_ACTIONS = { "take-a-card": ["Take a Card", "Take"],
                       "open-the-deck": ["Open the Deck", "Open"],
                       "pick-a-card": ["Pick a Card", "Pick"],
                       "nueva-atraccion": ["Nueva atracci\u00f3n", "Nueva"],
                       "atraerse": ["Atraerse", "Atr."],
                       "solicitar": ["Solicitar Atracci\u00f3n", "Sol."] };

function flohCard(card, seen) {
  const code = typeof card === "string" ? card : card.code;
  return seen ? SEEN + code : code;
}

function flohLook(code) {
  const cut = code.lastIndexOf("-");
  const colour = cut < 0 ? "" : code.slice(0, cut), value = code.slice(cut + 1);
  if (colour in FLOH_TONES && /^[0-9]+$/.test(value)) {
    return { big: value, small: colour, tone: FLOH_TONES[colour] };
  }
  const [title, short] = FLOH_ACTIONS[code] || [code, code.slice(0, 4)];
  return { big: title, short, small: "action card", tone: "#1c2833", word: 1 };
}

function flohCenter(pub, deck, display, discard, match) {
  const center = [
    pileZone("Deck", pub.deck_size,
             deck === null ? null : deck.slice(0, UPCOMING).map((c) => flohCard(c))),
    zone("Display", display.map((c) => flohCard(c)), pub.flips_this_turn + " flipped this turn")];
  if (match) center.push(zone("Matching card", [flohCard(match)]));
  center.push(zone("Discard", discard.slice(-8).map((c) => flohCard(c)),
                   discard.length + " cards" + (discard.length > 8 ? ", last 8" : ""), "mini"));
  if (pub.action_card) {
    center.push(zone("Action card", [flohCard(pub.action_card)], pub.requested_colour || ""));
  }
  return center;
}

function flohTrios(pub, seat) {
  const trios = pub.trios[seat].trios;
  const cards = [].concat(...trios.map((trio) => trio.cards.map((c) => flohCard(c))));
  return zone("Trios", cards, trios.length ? trios.length + " \u00d7 10 points" : "none yet",
              "mini");
}

function flohOmniscient(state, observations) {
  const pub = observations[0];
  const seats = state.hands.map((hand, seat) => seatEntry(seat,
    [zone("Hand", hand.map((c) => flohCard(c))), flohTrios(pub, seat)],
    [["points", state.scores[seat]], ["cards", hand.length]],
    state.gala_caller === seat ? ["gala"] : []));
  return { center: flohCenter(pub, state.deck, state.display, state.discard, state.matching_card),
           seats, turn: pub.turn, note: pub.reason };
}

function flohSeatView(seat, obs) {
  const knownOf = obs.known_cards.map((held) => held.cards.map((c) => c.code));
  const entries = obs.hand_sizes.map((size, holder) => {
    let cards, note;
    if (holder === seat) {
      const seen = new Set(knownOf[seat]);
      cards = obs.hand.map((c) => flohCard(c, seen.has(c.code)));
      note = seen.size ? "\u2022 known to the others" : "";
    } else {
      const known = knownOf[holder];
      cards = known.map((c) => flohCard(c)).concat(backs(size - known.length));
      note = known.length ? known.length + " of " + size + " known" : "";
    }
    return seatEntry(holder, [zone("Hand", cards, note), flohTrios(obs, holder)],
                     [["cards", size]]);
  });
  return { center: flohCenter(obs, null, obs.display, obs.discard, obs.matching_card),
           seats: entries, turn: obs.turn, note: obs.reason };
}

// -- Animal Circus ----------------------------------------------------------------------
const ANIMAL_TONES = ["#b03a2e", "#1f618d", "#1e8449", "#b9770e", "#6c3483"];
// referee/games/animal_circus.py's NAMES, by value.
const ANIMAL_NAMES = ["", "Mole Diver", "Power Mouse", "Jumping Turtle", "Rabbit Archer",
  "Bungee Bat", "Magic Penguin", "Camel Cyclist", "Old Dog Musician", "Cheating Cheetah",
  "Chameleon in Disguise", "Parrot Ventriloquist", "Sneaky Rat", "Seal Juggler",
  "Kangaroo Boxer", "Acrobat Monkey", "Crocodile Snapper", "Owl Fortune-Teller",
  "Giraffe Stilt-Walker", "Bear Unicyclist", "Tiger Hoop-Jumper", "Elephant Strongman",
  "Lion King"];

const animalCard = (card) => card.value + "-" + card.color;
const animalCards = (cards) => cards.map(animalCard);

function animalLook(code) {
  const [value, colour] = code.split("-").map(Number);
  return { big: String(value), small: ANIMAL_NAMES[value] || "", tone: ANIMAL_TONES[colour % 5] };
}

// A value as Python's str() writes it in a note (None for a missing one).
const pyText = (value) => value === undefined || value === null ? "None" : String(value);

function animalCenter(pub, ring, outOfGame) {
  const rules = pub.constraints || {};
  const binding = [["Bat: play lower than " + pyText(rules.lower_than), rules.bat],
                   ["Parrot: play a card just drawn", rules.parrot],
                   ["Bear: no draw this turn", rules.bear]]
    .filter(([, on]) => on).map(([text]) => text);
  return [zone("Ring", animalCards(ring), binding.join("; ") || "bottom first"),
          zone("Out of the game", animalCards(outOfGame), "", "mini")];
}

function animalOmniscient(state, observations) {
  const pub = observations[0];
  const seats = state.hands.map((hand, seat) => {
    const draw = state.draw_piles[seat];
    return seatEntry(seat, [
      zone("Hand", animalCards(hand)),
      pileZone("Draw pile", draw.length, animalCards(draw.slice(0, UPCOMING))),
      zone("Score pile", animalCards(state.score_piles[seat]), "", "mini"),
      zone("Put away", animalCards(state.put_away[seat]), "unseen by all", "mini")],
      [["points", pub.scores[seat]], ["cards", hand.length]]);
  });
  return { center: animalCenter(pub, state.ring, state.out_of_game), seats, turn: pub.turn };
}

function animalSeatView(seat, obs) {
  const entries = obs.hand_sizes.map((size, holder) => {
    const mine = holder === seat;
    const drawSize = obs.draw_sizes[holder];
    const known = mine ? animalCards(obs.known_draw_top) : [];
    const draw = zone("Draw pile", known.concat(backs(Math.min(1, drawSize - known.length))),
                      drawSize + " cards" +
                        (known.length ? ", top " + known.length + " known" : ""),
                      known.length ? "mini" : "stack");
    return seatEntry(holder, [
      zone("Hand", mine ? animalCards(obs.hand) : backs(size)), draw,
      zone("Score pile", animalCards(obs.score_piles[holder].cards), "", "mini"),
      zone("Put away", backs(obs.put_away_per_player), "unseen by all", "stack")],
      [["points", obs.scores[holder]], ["cards", size]]);
  });
  return { center: animalCenter(obs, obs.ring, obs.out_of_game), seats: entries, turn: obs.turn };
}

const GAMES = {
  "flea-circus": { omniscient: fleaOmniscient, seat: fleaSeatView, look: fleaLook },
  "flohcati": { omniscient: flohOmniscient, seat: flohSeatView, look: flohLook },
  "animal-circus": { omniscient: animalOmniscient, seat: animalSeatView, look: animalLook },
};

// One change of pages/viewer.py (changes): [path, value] sets what the path leads to,
// [path, start, removed, inserted] splices a list; the parts on the path are copied.
function changed(root, op) {
  const path = op[0];
  function at(node, depth) {
    if (depth === path.length) {
      if (op.length === 2) return op[1];
      const list = node.slice();
      list.splice(op[1], op[2], ...op[3]);
      return list;
    }
    const copy = Array.isArray(node) ? node.slice() : { ...node };
    copy[path[depth]] = at(node[path[depth]], depth + 1);
    return copy;
  }
  return at(root, 0);
}

// Each step of the game: its tables (v: the omniscient one, or what every seat saw, then
// each seat's; null for a view the page does not hold), what they are drawn from (o: the
// engine's state, then each seat's observation), the decision (d) and its events (e: a
// range of data.events). A page of a record is replayed with the games' rules; a page of
// some seats' views is rebuilt from the changes it holds.
function rebuildSteps(data) {
  return data.record ? replayedSteps(data) : viewedSteps(data);
}

// Competition ranks, as referee/games/base.py's ranks_from_scores: ties share a rank.
const ranksOf = (scores) => scores.map((own) => 1 + scores.filter((other) => other > own).length);

// The steps of a page of a record (pages/viewer.py, record_data): the game replayed with
// its rules (rules.js), which also give the page its events, scores and end.
function replayedSteps(data) {
  const meta = data.meta, record = data.record, game = GAMES[meta.game];
  const played = rules.replay(meta.game, meta.variant, meta.seats.length, meta.seed,
                              record.actions);
  meta.scores = played.scores;
  meta.ranks = meta.ranks || ranksOf(played.scores);
  meta.endReason = played.endReason;
  meta.endWords = meta.endWords[played.endReason] || played.endReason || "not ended";
  data.events = played.events;
  let start = 0;
  return played.frames.map((frame, step) => {
    const made = frame.decision, observations = frame.observations;
    const d = made === null ? null : {
      n: step + 1, seat: made.seat, kind: made.kind, prompt: made.prompt,
      actions: made.actions.map((action) => action[1]),
      codes: made.actions.map((action) => action[0]), chosen: record.actions[step],
      ms: record.ms[step], faults: record.faults[step + 1] || [] };
    const tables = observations.map((seen, seat) => game.seat(seat, seen));
    const e = [start, frame.end];
    start = frame.end;
    return { v: [game.omniscient(frame.state, observations), ...tables],
             o: [frame.state, ...observations], d, e };
  });
}

// The steps of a page of some seats' views (pages/viewer.py, page_data), rebuilt from the
// changes it holds: a change copies only the path it sets, so the steps share what they
// did not change.
function viewedSteps(data) {
  const meta = data.meta, shown = meta.shown, game = GAMES[meta.game];
  // The column before the observations: the table every seat saw, if the page is public.
  const whole = meta.public ? 1 : 0;
  const frames = [];
  let views = data.views.map(() => undefined), start = 0;
  data.ends.forEach((end, step) => {
    views = views.map((view, i) => data.views[i][step].reduce(changed, view));
    // The seats' observations: the first whole, each other as what differs from it.
    const apart = views.slice(whole, -1), first = apart[0];
    const observations = meta.seats.map(() => null);
    shown.forEach((seat, k) => {
      observations[seat] = k === 0 ? first
        : Array.isArray(apart[k]) ? apart[k][0] : { ...first, ...apart[k] };
    });
    const tables = observations.map((seen, seat) =>
      seen === null ? null : game.seat(seat, seen));
    const decision = views[views.length - 1];
    frames.push({ v: [meta.public ? views[0] : null, ...tables], o: [null, ...observations],
                  d: decision === null ? null : { n: step + 1, ...decision }, e: [start, end] });
    start = end;
  });
  return frames;
}

return {
  rebuild: rebuildSteps,
  // How a card looks, by its id: {big, small, tone}, with short and word for a named card.
  look: (game, code) => GAMES[game].look(code),
};
})();
if (typeof module !== "undefined") module.exports = CircusSteps;
