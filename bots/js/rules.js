'use strict';
// How the Node.js example bot chooses: one simple, deterministic rule per game.
//
// Each rule reads the request as decoded by @grpc/proto-loader (field names as
// in proto/circus/v1/*.proto, uint64 as strings, every field present with its
// default) and returns an index into request.legal_actions. No rule uses
// randomness, so the same request always gets the same answer.

const crypto = require('crypto');

// -- helpers ------------------------------------------------------------------

// The index of the highest score; ties go to the earliest action.
function argmax(items, score) {
  let best = -1;
  let bestScore = -Infinity;
  items.forEach((item, index) => {
    const value = score(item, index);
    if (value > bestScore) {
      best = index;
      bestScore = value;
    }
  });
  return best;
}

// The other seats, clockwise from the left neighbour (seat + 1).
function others(seat, players) {
  const seats = [];
  for (let step = 1; step < players; step += 1) seats.push((seat + step) % players);
  return seats;
}

// The game's typed payload of each legal action, e.g. payload.flea_circus.
function payloads(request, field) {
  return request.legal_actions.map((action) => (action.payload && action.payload[field]) || {});
}

// A fallback for a decision no rule knows: an index drawn from a hash of
// game_id and decision_id, so it is still the same for the same request.
function hashedIndex(request) {
  const digest = crypto.createHash('sha256')
    .update(`${request.game_id}/${request.decision_id}`).digest();
  return digest.readUInt32BE(0) % request.legal_actions.length;
}

// A decision kind a rule does not know (the protocol may add some): play
// the fallback, and say so once per game and kind on stderr (the bot's log).
const reported = new Set();
function noRule(request, what) {
  const key = `${request.game_id}/${what}`;
  if (!reported.has(key)) {
    reported.add(key);
    process.stderr.write(`js-rules: no rule for ${what} in ${request.game_id}: playing a hashed pick\n`);
  }
  return hashedIndex(request);
}

// -- Amazing Flea Circus: the most loot this turn --------------------------------
//
// A play is worth the loot it brings now; loot taken from a rival counts
// double (it also costs them). The General is worth half of what it makes the
// rivals give back. A counterattack goes to the richest rival.

function fleaCircus(request) {
  const obs = request.observation.flea_circus;
  const actions = payloads(request, 'flea_circus');
  const players = obs.loot.length;
  const rivals = others(obs.seat, players);
  const top = (seat) => {
    const cards = obs.piles[seat] ? obs.piles[seat].cards : [];
    return cards.length ? cards[cards.length - 1] : null;
  };
  if (request.kind === 'target') {
    return argmax(actions, (action) => obs.loot[action.target]);
  }
  if (request.kind !== 'play') return noRule(request, `flea-circus decision ${request.kind}`);
  const recruitTops = rivals.filter((seat) => top(seat) && top(seat).kind === 'recruitment').length;
  const giveBack = (seat) => {
    const card = top(seat);
    if (!card) return 0;
    const value = { saucer: card.value, numbers: 1, counterattack: 2, recruitment: recruitTops }[card.kind] || 0;
    return Math.min(value, obs.loot[seat]);
  };
  return argmax(actions, (action) => {
    const card = action.card || {};
    switch (card.kind) {
      case 'saucer': {
        const victim = rivals.find((seat) => top(seat) && top(seat).saucer === card.saucer);
        if (victim !== undefined) return 2 * Math.min(card.value, obs.loot[victim]);
        return Math.min(card.value, obs.earth);
      }
      case 'numbers':
        return Math.min(action.count, obs.earth) + 0.01 * action.count;
      case 'recruitment':
        return Math.min(recruitTops + 1, obs.earth);
      case 'counterattack':
        return 2 * Math.min(2, Math.max(0, ...rivals.map((seat) => obs.loot[seat])));
      case 'general':
        return 0.5 * rivals.reduce((sum, seat) => sum + giveBack(seat), 0);
      default:
        return 0;
    }
  });
}

// -- Circus Flohcati: push your luck less as the display fills ---------------------
//
// A card is worth what it adds to the hand's score (the best card of each
// colour) plus a little for pairs and new colours. The bot flips while the
// best card on offer is worth less than 5 minus the number of cards showing,
// gives away its least useful card, lays down a trio when 10 points beat what
// the three cards score in hand, and calls the Gala when it leads by what it
// can see (an opponent's unknown cards counted at 2 points each).

function handPoints(cards) {
  const best = {};
  for (const card of cards) {
    if (card.kind !== 'circus') continue;
    best[card.colour] = Math.max(best[card.colour] ?? 0, card.value);
  }
  return Object.values(best).reduce((sum, value) => sum + value, 0);
}

