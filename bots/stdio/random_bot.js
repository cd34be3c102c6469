// A random bot on the stdio transport, with nothing but Node.js itself (no npm package).
//
// The referee writes one request per line on stdin (JSON, docs/protocol.md "The stdio
// transport"); the bot writes one reply per line on stdout, in order, with the request's
// request_id. Its choice is seeded by the game and decision, so a replayed game plays the same.
//
//     command: node bots/stdio/random_bot.js
//     transport: stdio
'use strict';

const crypto = require('crypto');
const readline = require('readline');

const GAMES = [{game: 'flea-circus'}, {game: 'flohcati'}, {game: 'animal-circus'}];

function choose(request) {
  const seed = crypto.createHash('sha256').update(`${request.game_id}/${request.decision_id}`);
  return seed.digest().readUInt32BE(0) % request.legal_actions.length;
}

function answer(message) {
  if ('hello' in message) {
    return {hello: {name: 'stdio-random-js', version: '1.0', protocol_version: '1.1.0',
                    games: GAMES}};
  }
  if ('decide' in message) {
    const request = message.decide;
    return {decide: {decision_id: request.decision_id, action_index: choose(request)}};
  }
  return 'start_game' in message ? {start_game: {}} : {end_game: {}};
}

readline.createInterface({input: process.stdin, crlfDelay: Infinity}).on('line', (line) => {
  const message = JSON.parse(line);
  const reply = answer(message);
  reply.request_id = message.request_id;
  process.stdout.write(JSON.stringify(reply) + '\n');
});
