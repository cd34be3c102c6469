"use strict";
// Amazing Flea Circus's rules: the port of referee/games/flea_circus.py, the reference (its
// rulings are in docs/rules/flea-circus.md). Every name, text and draw from the RNG is the
// Python engine's, so a record's seed and action indices rebuild the same game.
(function (rules) {
  const SAUCER_VALUES = { A: 2, B: 2, C: 3, D: 3, E: 3, F: 4, G: 4 };
  const SAUCERS_PER_KIND = 4;
  const ACTION_CARD_COUNTS = { numbers: 12, counterattack: 7, recruitment: 6, general: 2 };
  const CARD_ORDER = [...Object.keys(SAUCER_VALUES), ...Object.keys(ACTION_CARD_COUNTS)];
  const CARD_RANK = Object.fromEntries(CARD_ORDER.map((card, rank) => [card, rank]));
  const CARD_NAMES = {
    numbers: "In Numbers There Is Strength",
    counterattack: "Animal Counterattack",
    recruitment: "Recruitment",
    general: "General Saving the Earth",
  };
  for (const [kind, value] of Object.entries(SAUCER_VALUES)) {
    CARD_NAMES[kind] = `saucer ${kind} (${value})`;
  }
  const TIMES = "\u00d7";  // escaped: the page may not say the file is UTF-8
  const LOOT_TOKENS = 36;
  const HAND_SIZE = 5;
  const COUNTERATTACK_LOOT = 2;
  const TURN_LIMIT = 1000;
  const EndReason = { EARTH_EMPTY: "earth-empty", NO_CARDS: "no-cards", TURN_LIMIT: "turn-limit" };

  const isSaucer = (card) => card in SAUCER_VALUES;

  // All 55 cards in a fixed order: the deal is the RNG's shuffle of exactly this list.
  function fullDeck() {
    const deck = [];
    for (const kind of Object.keys(SAUCER_VALUES)) {
      for (let i = 0; i < SAUCERS_PER_KIND; i++) deck.push(kind);
    }
    for (const [kind, count] of Object.entries(ACTION_CARD_COUNTS)) {
      for (let i = 0; i < count; i++) deck.push(kind);
    }
    return deck;
  }

  // A card as the FleaCard message.
  function cardMessage(card) {
    return isSaucer(card) ? { kind: "saucer", saucer: card, value: SAUCER_VALUES[card] }
      : { kind: card };
  }

  const sortCards = (cards) => [...cards].sort((a, b) => CARD_RANK[a] - CARD_RANK[b]);
  const countOf = (cards, card) => cards.filter((c) => c === card).length;

  function playAction(card, count) {
    const numbers = card === "numbers";
    return {
      code: `play:${card}` + (numbers ? `:${count}` : ""),
      label: numbers ? `play ${count} ${TIMES} ${CARD_NAMES[card]}` : `play ${CARD_NAMES[card]}`,
      card, count,
    };
  }

  // The play actions of a hand, in the card order; "numbers" once per count held.
  function handActions(hand) {
    const actions = [];
    for (const card of CARD_ORDER) {
      const held = countOf(hand, card);
      const offered = card === "numbers" ? held : Math.min(held, 1);
      for (let k = 1; k <= offered; k++) actions.push(playAction(card, k));
    }
    return actions;
  }

  class FleaCircusState {
    constructor(players, variant, rng) {
      this.numPlayers = players;
      this.rng = rng;
      this.events = [];
      this.endReason = "";
      this.deck = fullDeck();
      rng.shuffle(this.deck);
      this.hands = Array.from({ length: players }, () => []);
      this.piles = Array.from({ length: players }, () => []);
      this.loot = new Array(players).fill(0);
      this.earth = LOOT_TOKENS;
      this.player = 0;
      this.turn = 0;
      this.choosingTarget = false;
      for (let seat = 0; seat < players; seat++) this.drawUp(seat);
      this.beginTurn();
    }

    // -- queries -----------------------------------------------------------
    currentSeat() {
      return this.player;
    }

    decisionKind() {
      return this.choosingTarget ? "target" : "play";
    }

    prompt() {
      return this.choosingTarget ? "Animal Counterattack: choose a player to take 2 loot from"
        : "Play a card (or several In Numbers There Is Strength cards)";
    }

    legalActions() {
      if (this.endReason) return [];
      if (this.choosingTarget) {
        return this.others(this.player).map((seat) => ({
          code: `target:${seat}`, label: `take loot from seat ${seat} (${this.loot[seat]} loot)`,
          target: seat,
        }));
      }
      return handActions(this.hands[this.player]);
    }

    skipping() {
      return this.hands.map((hand) => !hand.length && !this.deck.length);
    }

    observation(seat) {
      return {
        seat,
        current_player: this.player,
        hand: sortCards(this.hands[seat]).map(cardMessage),
        piles: this.piles.map((pile) => ({ cards: pile.map(cardMessage) })),
        loot: [...this.loot],
        earth: this.earth,
        deck_size: this.deck.length,
        hand_sizes: this.hands.map((hand) => hand.length),
        skipping: this.skipping(),
        turn: this.turn,
      };
    }

    observations() {
      return this.hands.map((_, seat) => this.observation(seat));
    }

    scores() {
      return [...this.loot];
    }

    finalState() {
      return {
        hands: this.hands.map(sortCards),
        piles: this.piles.map((pile) => [...pile]),
        loot: [...this.loot],
        earth: this.earth,
        deck: [...this.deck],
        turns: this.turn,
      };
    }

    // -- rules ---------------------------------------------------------------
    emit(text, visibleTo = null) {
      this.events.push({ text, visibleTo });
    }

    // A play action carries its card and count, a target action its seat.
    apply(action) {
      if (action.card) {
        this.play(action.card, action.count);
        return;
      }
      this.choosingTarget = false;
      this.takeFromSeat(action.target, COUNTERATTACK_LOOT);
      this.endTurn();
    }

    play(card, count) {
      const seat = this.player;
      const hand = this.hands[seat];
      for (let i = 0; i < count; i++) hand.splice(hand.indexOf(card), 1);
      for (let i = 0; i < count; i++) this.piles[seat].push(card);
      this.emit(`seat ${seat} plays ${count} ${TIMES} ${CARD_NAMES[card]}`);
      if (isSaucer(card)) this.resolveSaucer(card);
      else if (card === "numbers") this.takeFromEarth(count);
      else if (card === "recruitment") this.takeFromEarth(this.recruitmentCount());
      else if (card === "general") this.resolveGeneral();
      else {  // counterattack: the target is a decision of its own
        this.choosingTarget = true;
        return;
      }
      this.endTurn();
    }

    // The other seats, clockwise from the left neighbour.
    others(seat) {
      return Array.from({ length: this.numPlayers - 1 },
                        (_, step) => (seat + step + 1) % this.numPlayers);
    }

    resolveSaucer(kind) {
      for (const other of this.others(this.player)) {
        const pile = this.piles[other];
        if (pile.length && pile[pile.length - 1] === kind) {
          this.takeFromSeat(other, SAUCER_VALUES[kind]);
          return;
        }
      }
      this.takeFromEarth(SAUCER_VALUES[kind]);
    }

    recruitmentCount() {
      return this.piles.filter((pile) => pile.length && pile[pile.length - 1] === "recruitment")
        .length;
    }

    // What a pile's top card makes its owner return to the General.
    topValue(seat) {
      const pile = this.piles[seat];
      if (!pile.length) return 0;
      const top = pile[pile.length - 1];
      if (isSaucer(top)) return SAUCER_VALUES[top];
      return { numbers: 1, counterattack: 2, recruitment: this.recruitmentCount() }[top] || 0;
    }

    resolveGeneral() {
      for (const other of this.others(this.player)) {
        const amount = Math.min(this.loot[other], this.topValue(other));
        this.loot[other] -= amount;
        this.earth += amount;
        this.emit(`seat ${other} returns ${amount} loot to the Earth`);
      }
      const gathered = this.piles.flat();
      this.rng.shuffle(gathered);
      this.deck.push(...gathered);
      this.piles = this.piles.map(() => []);
      this.emit(`${gathered.length} pile cards shuffled under the deck`);
    }

    takeFromEarth(amount) {
      const taken = Math.min(amount, this.earth);
      this.earth -= taken;
      this.loot[this.player] += taken;
      this.emit(`seat ${this.player} takes ${taken} loot from the Earth`);
      if (this.earth === 0) this.endReason = EndReason.EARTH_EMPTY;
    }

    takeFromSeat(other, amount) {
      const taken = Math.min(amount, this.loot[other]);
      this.loot[other] -= taken;
      this.loot[this.player] += taken;
      this.emit(`seat ${this.player} takes ${taken} loot from seat ${other}`);
    }

    // Draw up to five cards, as far as the deck allows.
    drawUp(seat) {
      const hand = this.hands[seat];
      const count = Math.min(HAND_SIZE - hand.length, this.deck.length);
      if (count <= 0) return;
      const drawn = this.deck.splice(0, count);
      hand.push(...drawn);
      this.emit(`seat ${seat} draws ${count} card(s)`);
      this.emit(`you draw ${drawn.map((card) => CARD_NAMES[card]).join(", ")}`, [seat]);
    }

    endTurn() {
      this.turn += 1;
      if (this.endReason) return;
      this.drawUp(this.player);
      if (this.turn >= TURN_LIMIT) {
        this.endReason = EndReason.TURN_LIMIT;
        return;
      }
      this.player = (this.player + 1) % this.numPlayers;
      if (!this.hands[this.player].length) this.beginTurn();
    }

    // Move to the next seat that can play, drawing for empty hands first: a deck refilled
    // by a General lets a skipping seat play again. When nobody can play, the game ends.
    beginTurn() {
      for (let i = 0; i < this.numPlayers; i++) {
        if (!this.hands[this.player].length) this.drawUp(this.player);
        if (this.hands[this.player].length) return;
        this.emit(`seat ${this.player} has no cards and skips`);
        this.player = (this.player + 1) % this.numPlayers;
      }
      this.endReason = EndReason.NO_CARDS;
    }
  }

  rules.register("flea-circus",
                 (players, variant, rng) => new FleaCircusState(players, variant, rng));
})(typeof CircusRules !== "undefined" ? CircusRules : require("./rules.js"));
