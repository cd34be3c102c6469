#!/usr/bin/env node
'use strict';
// A circus-referee bot in Node.js: a gRPC server for the service circus.v1.Bot.
//
// The message and service definitions are loaded at run time from the
// project's proto/ folder (../../proto from here) with @grpc/proto-loader:
// nothing is copied or generated. The choice of each move is in rules.js.
//
//   npm ci                                    # once, in this folder
//   node bot.js --address unix:/tmp/bot.sock  # or CIRCUS_BOT_ADDRESS=...; or --port 50051
//
// In a bots.yaml: `command: node bots/js/bot.js --address {address}`.

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { RULES, choose } = require('./rules');

const NAME = 'js-rules';
const VERSION = require('./package.json').version;
const PROTOCOL_VERSION = '1.0.0';
const PROTO_DIR = path.resolve(__dirname, '..', '..', 'proto');
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

function log(message) {
  process.stderr.write(`${NAME}: ${message}\n`);
}

function usage(problem) {
  if (problem) process.stderr.write(`${NAME}: ${problem}\n`);
  process.stderr.write('usage: node bot.js --address ADDRESS | --port PORT   '
    + '(default: $CIRCUS_BOT_ADDRESS, then $CIRCUS_BOT_PORT)\n');
  process.exit(problem ? 2 : 0);
}

// The gRPC address to listen on: --address A (e.g. unix:/run/circus/bot.sock, what the
// referee's sandbox gives), --port N (127.0.0.1:N), else CIRCUS_BOT_ADDRESS, CIRCUS_BOT_PORT.
function parseAddress(argv, env) {
  let address;
  let port;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') usage();
    else if (arg === '--address') address = argv[(i += 1)];
    else if (arg.startsWith('--address=')) address = arg.slice('--address='.length);
    else if (arg === '--port') port = argv[(i += 1)];
    else if (arg.startsWith('--port=')) port = arg.slice('--port='.length);
    else usage(`unknown argument ${JSON.stringify(arg)}`);
  }
  if (address) return address;
  if (port === undefined && env.CIRCUS_BOT_ADDRESS) return env.CIRCUS_BOT_ADDRESS;
  const text = port === undefined ? env.CIRCUS_BOT_PORT : port;
  if (text === undefined || text === '') usage('give --address or --port, or set CIRCUS_BOT_ADDRESS');
  const number = Number(text);
  if (!Number.isInteger(number) || number < 1 || number > 65535) usage(`bad port ${JSON.stringify(text)}`);
  return `127.0.0.1:${number}`;
}

function loadService() {
  const definition = protoLoader.loadSync('circus/v1/bot.proto', {
    includeDirs: [PROTO_DIR],
    keepCase: true, // field names exactly as in the .proto files
    longs: String, // uint64 decision_id arrives as a string and is echoed as one
    enums: String,
    defaults: true, // absent fields read as their defaults ([] , 0, '')
    oneofs: true, // observation.game names the game's field, e.g. 'flea_circus'
  });
  return grpc.loadPackageDefinition(definition).circus.v1.Bot.service;
}

// The games in progress, by game_id: what StartGame said.
const games = new Map();

const handlers = {
  Hello(call, callback) {
    const theirs = call.request.protocol_version;
    if (theirs.split('.')[0] !== PROTOCOL_VERSION.split('.')[0]) {
      log(`the referee speaks protocol ${theirs}, this bot ${PROTOCOL_VERSION}`);
    }
    callback(null, {
      name: NAME,
      version: VERSION,
      protocol_version: PROTOCOL_VERSION,
      // An empty variants list means every variant of the game.
      games: Object.keys(RULES).map((game) => ({ game, variants: [] })),
    });
  },

  StartGame(call, callback) {
    const { game_id, game, variant, seat, num_players } = call.request;
    games.set(game_id, { game, variant, seat, decisions: 0 });
    log(`start ${game_id}: ${game} (${variant}), seat ${seat} of ${num_players}`);
    callback(null, {});
  },

  Decide(call, callback) {
    const request = call.request;
    const game = games.get(request.game_id);
    if (game) game.decisions += 1;
    let index;
    try {
      index = choose(request);
    } catch (error) {
      // A bug in a rule must not cost the game: play the first legal action.
      log(`rule failed on ${request.game_id} #${request.decision_id}: ${error.stack}`);
      index = 0;
    }
    callback(null, { decision_id: request.decision_id, action_index: index });
  },

  EndGame(call, callback) {
    const { game_id, seat, scores, ranks, reason, status } = call.request;
    const game = games.get(game_id);
    games.delete(game_id);
    log(`end ${game_id} (${status}, ${reason}): seat ${seat} scored ${scores[seat]}, `
      + `rank ${ranks[seat]} of ${ranks.length}` + (game ? ` after ${game.decisions} decisions` : ''));
    callback(null, {});
  },
};

function main() {
  const address = parseAddress(process.argv.slice(2), process.env);
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  server.addService(loadService(), handlers);
  // A unix socket or a loopback port: the referee runs on the same machine.
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      log(`cannot listen on ${address}: ${error.message}`);
      process.exit(1);
    }
    log(`listening on ${address}`);
  });

  let stopping = false;
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    // Finish calls in flight, but quickly: the referee kills the group 1 s after SIGTERM.
    const force = setTimeout(() => {
      server.forceShutdown();
      process.exit(0);
    }, 300);
    force.unref();
    server.tryShutdown(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main();
