// Request tracing: every log line knows its request, and no id is passed
// around by hand.
//
//   tools/run examples/request_tracing.js
//
// A tiny in-process "server" (no network) accepts four requests a few
// milliseconds apart. Their handlers interleave: each one waits on timers,
// `await`s promises, fans out with Promise.all, and queries a fake database
// whose queries are *thenables* (objects with a `then` method, like the query
// builders of many database libraries). Two context values follow the work:
//
//   requestContext  an AsyncLocalStorage holding the request {id, method, ...}
//   step            a TC39 AsyncContext.Variable naming the traced step
//
// log() reads both. Without async context, every line after the first
// `await` would have to be handed the request explicitly.
//
// On V8 10.2, `await thenable` does not carry V8's context on its own:
// asyncctx repairs it (docs/semantics.md), so the `query` lines, logged from
// the thenable's then(), still name their request and step.
//
// The shell's console.log is native, but it does not read the context itself.
// For C++ code reading the request id from the context (a native logger on a
// thread-pool completion), see examples/host_io.cc.

const requestContext = new AsyncLocalStorage();
const step = new AsyncContext.Variable({name: 'step', defaultValue: ''});

function log(message) {
  const request = requestContext.getStore();
  const tag = request ? `req ${request.id}` : 'server';
  const where = step.get() ? ` ${step.get()}:` : '';
  console.log(`[${tag}]${where} ${message}`);
}

// Runs fn as a named step; everything it starts, now or later, sees the name.
function traced(name, fn) {
  const parent = step.get();
  return step.run(parent ? `${parent}/${name}` : name, fn);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A database client whose query() returns a thenable, not a promise.
const db = {
  query(sql, rows, latencyMs) {
    return {
      then(onFulfilled) {
        log(`query: ${sql}`);
        setTimeout(() => onFulfilled(rows), latencyMs);
      },
    };
  },
};

const users = {ada: 'Ada Lovelace', grace: 'Grace Hopper', linus: 'Linus'};

async function authenticate(token) {
  await sleep(3);
  if (!(token in users)) throw new Error(`unknown token '${token}'`);
  log(`token ok: ${users[token]}`);
  return token;
}

async function fetchPrices(orders) {
  await sleep(8);
  log(`priced ${orders.length} item(s)`);
  return orders.map((order) => order.length * 10);
}

async function fetchStock(orders) {
  await sleep(2);
  log(`checked stock`);
  return orders.map(() => true);
}

async function handle(request) {
  log(`${request.method} ${request.path}`);
  const user = await traced('auth', () => authenticate(request.token));
  const orders = await traced('db', async () => {
    const rows = await db.query(
        `SELECT item FROM orders WHERE user = '${user}'`, request.orders, 6);
    log(`${rows.length} row(s)`);
    return rows;
  });
  const [prices] = await traced('fan-out', () =>
    Promise.all([traced('prices', () => fetchPrices(orders)),
                 traced('stock', () => fetchStock(orders))]));
  // Work that outlives the response keeps the request's context too.
  setTimeout(() => log('access log flushed'), 1);
  return prices.reduce((sum, price) => sum + price, 0);
}

// The "server": requests arrive on timers, each handled in its own context.
const incoming = [
  {at: 0, method: 'GET', path: '/cart', token: 'ada', orders: ['tea']},
  {at: 2, method: 'GET', path: '/cart', token: 'grace',
   orders: ['compiler', 'moth']},
  {at: 4, method: 'POST', path: '/checkout', token: 'linus',
   orders: ['kernel']},
  {at: 6, method: 'GET', path: '/cart', token: 'mallory', orders: []},
];
// The server's own context (nothing set), to log from when a request ends.
const serverContext = new AsyncContext.Snapshot();
let nextId = 1;
let open = 0;

function accept(request) {
  const id = nextId++;
  log(`accepted ${request.method} ${request.path} as request ${id}`);
  open++;
  requestContext.run({id, ...request}, async () => {
    try {
      const total = await handle(request);
      log(`200 OK, total ${total}`);
    } catch (error) {
      log(`401 Unauthorized (${error.message})`);
    }
    if (--open === 0 && nextId > incoming.length) {
      serverContext.run(() => log(`idle after ${incoming.length} requests`));
    }
  });
}

log('listening');
for (const request of incoming) setTimeout(() => accept(request), request.at);
