"use strict";
// Animal Circus's rules: the port of referee/games/animal_circus.py, the reference (its
// docstrings say why each rule is so; docs/rules/animal-circus.md gives the rulings). Names
// are the Python's in camelCase; chance is drawn from the same lists in the same order, so
// a record's seed deals the same cards and the random takes take the same ones.
(function (rules) {
const [MOLE, MOUSE, TURTLE, RABBIT, BAT, PENGUIN, CAMEL, DOG, CHEETAH, CHAMELEON, PARROT,
       RAT, SEAL, KANGAROO, MONKEY, CROCODILE, OWL, GIRAFFE, BEAR, TIGER, ELEPHANT, LION] =
  Array.from({ length: 22 }, (_, index) => index + 1);

// By value (index 0 unused).
const NAMES = [
  "", "Mole Diver", "Power Mouse", "Jumping Turtle", "Rabbit Archer", "Bungee Bat",
  "Magic Penguin", "Camel Cyclist", "Old Dog Musician", "Cheating Cheetah",
  "Chameleon in Disguise", "Parrot Ventriloquist", "Sneaky Rat", "Seal Juggler",
  "Kangaroo Boxer", "Acrobat Monkey", "Crocodile Snapper", "Owl Fortune-Teller",
  "Giraffe Stilt-Walker", "Bear Unicyclist", "Tiger Hoop-Jumper", "Elephant Strongman",
  "Lion King",
];
const CARDS_PER_COLOR = 22;
const PUT_AWAY = { 2: 0, 3: 1, 4: 3, 5: 5 };
const START_HAND = 3;
const TURN_LIMIT = 2000;
const SEAL_NEEDS = 16;
// The EndReason's values.
const RING_WON = "ring-won", TURN_LIMIT_REACHED = "turn-limit";

// Cards whose ability is not carried out "when played": a Chameleon copies nothing.
const NO_WHEN_PLAYED = new Set([MOLE, MOUSE, TURTLE, DOG, GIRAFFE, CHAMELEON, LION]);
// Abilities whose choice is a decision of its own, by decision kind.
const DECISION_KINDS = { [RABBIT]: "target", [PENGUIN]: "target", [CAMEL]: "target",
                         [RAT]: "target", [KANGAROO]: "target", [MONKEY]: "pile", [OWL]: "order" };
const POINTS = { [DOG]: -3, [GIRAFFE]: 3 };
// Values whose ability lets them on the Ring whatever the top; the Mouse only onto an Elephant.
const LET_ON = new Set([MOLE, TURTLE]);
const MOUSE_ON_ELEPHANT = new Set([MOLE, TURTLE, MOUSE]);
const PROMPTS = {
  [RABBIT]: "choose the Score pile to take the top card from",
  [PENGUIN]: "choose a player to take a random Hand card from",
  [CAMEL]: "choose a player to take the top 2 Score-pile cards from",
  [RAT]: "choose a player to swap Score-pile top cards with",
  [KANGAROO]: "choose a player whose random Hand card goes under the Ring",
  [MONKEY]: "choose a Draw pile to take the top 2 cards from",
  [OWL]: "choose the order of your top Draw-pile cards (top first)",
};

// A card is one object for the whole game, so a hand's, a pile's and an action's card are
// the same object (Python compares equal tuples); its message (the AnimalCard) is made once
// and shared by every observation: read it, never change it.
function makeCard(value, color) {
  return { value, color, message: { value, color, name: NAMES[value] } };
}

const valueName = (value) => `${NAMES[value]} (${value})`;
const cardName = (card) => valueName(card.value);
const cardNames = (cards) => cards.map(cardName).join(", ");
const messages = (cards) => cards.map((card) => card.message);
const top = (pile) => pile[pile.length - 1];
// Python's order of Card tuples: value first, then color; hands are kept in it.
const byCard = (a, b) => a.value - b.value || a.color - b.color;
const pilePoints = (pile) => pile.reduce((sum, card) => sum + (POINTS[card.value] ?? 1), 0);

function playText(seat, newRing, value) {
  const where = newRing ? "starts a new Ring with"
    : value === MOLE ? "adds to the bottom of the Ring" : "adds to the Ring";
  return `seat ${seat} ${where} ${valueName(value)}`;
}

// The action playing card (mode "ring" or "new"); ringSize only labels a win.
function playAction(mode, card, winner, ringSize) {
  let label = mode === "new" ? `start a new Ring with ${cardName(card)}`
    : `add ${cardName(card)} to the Ring${card.value === MOLE ? " (at the bottom)" : ""}`;
  if (winner >= 0) label += `; seat ${winner} wins the Ring (${ringSize} cards)`;
  return { code: `${mode}:${card.value}`, label, type: mode, card };
}

// The lowest-colored card of each value of sorted cards: colors never change a play.
function onePerValue(cards) {
  return cards.filter((card, index) => index === 0 || card.value !== cards[index - 1].value);
}

// Python's order of tuples of Cards: by the first card that differs.
function byCards(a, b) {
  const index = a.findIndex((card, place) => card !== b[place]);
  return index < 0 ? 0 : byCard(a[index], b[index]);
}

// Every order of the cards (at most 3).
function permutations(cards) {
  if (cards.length <= 1) return [cards];
  return cards.flatMap((card, index) => permutations(cards.filter((_, other) => other !== index))
    .map((rest) => [card, ...rest]));
}

class AnimalCircusState {
  constructor(players, variant, rng) {
    this.numPlayers = players;
    this.variant = variant;
    this.rng = rng;
    this.events = [];
    this.endReason = "";
    const away = PUT_AWAY[players];
    this.hands = [];
    this.drawPiles = [];
    this.putAway = [];
    this.scorePiles = [];
    for (let color = 0; color < players; color++) {
      const deck = Array.from({ length: CARDS_PER_COLOR }, (_, index) => makeCard(index + 1, color));
      rng.shuffle(deck);
      this.putAway.push(deck.slice(0, away));
      this.drawPiles.push(deck.slice(away));
      this.hands.push([]);
      this.scorePiles.push([]);
    }
    this.outOfGame = [];
    this.ring = [];
    // How many top cards of its own Draw pile each seat knows (the Owl).
    this.knownTop = new Array(players).fill(0);
    this.player = 0;
    this.previous = -1;
    this.turn = 0;
    this.pending = null;
    // This turn: cards drawn, and what the previous card imposed.
    this.drawn = [];
    this.noDraw = this.parrot = this.batBind = false;
    this.scoreTopAtStart = null;
    // Set by the card just played, for the next player's turn.
    this.nextNoDraw = this.nextParrot = this.nextBatBind = false;
    this.emit(`each player puts ${away} card(s) away unseen`);
    for (let seat = 0; seat < players; seat++) this.draw(seat, START_HAND);
    this.startTurn();
  }

  emit(text, visibleTo = null) {
    this.events.push({ text, visibleTo });
  }

  // -- queries -------------------------------------------------------------
  currentSeat() {
    return this.player;
  }

  decisionKind() {
    if (this.endReason) return "";
    return this.pending ? DECISION_KINDS[this.pending.ability] : "play";
  }

  prompt() {
    if (this.endReason) return "the game is over";
    if (!this.pending) return this.playPrompt();
    const { ability, copied } = this.pending;
    return `${NAMES[ability]}${copied ? " (copied by the Chameleon)" : ""}: ${PROMPTS[ability]}`;
  }

  playPrompt() {
    if (!this.ring.length) return "Play a card to start a new Ring";
    let text = `Play a card: add it to the Ring (top: ${cardName(top(this.ring))})`;
    if (this.lowerThan()) text += `, lower than ${this.lowerThan()}`;
    if (this.parrot) text += ", one you drew this turn (Parrot)";
    return text + ", or start a new Ring if you need not add";
  }

  // The value an added card must be below (a Bat, or a copied Bat); 0 if none.
  lowerThan() {
    if (!this.ring.length) return 0;
    const value = top(this.ring).value;
    return value === BAT || this.batBind ? value : 0;
  }

  legalActions() {
    if (this.endReason) return [];
    if (!this.pending) return this.playActions();
    return this.options(this.pending.ability).map((option) => this.optionAction(option));
  }

  // The plays, each labelled with the first Ring it wins: a new Ring gives the one on the
  // table to the previous player; a Mouse on an Elephant or a Seal after a 16+ Score top
  // wins it for the player (a Seal starting a Ring wins its own one-card Ring).
  playActions() {
    const [adds, news] = this.plays();
    const size = this.ring.length;
    const winning = size ? this.winningAdds() : [];
    const actions = adds.map((card) =>
      playAction("ring", card, winning.includes(card.value) ? this.player : -1, size + 1));
    if (size && this.previous >= 0) {
      return actions.concat(news.map((card) => playAction("new", card, this.previous, size)));
    }
    const sealWins = this.sealWins();
    return actions.concat(news.map((card) =>
      playAction("new", card, sealWins && card.value === SEAL ? this.player : -1, 1)));
  }

  // Both at once when a Chameleon's copied Bat lets a Seal under an Elephant.
  winningAdds() {
    const mouse = top(this.ring).value === ELEPHANT ? [MOUSE] : [];
    return this.sealWins() ? [...mouse, SEAL] : mouse;
  }

  sealWins() {
    const card = this.scoreTopAtStart;
    return card !== null && card.value >= SEAL_NEEDS;
  }

  // The cards the player may add to the Ring, and those that may start a new one: one who
  // can beat the top must add (a beating card or one let on whatever the top).
  plays() {
    const hand = this.hands[this.player];
    const cards = onePerValue(this.parrot ? hand.filter((card) => this.drawn.includes(card)) : hand);
    if (!this.ring.length) return [[], cards];
    const value = top(this.ring).value;
    const bound = this.lowerThan();
    const letOn = value === ELEPHANT ? MOUSE_ON_ELEPHANT : LET_ON;
    const beats = (card) => (bound ? card.value < bound : card.value > value);
    const adds = cards.filter((card) => beats(card) || letOn.has(card.value));
    return [adds, cards.some(beats) ? [] : cards];
  }

  // The choices of an ability: seats, or (Owl) orders of the top cards.
  options(ability) {
    const me = this.player;
    const others = Array.from({ length: this.numPlayers - 1 },
                              (_, step) => (me + step + 1) % this.numPlayers);
    const scored = others.filter((seat) => this.scorePiles[seat].length);
    if (ability === RABBIT) return scored.length ? scored : this.scorePiles[me].length ? [me] : [];
    if (ability === PENGUIN || ability === KANGAROO) {
      return others.filter((seat) => this.hands[seat].length);
    }
    if (ability === CAMEL) return scored;
    if (ability === RAT) return this.scorePiles[me].length ? scored : [];
    if (ability === MONKEY) {
      return this.drawPiles.map((_, seat) => seat).filter((seat) => this.drawPiles[seat].length);
    }
    const cards = this.drawPiles[me].slice(0, 3);  // Owl: orders sorted by value, not by the pile
    return cards.length ? permutations(cards).sort(byCards) : [];
  }

  optionAction(option) {
    const ability = this.pending.ability;
    if (ability === OWL) {
      const values = option.map((card) => card.value).join("-");
      return { code: `order:${values}`, label: `put back, top first: ${values}`,
               type: "order", option };
    }
    if (ability === MONKEY) {
      return { code: `pile:${option}`, type: "pile", option,
               label: `take the top 2 cards of seat ${option}'s Draw pile ` +
                      `(${this.drawPiles[option].length} cards)` };
    }
    return { code: `target:${option}`, label: `choose seat ${option}`, type: "target", option };
  }

  observation(seat) {
    const drawPile = this.drawPiles[seat];
    const known = this.knownTop[seat];
    const bound = this.lowerThan();
    const pending = this.pending;
    return {
      seat,
      current_player: this.player,
      previous_player: this.previous,
      hand: messages(this.hands[seat]),
      draw_size: drawPile.length,
      known_draw_top: messages(drawPile.slice(0, known)),
      ring: messages(this.ring),
      score_piles: this.scorePiles.map((pile) => ({ cards: messages(pile) })),
      hand_sizes: this.hands.map((hand) => hand.length),
      draw_sizes: this.drawPiles.map((pile) => pile.length),
      out_of_game: messages(this.outOfGame),
      put_away_per_player: PUT_AWAY[this.numPlayers],
      // The Parrot's cards are for the player only.
      constraints: { bat: Boolean(bound), lower_than: bound, parrot: this.parrot,
                     parrot_cards: this.parrot && seat === this.player ? messages(this.drawn) : [],
                     bear: this.noDraw },
      decision: { kind: this.decisionKind(), ability: pending ? pending.ability : 0,
                  copied: pending ? pending.copied : false },
      scores: this.scores(),
      turn: this.turn,
    };
  }

  observations() {
    return this.hands.map((_, seat) => this.observation(seat));
  }

  scores() {
    return this.scorePiles.map(pilePoints);
  }

  finalState() {
    const seats = (piles) => piles.map(messages);
    return {
      hands: seats(this.hands),
      draw_piles: seats(this.drawPiles),
      put_away: seats(this.putAway),
      out_of_game: messages(this.outOfGame),
      ring: messages(this.ring),
      score_piles: seats(this.scorePiles),
      scores: this.scores(),
      turns: this.turn,
      end_reason: this.endReason,
    };
  }

  // -- turns ---------------------------------------------------------------
  // Draw, then await the play; a player left without a card cannot play: the previous
  // player wins the Ring and the turn passes, until someone can play or the game ends.
  startTurn() {
    for (;;) {
      const seat = this.player;
      const pile = this.scorePiles[seat];
      this.scoreTopAtStart = pile.length ? top(pile) : null;
      [this.noDraw, this.nextNoDraw] = [this.nextNoDraw, false];
      const parrot = this.nextParrot;
      this.nextParrot = false;
      [this.batBind, this.nextBatBind] = [this.nextBatBind, false];
      if (this.noDraw) {
        this.drawn = [];
        this.emit(`seat ${seat} draws nothing (Bear)`);
      } else {
        this.drawn = this.draw(seat, this.hands[seat].length >= 2 ? 1 : 4);
      }
      this.parrot = parrot && this.drawn.length > 0;
      if (this.hands[seat].length) return;
      this.emit(`seat ${seat} has no card to play`);
      this.winRing(this.previous);
      if (!this.advance()) return;
    }
  }

  // Close the turn; pass it on unless the game ends. True if it goes on.
  advance() {
    this.pending = null;
    this.turn += 1;
    if (this.endReason) return false;
    if (this.turn >= TURN_LIMIT) {
      this.end(TURN_LIMIT_REACHED, `the game is stopped after ${TURN_LIMIT} turns`);
      return false;
    }
    this.previous = this.player;
    this.player = (this.player + 1) % this.numPlayers;
    return true;
  }

  endTurn() {
    if (this.advance()) this.startTurn();
  }

  end(reason, text) {
    this.endReason = reason;
    this.emit(`the game ends: ${text}`);
  }

  // -- rules ---------------------------------------------------------------
  apply(action) {
    if (action.type === "ring" || action.type === "new") {
      this.play(action.card, action.type === "new");
      return;
    }
    const ability = this.pending ? this.pending.ability : 0;
    this.pending = null;
    CHOICES[ability].call(this, action.option);
    this.endTurn();
  }

  // Put the card on the Ring (or start a new one), then carry out its ability.
  play(card, newRing) {
    const seat = this.player;
    const hand = this.hands[seat];
    hand.splice(hand.indexOf(card), 1);
    const mouseWins = !newRing && card.value === MOUSE && top(this.ring).value === ELEPHANT;
    this.emit(playText(seat, newRing, card.value));
    if (newRing) {
      const ended = this.winRing(this.previous);
      this.ring = [card];
      if (ended) {  // the card stays on the new Ring; its ability is not carried out
        this.endTurn();
        return;
      }
    } else if (card.value === MOLE) {
      this.ring.unshift(card);
    } else {
      this.ring.push(card);
    }
    if (mouseWins) {
      this.winRing(seat);
      this.endTurn();
    } else if (this.carryOut(card.value, false)) {
      this.endTurn();
    }
  }

  // seat wins the Ring onto their Score pile; true if that ends the game. Winning an
  // empty Ring is not winning: nothing happens.
  winRing(seat) {
    if (!this.ring.length || seat < 0) return false;
    const won = this.ring;
    this.ring = [];
    this.scorePiles[seat].push(...won);
    this.emit(`seat ${seat} wins the Ring (${won.length} cards)`);
    if (this.drawPiles.some((pile) => !pile.length)) {
      this.end(RING_WON, `seat ${seat} won the Ring while a Draw pile is empty`);
      return true;
    }
    return false;
  }

  // Carry out an ability; false while a choice of the player is pending.
  carryOut(ability, copied) {
    if (ability in DECISION_KINDS) {
      const options = this.options(ability);
      if (!options.length) {
        this.emit(`${NAMES[ability]}: nothing to do`);
        return true;
      }
      if (ability === OWL) this.look(options[0].length);
      // Asked even when only one option is legal: every choice is a decision.
      this.pending = { ability, copied };
      return false;
    }
    // A played Bat binds by its place on the Ring; only a copied one binds by its effect.
    const effect = ability !== BAT || copied ? EFFECTS[ability] : undefined;
    return !effect || effect.call(this) !== false;
  }

  // -- the abilities -------------------------------------------------------
  rabbit(seat) {
    const card = this.scorePiles[seat].pop();
    this.give(this.player, [card]);
    this.emit(`seat ${this.player} takes ${cardName(card)} from seat ${seat}'s ` +
              "Score pile into their Hand");
  }

  penguin(seat) {
    const card = this.takeRandom(seat);
    this.give(this.player, [card]);
    this.emit(`seat ${this.player} takes a random Hand card from seat ${seat}`);
    // The target is another seat: the two sorted.
    this.emit(`the card taken is ${cardName(card)}`, [this.player, seat].sort((a, b) => a - b));
  }

  camel(seat) {
    const moved = this.scorePiles[seat].splice(-2);
    this.scorePiles[this.player].push(...moved);
    this.emit(`seat ${this.player} moves ${moved.length} card(s) from seat ${seat}'s ` +
              "Score pile onto their own");
  }

  // The two cards are turned over together: the Draw pile's second card ends on top.
  cheetah() {
    const moved = this.takeTop(this.player, 2);
    this.scorePiles[this.player].push(...moved);
    this.emit(`seat ${this.player} puts ${moved.length} Draw-pile card(s) on their Score pile`);
  }

  chameleon() {
    const pile = this.scorePiles[this.player];
    if (!pile.length || NO_WHEN_PLAYED.has(top(pile).value)) {
      this.emit("Chameleon: nothing to copy");
      return true;
    }
    this.emit(`the Chameleon copies ${cardName(top(pile))}`);
    return this.carryOut(top(pile).value, true);
  }

  copiedBat() {
    this.nextBatBind = true;
  }

  parrotAbility() {
    this.nextParrot = true;
  }

  rat(seat) {
    const mine = this.scorePiles[this.player], theirs = this.scorePiles[seat];
    [mine[mine.length - 1], theirs[theirs.length - 1]] = [top(theirs), top(mine)];
    this.emit(`seat ${this.player} swaps Score-pile tops with seat ${seat}`);
  }

  // Wins the Ring if the Score pile's top at the turn's start was 16 or more.
  seal() {
    if (this.sealWins()) this.winRing(this.player);
  }

  kangaroo(seat) {
    const card = this.takeRandom(seat);
    this.ring.unshift(card);
    this.emit(`${cardName(card)} from seat ${seat}'s Hand goes under the Ring`);
  }

  monkey(seat) {
    const taken = this.takeTop(seat, 2);
    this.give(this.player, taken);
    this.emit(`seat ${this.player} takes ${taken.length} card(s) from seat ${seat}'s Draw pile`);
    this.emit(`you take ${cardNames(taken)}`, [this.player]);
  }

  crocodile() {
    if (this.ring.length < 2) return;
    const card = this.ring.shift();
    this.scorePiles[this.player].push(card);
    this.emit(`seat ${this.player} takes ${cardName(card)} from the bottom of the Ring`);
  }

  look(count) {
    const seat = this.player;
    this.knownTop[seat] = Math.max(this.knownTop[seat], count);
    this.emit(`seat ${seat} looks at the top ${count} card(s) of their Draw pile`);
    this.emit(`you see (top first) ${cardNames(this.drawPiles[seat].slice(0, count))}`, [seat]);
  }

  owlOrder(order) {
    this.drawPiles[this.player].splice(0, order.length, ...order);
    this.emit(`you put back (top first) ${cardNames(order)}`, [this.player]);
  }

  bear() {
    this.nextNoDraw = true;
  }

  tiger() {
    for (let step = 1; step < this.numPlayers; step++) {
      const seat = (this.player + step) % this.numPlayers;
      for (const card of this.takeTop(seat, 1)) {
        this.outOfGame.push(card);
        this.emit(`seat ${seat} puts ${cardName(card)} out of the game`);
      }
    }
  }

  // Turned over together, as for the Cheetah: the Draw pile's top card ends lowest.
  elephant() {
    const moved = this.takeTop(this.player, 2);
    this.ring.unshift(...moved);
    this.emit(`seat ${this.player} puts ${moved.length} Draw-pile card(s) under the Ring`);
  }

  // -- moving cards --------------------------------------------------------
  // A random card of seat's sorted Hand, drawn as Python's rng.choice draws it.
  takeRandom(seat) {
    const hand = this.hands[seat];
    const card = this.rng.choice(hand);
    hand.splice(hand.indexOf(card), 1);
    return card;
  }

  // Remove up to count cards from the top of a Draw pile.
  takeTop(seat, count) {
    const taken = this.drawPiles[seat].splice(0, count);
    if (this.knownTop[seat]) this.knownTop[seat] = Math.max(0, this.knownTop[seat] - taken.length);
    return taken;
  }

  give(seat, cards) {
    this.hands[seat].push(...cards);
    this.hands[seat].sort(byCard);
  }

  // Draw at the start of a turn: a public count, the cards for the drawer only.
  draw(seat, count) {
    const drawn = this.takeTop(seat, count);
    this.give(seat, drawn);
    this.emit(`seat ${seat} draws ${drawn.length} card(s)`);
    if (drawn.length) this.emit(`you draw ${cardNames(drawn)}`, [seat]);
    return drawn;
  }
}

// The abilities by card value.
const EFFECTS = {
  [BAT]: AnimalCircusState.prototype.copiedBat, [CHEETAH]: AnimalCircusState.prototype.cheetah,
  [CHAMELEON]: AnimalCircusState.prototype.chameleon,
  [PARROT]: AnimalCircusState.prototype.parrotAbility, [SEAL]: AnimalCircusState.prototype.seal,
  [CROCODILE]: AnimalCircusState.prototype.crocodile, [BEAR]: AnimalCircusState.prototype.bear,
  [TIGER]: AnimalCircusState.prototype.tiger, [ELEPHANT]: AnimalCircusState.prototype.elephant,
};
const CHOICES = {
  [RABBIT]: AnimalCircusState.prototype.rabbit, [PENGUIN]: AnimalCircusState.prototype.penguin,
  [CAMEL]: AnimalCircusState.prototype.camel, [RAT]: AnimalCircusState.prototype.rat,
  [KANGAROO]: AnimalCircusState.prototype.kangaroo, [MONKEY]: AnimalCircusState.prototype.monkey,
  [OWL]: AnimalCircusState.prototype.owlOrder,
};

rules.register("animal-circus", (players, variant, rng) => new AnimalCircusState(players, variant, rng));
})(typeof CircusRules !== "undefined" ? CircusRules : require("./rules.js"));
