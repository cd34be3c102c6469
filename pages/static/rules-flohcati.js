"use strict";
// Circus Flohcati's rules: the port of referee/games/flohcati.py, the reference, for the
// replay viewer (both variants, en and es). Names follow the Python's; its caches are left
// out, since a replay asks each position once. Hands and knowledge are Sets, shown sorted
// in the canonical card order, and every draw from the RNG is made on the same list in the
// same order as the Python makes it, so a seed deals the same game.
(function (rules) {
  const COLOURS = ["red", "orange", "yellow", "green", "teal",
                   "blue", "purple", "pink", "brown", "grey"];
  const VALUES = [0, 1, 2, 3, 4, 5, 6, 7];
  const ACTION_KINDS = {
    en: ["take-a-card", "open-the-deck", "pick-a-card"],
    es: ["nueva-atraccion", "atraerse", "solicitar"],
  };
  const ACTION_COPIES = 3;
  const CARD_TITLES = {
    "take-a-card": "Take a Card",
    "open-the-deck": "Open the Deck",
    "pick-a-card": "Pick a Card",
    "nueva-atraccion": "Nueva atracción",
    "atraerse": "Atraerse",
    "solicitar": "Solicitar Atracción",
  };
  const TRIO_POINTS = 10;
  const GALA_BONUS = { en: 10, es: 0 };
  // es lays trios only after taking a card; en during any turn.
  const TRIO_NEEDS_A_CARD = { en: false, es: true };
  // en forbids the Gala after a bust; es still reaches the end of the turn.
  const GALA_AFTER_BUST = { en: false, es: true };
  const DECISION_LIMIT = 2000;
  const DIRECTIONS = ["cw", "ccw"];
  const DIRECTION_NAMES = { cw: "clockwise", ccw: "counter-clockwise" };
  const EndReason = { GALA: "gala", DECK_EMPTY: "deck-empty", DECISION_LIMIT: "decision-limit" };

  // -- cards ------------------------------------------------------------------
  // Each circus card's colour and value; every card's rank in the canonical order (the
  // circus cards by colour then value, then the action kinds of en, then of es).
  const CIRCUS = new Map();
  for (const colour of COLOURS) {
    for (const value of VALUES) CIRCUS.set(colour + "-" + value, [colour, value]);
  }
  const CARD_RANKS = new Map([...CIRCUS.keys(), ...ACTION_KINDS.en, ...ACTION_KINDS.es]
    .map((card, rank) => [card, rank]));

  const isCircus = (card) => CIRCUS.has(card);
  const colourOf = (card) => CIRCUS.get(card)[0];
  const valueOf = (card) => CIRCUS.get(card)[1];
  const sortCards = (cards) => [...cards].sort((a, b) => CARD_RANKS.get(a) - CARD_RANKS.get(b));

  function fullDeck(variant) {
    const deck = [...CIRCUS.keys()];
    for (const kind of ACTION_KINDS[variant]) {
      for (let copy = 0; copy < ACTION_COPIES; copy++) deck.push(kind);
    }
    return deck;
  }

  function cardName(card) {
    return isCircus(card) ? valueOf(card) + "-" + colourOf(card) : CARD_TITLES[card];
  }

  // The FlohcatiCard message of each card, made once and frozen: observations share them.
  const CARD_MESSAGES = new Map([...CARD_RANKS.keys()].map((card) => [card, Object.freeze(
    isCircus(card) ? { kind: "circus", colour: colourOf(card), value: valueOf(card), code: card }
                   : { kind: card, code: card })]));
  const cardsMessage = (cards) => [...cards].map((card) => CARD_MESSAGES.get(card));

  function handPoints(hand) {
    const best = new Map();
    for (const card of hand) {
      if (!isCircus(card)) continue;
      const [colour, value] = CIRCUS.get(card);
      if (value > (best.get(colour) || 0)) best.set(colour, value);
    }
    let sum = 0;
    for (const value of best.values()) sum += value;
    return sum;
  }

  // Every set of three same-value cards: by value, then in itertools.combinations' order of
  // the sorted cards, the order the Python offers them in.
  function possibleTrios(hand) {
    const trios = [];
    for (const value of VALUES) {
      const same = sortCards([...hand].filter((card) => isCircus(card) && valueOf(card) === value));
      for (let i = 0; i < same.length; i++) {
        for (let j = i + 1; j < same.length; j++) {
          for (let k = j + 1; k < same.length; k++) trios.push([same[i], same[j], same[k]]);
        }
      }
    }
    return trios;
  }

  function hasEveryColour(hand) {
    if (hand.size < COLOURS.length) return false;
    return new Set([...hand].filter(isCircus).map(colourOf)).size === COLOURS.length;
  }

  const action = (code, label, payload) => ({ code, label, payload });

  // The method listing each phase's legal actions.
  const ACTIONS_BY_PHASE = {
    "turn": "turnActions",
    "nueva": "turnActions",
    "open-take": "takeActions",
    "match": "matchActions",
    "target": "targetActions",
    "give": "giveActions",
    "request": "requestActions",
    "end-of-turn": "endOfTurnActions",
  };

  class FlohcatiState {
    constructor(players, variant, rng) {
      if (!(variant in ACTION_KINDS)) {
        throw new Error("flohcati has no variant " + JSON.stringify(variant));
      }
      this.numPlayers = players;
      this.variant = variant;
      this.rng = rng;
      this.decisions = 0;
      this.events = [];
      this.endReason = "";
      this.deck = fullDeck(variant);
      rng.shuffle(this.deck);
      const seats = () => Array.from({ length: players }, () => new Set());
      this.hands = seats();
      this.display = [];
      this.discard = [];
      this.trios = Array.from({ length: players }, () => []);
      // known[observer][holder]: the cards observer knows for certain holder holds.
      this.known = Array.from({ length: players }, seats);
      this.player = 0;
      this.turn = 0;
      this.flips = 0;
      this.tookCard = false;
      this.galaCaller = -1;
      this.newDecisionContext();
      this.phase = "turn";
    }

    newDecisionContext() {
      this.actionCard = "";
      this.opening = false;
      this.giver = -1;
      this.requestedColour = "";
      this.direction = "";
      this.match = "";
    }

    emit(text, visibleTo = null) {
      this.events.push({ text, visibleTo });
    }

    // -- queries ------------------------------------------------------------------
    currentSeat() {
      return this.phase === "give" ? this.giver : this.player;
    }

    decisionKind() {
      return this.endReason ? "" : this.phase;
    }

    prompt() {
      return this.reason();
    }

    opponents(seat) {
      const count = this.numPlayers;
      return Array.from({ length: count - 1 }, (_, step) => (seat + step + 1) % count);
    }

    legalActions() {
      return this.endReason ? [] : this[ACTIONS_BY_PHASE[this.phase]]();
    }

    takeActions() {
      return this.display.map((card, index) => action(
        "take:" + index, "take " + cardName(card) + " from the display", { type: "take", index }));
    }

    turnActions() {
      const actions = this.takeActions();
      if (this.deck.length) {
        actions.push(action("flip", "flip the top card of the deck", { type: "flip" }));
      }
      if (this.variant === "es" && (this.flips || !this.deck.length)) {
        actions.push(action("stop", "end the turn without taking a card", { type: "stop" }));
      }
      return actions;
    }

    matchActions() {
      const name = cardName(this.match);
      return [...this.takeActions(),
              action("take:match", "take the matching card " + name, { type: "take-match" }),
              action("stop", "take nothing (" + name + " is discarded)", { type: "stop" })];
    }

    targetActions() {
      return this.targets().map((seat) => action(
        "target:" + seat,
        `${CARD_TITLES[this.actionCard]}: seat ${seat} (${this.hands[seat].size} cards)`,
        { type: "target", target: seat }));
    }

    giveActions() {
      return this.givable().map((card) => action(
        "give:" + card, `give ${cardName(card)} to seat ${this.player}`, { type: "give", card }));
    }

    requestActions() {
      const directions = this.numPlayers > 2 ? DIRECTIONS : DIRECTIONS.slice(0, 1);
      return COLOURS.flatMap((colour) => directions.map((direction) => action(
        `colour:${colour}:${direction}`, `ask for ${colour}, going ${DIRECTION_NAMES[direction]}`,
        { type: "request", colour, direction })));
    }

    endOfTurnActions() {
      const hand = this.hands[this.player];
      const trios = this.mayLayTrios() ? possibleTrios(hand) : [];
      const actions = trios.map((trio) => action(
        "trio:" + trio.join(","),
        `lay down a trio of ${valueOf(trio[0])}s: ` + trio.map(cardName).join(", "),
        { type: "trio", cards: trio }));
      if (!hasEveryColour(hand)) {
        return [...actions, action("done", "end the turn", { type: "done" })];
      }
      return [...actions,
              action("gala:yes", `call the Gala (+${GALA_BONUS[this.variant]}): the game ends`,
                     { type: "gala", call: true }),
              action("gala:no", "end the turn without calling the Gala",
                     { type: "gala", call: false })];
    }

    mayLayTrios() {
      return this.tookCard || !TRIO_NEEDS_A_CARD[this.variant];
    }

    targets() {
      return this.opponents(this.player).filter((seat) => this.hands[seat].size);
    }

    givable() {
      const colour = this.requestedColour;
      const hand = [...this.hands[this.giver]];
      return sortCards(colour ? hand.filter((card) => colourOf(card) === colour) : hand);
    }

    reason() {
      if (this.endReason) return `the game is over (${this.endReason})`;
      const seat = this.player, phase = this.phase;
      const title = CARD_TITLES[this.actionCard] || "";
      if (phase === "turn") {
        const stop = this.variant === "es" && (this.flips || !this.deck.length) ? " (or stop)" : "";
        return `seat ${seat}: take a card from the display or flip${stop}`;
      }
      if (phase === "nueva") {
        return `seat ${seat} (Nueva atracción): flip on, take a face-up card or stop`;
      }
      if (phase === "match") {
        return `seat ${seat} (Nueva atracción): ${cardName(this.match)} matches the ` +
               "display; take a face-up card or it, or nothing";
      }
      if (phase === "open-take") {
        return `seat ${seat} (Open the Deck): take a card from the display`;
      }
      if (phase === "target") return `seat ${seat} (${title}): choose an opponent`;
      if (phase === "give") {
        const asked = this.requestedColour ? `, ${this.requestedColour} asked for` : "";
        return `seat ${this.giver}: choose a card to give to seat ${seat} (${title}${asked})`;
      }
      if (phase === "request") return `seat ${seat} (${title}): name a colour and a direction`;
      if (!this.mayLayTrios()) {
        return `seat ${seat}: end the turn (or call the Gala); no card taken, so no trio`;
      }
      return `seat ${seat}: lay down trios, then end the turn (or call the Gala)`;
    }

    observation(seat) {
      const giving = this.phase === "give";
      const observation = {
        seat,
        variant: this.variant,
        current_player: this.player,
        deciding_seat: giving ? this.giver : this.player,
        decision: this.endReason ? "" : this.phase,
        action_card: this.actionCard,
        giver: giving ? this.giver : -1,
        receiver: giving ? this.player : -1,
        requested_colour: this.requestedColour,
        direction: this.direction,
        reason: this.reason(),
        hand: cardsMessage(sortCards(this.hands[seat])),
        display: cardsMessage(this.display),
        discard: cardsMessage(this.discard),
        trios: this.trios.map((laid) => ({ trios: laid.map((trio) => (
          { value: valueOf(trio[0]), cards: cardsMessage(trio) })) })),
        hand_sizes: this.hands.map((hand) => hand.size),
        known_cards: this.knownCards(seat),
        deck_size: this.deck.length,
        flips_this_turn: this.flips,
        turn: this.turn,
        decisions: this.decisions,
        gala_bonus: GALA_BONUS[this.variant],
        colours: [...COLOURS],
        opening: this.opening,
      };
      if (this.match) observation.matching_card = CARD_MESSAGES.get(this.match);
      return observation;
    }

    // The public part made once: each seat's observation is the first's with its own seat,
    // hand and known cards.
    observations() {
      const first = this.observation(0);
      return [first, ...this.opponents(0).map((seat) => ({
        ...first, seat, hand: cardsMessage(sortCards(this.hands[seat])),
        known_cards: this.knownCards(seat) }))];
    }

    // What seat knows of every hand; of its own, what all the others know.
    knownCards(seat) {
      return this.known[seat].map((cards, holder) => ({
        cards: cardsMessage(sortCards(holder === seat ? this.ownKnown(seat) : cards)) }));
    }

    ownKnown(seat) {
      const [first, ...rest] = this.opponents(seat).map((other) => this.known[other][seat]);
      return [...first].filter((card) => rest.every((known) => known.has(card)));
    }

    scores() {
      return this.hands.map((hand, seat) => handPoints(hand) + TRIO_POINTS * this.trios[seat].length
                            + (seat === this.galaCaller ? GALA_BONUS[this.variant] : 0));
    }

    finalState() {
      return {
        hands: this.hands.map(sortCards),
        trios: this.trios.map((laid) => laid.map((trio) => [...trio])),
        display: [...this.display],
        discard: [...this.discard],
        deck: [...this.deck],
        matching_card: this.match,
        gala_caller: this.galaCaller,
        turns: this.turn,
        scores: this.scores(),
        end_reason: this.endReason,
      };
    }

    // -- applying decisions --------------------------------------------------------
    apply(chosen) {
      const payload = chosen.payload;
      this.decisions++;
      switch (payload.type) {
        case "take": this.takeFromDisplay(payload.index); break;
        case "take-match": this.takeMatch(); break;
        case "flip": this.flipInTurn(); break;
        case "stop": this.stop(); break;
        case "target": this.aim(payload.target); break;
        case "give": this.give(payload.card); break;
        case "request": this.request(payload.colour, payload.direction); break;
        case "trio": this.layTrio(payload.cards); break;
        case "done": this.endTurn(); break;
        default: this.decideGala(payload.call);
      }
      if (!this.endReason && this.decisions >= DECISION_LIMIT) {
        this.endReason = EndReason.DECISION_LIMIT;
        this.emit(`the game ends after ${DECISION_LIMIT} decisions`);
      }
    }

    // -- taking and flipping ---------------------------------------------------------
    takeFromDisplay(index) {
      const [card] = this.display.splice(index, 1);
      this.gainPublicly(this.player, card);
      this.emit(`seat ${this.player} takes ${cardName(card)} from the display`);
      if (this.match) this.discardMatch();  // es: the matching card not taken is discarded
      this.endOfTurnStep();
    }

    takeMatch() {
      const card = this.match;
      this.match = "";
      this.gainPublicly(this.player, card);
      this.emit(`seat ${this.player} takes the matching card ${cardName(card)}`);
      this.endOfTurnStep();
    }

    stop() {
      if (this.match) this.discardMatch();
      this.emit(`seat ${this.player} stops without taking a card`);
      this.endOfTurnStep();
    }

    discardMatch() {
      const card = this.match;
      this.match = "";
      this.discard.push(card);
      this.emit(`${cardName(card)} is discarded`);
    }

    flip() {
      const card = this.deck.shift();
      this.flips++;
      this.emit(`seat ${this.player} flips ${cardName(card)}`);
      return card;
    }

    duplicatesDisplay(card) {
      const colour = colourOf(card);
      return this.display.some((shown) => colourOf(shown) === colour);
    }

    flipInTurn() {
      const card = this.flip();
      if (this.phase === "nueva") {
        this.flipInNueva(card);
      } else if (!isCircus(card)) {
        this.discard.push(card);
        this.carryOut(card);
      } else if (this.duplicatesDisplay(card)) {
        this.discard.push(card);
        this.emit(`${cardName(card)} matches the display: seat ${this.player} is busted`);
        this.afterBust();
      } else {
        this.display.push(card);
      }
    }

    // A bust on the last card ends the game at once in both variants.
    afterBust() {
      if (GALA_AFTER_BUST[this.variant] && this.deck.length) this.endOfTurnStep();
      else this.endTurn();
    }

    // Nueva atracción: actions are void, a match is offered rather than busting.
    flipInNueva(card) {
      if (!isCircus(card)) {
        this.discard.push(card);
        this.emit(`${CARD_TITLES[card]} is discarded without effect`);
      } else if (this.duplicatesDisplay(card)) {
        this.match = card;
        this.phase = "match";
      } else {
        this.display.push(card);
      }
    }

    // -- action cards -------------------------------------------------------------------
    carryOut(card) {
      this.actionCard = card;
      this.emit(`seat ${this.player} carries out ${CARD_TITLES[card]}`);
      if (card === "open-the-deck") {
        this.opening = true;
        this.continueOpening();
      } else if (card === "nueva-atraccion") {
        this.phase = "nueva";
      } else if (card === "solicitar") {
        this.phase = "request";
      } else {
        this.chooseTarget();
      }
    }

    chooseTarget() {
      if (this.targets().length) {
        this.phase = "target";
        return;
      }
      this.emit(`no opponent holds a card: ${CARD_TITLES[this.actionCard]} has no effect`);
      this.afterAction();
    }

    // An action card is resolved: resume an Open the Deck, else end the turn.
    afterAction() {
      this.actionCard = this.opening ? "open-the-deck" : "";
      this.giver = -1;
      this.requestedColour = "";
      this.direction = "";
      if (this.opening) this.continueOpening();
      else this.endOfTurnStep();
    }

    // en Open the Deck: flip until a colour repeats or the deck runs out; an action card
    // needing a decision suspends the flipping and afterAction resumes it.
    continueOpening() {
      while (this.deck.length) {
        const card = this.flip();
        if (isCircus(card) && !this.duplicatesDisplay(card)) {
          this.display.push(card);
          continue;
        }
        this.discard.push(card);
        if (isCircus(card)) {
          this.emit(`${cardName(card)} matches the display: Open the Deck stops`);
          break;
        }
        if (card === "open-the-deck") {
          this.emit("a further Open the Deck has no extra effect");
          continue;
        }
        this.actionCard = card;
        this.emit(`seat ${this.player} carries out ${CARD_TITLES[card]}`);
        if (this.targets().length) {
          this.phase = "target";
          return;
        }
        this.emit(`no opponent holds a card: ${CARD_TITLES[card]} has no effect`);
      }
      this.opening = false;
      this.actionCard = "open-the-deck";
      if (this.display.length) this.phase = "open-take";
      else this.endOfTurnStep();
    }

    aim(target) {
      this.emit(`seat ${this.player} aims ${CARD_TITLES[this.actionCard]} at seat ${target}`);
      if (this.actionCard === "take-a-card") {
        this.giver = target;
        this.phase = "give";
        return;
      }
      const card = this.rng.choice(sortCards(this.hands[target]));
      if (this.actionCard === "pick-a-card") {
        this.movePublicly(target, this.player, card);
        this.emit(`seat ${this.player} picks ${cardName(card)} from seat ${target}`);
      } else {  // atraerse: only the two seats see the card
        this.movePrivately(target, this.player, card);
        this.emit(`seat ${this.player} takes a card from seat ${target}`);
        this.emit(`seat ${this.player} takes ${cardName(card)} from seat ${target}`,
                  [this.player, target].sort((a, b) => a - b));
      }
      this.afterAction();
    }

    request(colour, direction) {
      this.requestedColour = colour;
      this.direction = direction;
      this.emit(`seat ${this.player} asks for ${colour} (${direction})`);
      // Counter-clockwise: one seat back is all but one seats on.
      const step = direction === "cw" ? 1 : this.numPlayers - 1;
      for (let offset = 1; offset < this.numPlayers; offset++) {
        const seat = (this.player + step * offset) % this.numPlayers;
        if ([...this.hands[seat]].some((card) => colourOf(card) === colour)) {
          this.giver = seat;
          this.phase = "give";
          return;
        }
        this.emit(`seat ${seat} has no ${colour} card`);
      }
      this.emit(`nobody holds ${colour}: seat ${this.player} receives nothing`);
      this.afterAction();
    }

    give(card) {
      const giver = this.giver;
      this.movePublicly(giver, this.player, card);
      this.emit(`seat ${giver} gives ${cardName(card)} to seat ${this.player}`);
      this.afterAction();
    }

    // -- knowledge ----------------------------------------------------------------------
    // Cards only ever go to the player on turn, so every gain marks the turn as one that
    // took a card: es trios need one.
    gainPublicly(seat, card) {
      this.tookCard = true;
      this.hands[seat].add(card);
      this.known.forEach((known, observer) => { if (observer !== seat) known[seat].add(card); });
    }

    movePublicly(source, seat, card) {
      this.hands[source].delete(card);
      for (const known of this.known) known[source].delete(card);
      this.gainPublicly(seat, card);
    }

    // Atraerse: the others saw a card go, not which, so none of the source's cards stays
    // certain for them (keeping the untaken ones would tell them which one went).
    movePrivately(source, seat, card) {
      this.hands[source].delete(card);
      this.hands[seat].add(card);
      this.tookCard = true;
      this.known.forEach((known, observer) => {
        if (observer === source || observer === seat) known[source].delete(card);
        else known[source].clear();
      });
      this.known[source][seat].add(card);
    }

    // -- the end of a turn ----------------------------------------------------------------
    // Always a decision, even with nothing to lay or call: skipping it would tell every
    // seat whether the hidden hand holds a trio or all ten colours.
    endOfTurnStep() {
      this.newDecisionContext();
      this.phase = "end-of-turn";
    }

    layTrio(trio) {
      const seat = this.player;
      for (const card of trio) {
        this.hands[seat].delete(card);
        for (const known of this.known) known[seat].delete(card);
      }
      this.trios[seat].push(sortCards(trio));
      this.emit(`seat ${seat} lays down a trio of ${valueOf(trio[0])}s`);
    }

    decideGala(call) {
      if (!call) {
        this.endTurn();
        return;
      }
      this.galaCaller = this.player;
      this.emit(`seat ${this.player} calls the Gala`);
      this.known.forEach((known, observer) => {
        if (observer !== this.player) known[this.player] = new Set(this.hands[this.player]);
      });
      this.endReason = EndReason.GALA;
      this.emit("the game ends with the Gala");
    }

    // Pass the turn on; once the deck is empty the game ends instead.
    endTurn() {
      this.turn++;
      this.flips = 0;
      this.tookCard = false;
      this.newDecisionContext();
      this.phase = "turn";
      if (!this.deck.length) {
        this.endReason = EndReason.DECK_EMPTY;
        this.emit("the last card has been flipped: the game ends");
        return;
      }
      this.player = (this.player + 1) % this.numPlayers;
    }
  }

  rules.register("flohcati", (players, variant, rng) => new FlohcatiState(players, variant, rng));
})(typeof CircusRules !== "undefined" ? CircusRules : require("./rules.js"));
