"use strict";
// The games' rules in the browser, so a replay page can hold only its game's record (the
// seed and the chosen action indices) and the viewer rebuild every position from it.
// Each engine (rules-<game>.js) is a port of referee/games/<game>.py, which stays the
// reference: tests/test_rules_js.py replays random games of every game, variant and table
// size with both and compares every state, observation, decision and event. Chance comes
// from PyRandom, Python's own random.Random (Mersenne Twister, seeded and drawn as CPython
// does), so the same seed deals the same cards.
const CircusRules = (function () {
const N = 624, M = 397;

// Python's random.Random(seed) for an integer seed, with the draws the engines use.
class PyRandom {
  constructor(seed) {
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    const key = [];
    for (; n > 0n; n >>= 32n) key.push(Number(n & 0xffffffffn));
    this.mt = new Uint32Array(N);
    this.index = N;
    this.seedByArray(key.length ? key : [0]);
  }

  seedByArray(key) {
    const mt = this.mt;
    mt[0] = 19650218;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    let i = 1, j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  uint32() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  // random.getrandbits(bits), 1 <= bits <= 32.
  bits(count) {
    return this.uint32() >>> (32 - count);
  }

  // random._randbelow(n): an integer in [0, n), drawn as Python draws it.
  below(n) {
    const count = 32 - Math.clz32(n);
    let r = this.bits(count);
    while (r >= n) r = this.bits(count);
    return r;
  }

  // random.shuffle(list), in place.
  shuffle(list) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      [list[i], list[j]] = [list[j], list[i]];
    }
  }

  // random.choice(list).
  choice(list) {
    return list[this.below(list.length)];
  }
}

const ENGINES = {};

// An engine: makeState(players, variant, rng) gives a state with the methods of
// referee/games/base.py's State (currentSeat, decisionKind, prompt, legalActions: each
// {code, label}, apply(action), observations, finalState, scores; events: each
// {text, visibleTo: null or the sorted seats}; endReason: "" until the game ends).
function register(game, makeState) {
  ENGINES[game] = makeState;
}

// The game of a record, position by position, as referee/replay.py's Replaying makes it:
// before each decision (and once after the game) the state, every seat's observation, the
// scores, the decision and how many events there were by then.
function replay(game, variant, players, seed, actions) {
  if (!(game in ENGINES)) throw new Error("no rules for the game " + JSON.stringify(game));
  const state = ENGINES[game](players, variant, new PyRandom(seed));
  const frames = [];
  const frame = (decision) => ({ state: state.finalState(), observations: state.observations(),
                                 scores: state.scores(), decision, end: state.events.length });
  actions.forEach((index, step) => {
    if (state.endReason) throw new Error("decision " + (step + 1) + ": the game is over");
    const legal = state.legalActions();
    if (!(Number.isInteger(index) && index >= 0 && index < legal.length)) {
      throw new Error("decision " + (step + 1) + ": action index " + index +
                      " is not between 0 and " + (legal.length - 1));
    }
    frames.push(frame({ seat: state.currentSeat(), kind: state.decisionKind(),
                        prompt: state.prompt(),
                        actions: legal.map((action) => [action.code, action.label]) }));
    state.apply(legal[index]);
  });
  frames.push(frame(null));
  return { frames, events: state.events.map((event) => [event.text, event.visibleTo]),
           scores: state.scores(), endReason: state.endReason };
}

return { PyRandom, register, replay };
})();
if (typeof module !== "undefined") module.exports = CircusRules;
