// The boardgame.io peer's server: Gravity only, on the storage named by the
// first argument: `memory`, `flatfile DIR` (its FlatFile, node-persist) or
// `postgres URL` (the bgio-postgres adapter). The port is PEER_PORT.
'use strict';
const { Server } = require('boardgame.io/server');
const { Gravity } = require('./gravity');

function storage(kind, where) {
  if (kind === 'memory') return undefined;
  if (kind === 'flatfile') {
    const { FlatFile } = require('boardgame.io/server');
    return new FlatFile({ dir: where, logging: false });
  }
  if (kind === 'postgres') {
    const { PostgresStore } = require('bgio-postgres');
    return new PostgresStore(where, { logging: false });
  }
  throw new Error(`unknown storage ${kind}`);
}

const db = storage(process.argv[2] || 'memory', process.argv[3]);
const server = Server({ games: [Gravity], db });
server.run(Number(process.env.PEER_PORT || 18400), () => console.log('peer ready'));