function flohcati(request) {
  const obs = request.observation.flohcati;
  const actions = payloads(request, 'flohcati');
  const hand = obs.hand;
  const bestOf = (colour) => Math.max(-1, ...hand.filter((c) => c.colour === colour).map((c) => c.value));
  const sameValue = (value) => hand.filter((c) => c.kind === 'circus' && c.value === value).length;
  const gain = (card) => {
    if (!card || card.kind !== 'circus') return 0;
    const held = bestOf(card.colour);
    return Math.max(0, card.value - Math.max(held, 0)) + (held < 0 ? 0.5 : 0)
      + ({ 1: 1, 2: 5 }[sameValue(card.value) % 3] || 0) + 0.01 * card.value;
  };
  const find = (type) => actions.findIndex((action) => action.type === type);
  const without = (codes) => hand.filter((card) => !codes.includes(card.code));

  switch (obs.decision) {
    case 'turn': case 'nueva': case 'open-take': case 'match': {
      const takes = actions.map((action, index) => ({ action, index }))
        .filter(({ action }) => action.type === 'take' || action.type === 'take-match');
      const best = takes.length ? takes[argmax(takes, ({ action }) => gain(action.card))] : null;
      const bestGain = best ? gain(best.action.card) : -1;
      const flip = find('flip');
      // Nueva atraccion cannot bust: flip on while nothing good shows.
      const wanted = obs.decision === 'nueva' ? 5 : 5 - obs.display.length;
      if (flip >= 0 && bestGain < wanted) return flip;
      if (best) return best.index;
      return Math.max(find('stop'), 0);
    }
    case 'target': // the opponent with the most cards
      return argmax(actions, (action) => obs.hand_sizes[action.target]);
    case 'give': // the card whose loss costs least
      return argmax(actions, (action) => -(handPoints(hand) - handPoints(without([action.card.code]))
        + 0.1 * action.card.value + (sameValue(action.card.value) >= 2 ? 3 : 0)));
    case 'request': // the colour we hold lowest (or not at all)
      return argmax(actions, (action) => -bestOf(action.colour) - (action.direction === 'cw' ? 0 : 0.5));
    case 'end-of-turn': case 'trio': case 'gala': { // a trio that gains, then done or the Gala
      const worth = (action) => 10 - (handPoints(hand) - handPoints(without(action.cards.map((c) => c.code))));
      const lay = argmax(actions, (action) => (action.type === 'trio' ? worth(action) : -Infinity));
      if (lay >= 0 && worth(actions[lay]) > 0) return lay;
      if (find('gala') < 0) return find('done');
      const mine = handPoints(hand) + 10 * obs.trios[obs.seat].trios.length + obs.gala_bonus;
      const rivals = others(obs.seat, obs.hand_sizes.length).map((seat) => {
        const known = obs.known_cards[seat].cards;
        return 10 * obs.trios[seat].trios.length + handPoints(known)
          + 2 * (obs.hand_sizes[seat] - known.length);
      });
      const call = mine >= Math.max(0, ...rivals);
      return actions.findIndex((action) => action.type === 'gala' && action.call === call);
    }
    default:
      return noRule(request, `flohcati decision ${obs.decision}`);
  }
}

// -- Animal Circus: leave the Ring as high as you can --------------------------------
//
// The Ring goes to the player before the one who cannot beat it, so the bot
// adds its highest card (never willingly the Dog, -3 points), starts a new
// Ring only when it must, and aims abilities at the leader.

const DOG = 8;
const GIRAFFE = 19;
const cardPoints = (card) => (card.value === DOG ? -3 : card.value === GIRAFFE ? 3 : 1);

function animalCircus(request) {
  const obs = request.observation.animal_circus;
  const actions = payloads(request, 'animal_circus');
  const pile = (seat) => obs.score_piles[seat].cards;
  const topOf = (seat) => pile(seat)[pile(seat).length - 1];
  const lead = (seat) => obs.scores[seat] - (seat === obs.seat ? 100 : 0);

  switch (obs.decision.kind) {
    case 'play':
      return argmax(actions, (action) => {
        const value = action.card.value === DOG ? -10 : action.card.value;
        if (action.ring_winner === obs.seat) return 1000 + value;
        if (action.type === 'ring') return 100 + value;
        return value; // a new Ring: the previous player takes the old one
      });
    case 'target':
      switch (obs.decision.ability) {
        case 4: // Rabbit: the Score-pile top worth most in hand
          return argmax(actions, (action) => topOf(action.target).value);
        case 7: // Camel: the two Score-pile cards worth most
          return argmax(actions, (action) => pile(action.target).slice(-2)
            .reduce((sum, card) => sum + cardPoints(card), 0));
        case 12: // Rat: the top we would rather own than ours
          return argmax(actions, (action) => cardPoints(topOf(action.target)));
        default: // Penguin, Kangaroo: the leader, then the fullest hand
          return argmax(actions, (action) => lead(action.target) * 100 + obs.hand_sizes[action.target]);
      }
    case 'pile': // Monkey: the biggest rival Draw pile
      return argmax(actions, (action) => obs.draw_sizes[action.pile] - (action.pile === obs.seat ? 1000 : 0));
    case 'order': // Owl: the highest cards on top
      return argmax(actions, (action) => action.order
        .reduce((sum, card, position) => sum + card.value * 23 ** (3 - position), 0));
    default:
      return noRule(request, `animal-circus decision ${obs.decision.kind}`);
  }
}

// -- dispatch -------------------------------------------------------------------------

// The games this bot plays, by name, with the rule for each.
const RULES = {
  'flea-circus': fleaCircus,
  flohcati,
  'animal-circus': animalCircus,
};

// The index of the action to play for a DecisionRequest.
function choose(request) {
  const count = request.legal_actions.length;
  if (count <= 1) return 0;
  const game = request.observation && request.observation.game; // the oneof's set field
  const rule = RULES[(game || '').replace(/_/g, '-')];
  const index = rule ? rule(request) : noRule(request, `game ${game}`);
  if (Number.isInteger(index) && index >= 0 && index < count) return index;
  return noRule(request, `${game} (the rule chose ${index})`);
}

module.exports = { RULES, choose, hashedIndex, handPoints };
