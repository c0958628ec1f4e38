// A tracer as APM tools build one on dc-polyfill (Datadog's dd-trace does):
// it binds an AsyncLocalStorage to the start channels of a library's
// tracing channels, so each traced call runs in a span whose parent is the
// span current where the call was made, and every event handler and every
// piece of async work the call starts sees that span. The "library" below
// publishes through traceSync, tracePromise and traceCallback, and through
// a plain channel with runStores; two requests run at once.
//
// check.py bundles dc-polyfill (from the npm registry) into dc.bundle.mjs
// and runs this file in the shell and in Node 24, and compares the output.
import { AsyncLocalStorage } from 'node:async_hooks';
import dc from './dc.bundle.mjs';  // made by check.py

const out = [];
const als = new AsyncLocalStorage();
const spanOf = () => als.getStore()?.span ?? '-';
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- the tracer ------------------------------------------------------------
const logs = new Map();  // request id -> its events, in order
const record = (ctx, event) => {
  const request = ctx.request ?? 'none';
  if (!logs.has(request)) logs.set(request, []);
  const detail = event === 'error' ? `:${ctx.error.message}` :
      event === 'asyncEnd' || event === 'end' ?
          `:${'result' in ctx ? String(ctx.result) : 'pending'}` : '';
  logs.get(request).push(`${ctx.op}.${event}${detail}@${spanOf()}`);
};

let spans = 0;
const operations = ['db.query', 'http.fetch', 'json.parse'];
const channels = {};
const handlers = {};
const before = operations.map((op) => dc.tracingChannel(op).hasSubscribers);
for (const op of operations) {
  const tc = dc.tracingChannel(op);
  channels[op] = tc;
  tc.start.bindStore(als, (ctx) => ({
    span: `${op}#${++spans}(parent=${spanOf()})`,
    request: ctx.request,
  }));
  handlers[op] = {
    start: (ctx) => record(ctx, 'start'),
    end: (ctx) => record(ctx, 'end'),
    asyncStart: (ctx) => record(ctx, 'asyncStart'),
    asyncEnd: (ctx) => record(ctx, 'asyncEnd'),
    error: (ctx) => record(ctx, 'error'),
  };
  tc.subscribe(handlers[op]);
}
out.push(`hasSubscribers before ${before.join(',')} after ` +
         operations.map((op) => channels[op].hasSubscribers).join(','));

// A request-scoped plain channel: the framework enters the request's store
// for the handler with runStores.
const requestChannel = dc.channel('app.request');
requestChannel.bindStore(als, (req) => ({span: `request:${req.id}`,
                                          request: req.id}));
const seenByRequestSubscriber = [];
requestChannel.subscribe((req, name) => {
  seenByRequestSubscriber.push(`${String(name)}:${req.id}@${spanOf()}`);
});

// --- the library -----------------------------------------------------------
function parse(request, text) {
  return channels['json.parse'].traceSync((t) => {
    if (t === 'bad') throw new Error('bad json');
    return `parsed(${t})@${spanOf()}`;
  }, {op: 'json.parse', request}, undefined, text);
}

function query(request, sql, callback) {
  return channels['db.query'].traceCallback((s, cb) => {
    setTimeout(() => {
      if (s === 'fail') cb(new Error('db down'));
      else cb(null, `rows(${s})`);
    }, 1);
    return 'queued';
  }, -1, {op: 'db.query', request}, undefined, sql, callback);
}

function fetchData(request, url) {
  return channels['http.fetch'].tracePromise(async (u) => {
    await delay(1);
    await {then(resolve) { resolve(); }};
    const body = await new Promise((resolve) => queueMicrotask(
        () => resolve(u === 'missing' ? null : `body(${u})@${spanOf()}`)));
    if (body === null) throw new Error('404');
    return parse(request, body);
  }, {op: 'http.fetch', request}, undefined, url);
}

// --- the application -------------------------------------------------------
async function handle(id) {
  return requestChannel.runStores({id}, async () => {
    const trail = [`handler@${spanOf()}`];
    trail.push(await fetchData(id, `/${id}`));
    const rows = await new Promise((resolve, reject) => {
      const queued = query(id, `select ${id}`, (err, res) => {
        trail.push(`callback@${spanOf()}`);
        if (err) reject(err);
        else resolve(res);
      });
      trail.push(`query returned ${queued}@${spanOf()}`);
    });
    trail.push(rows);
    try {
      await fetchData(id, 'missing');
    } catch (err) {
      trail.push(`caught ${err.message}@${spanOf()}`);
    }
    try {
      parse(id, 'bad');
    } catch (err) {
      trail.push(`caught ${err.message}@${spanOf()}`);
    }
    await new Promise((resolve) => query(id, 'fail', (err) => {
      trail.push(`callback error ${err.message}@${spanOf()}`);
      resolve();
    }));
    trail.push(`end@${spanOf()}`);
    return trail;
  });
}

const [a, b] = await Promise.all([handle('a'), handle('b')]);
out.push(`request a: ${a.join(' | ')}`);
out.push(`request b: ${b.join(' | ')}`);
for (const id of ['a', 'b']) {
  out.push(`events ${id}: ${logs.get(id).join(' ')}`);
}
out.push(`request subscriber: ${seenByRequestSubscriber.sort().join(' ')}`);
out.push(`outside: ${spanOf()}`);
out.push(`spans made: ${spans}`);

// Unsubscribing and unbinding: the channels fall silent.
for (const op of operations) {
  const tc = channels[op];
  const stranger = tc.unsubscribe({start: () => {}});
  const own = tc.unsubscribe(handlers[op]);
  const whileBound = tc.hasSubscribers;
  const unbound = tc.start.unbindStore(als);
  out.push(`${op} unsubscribe: a stranger ${stranger}, its own ${own}; ` +
           `hasSubscribers ${whileBound}, after unbindStore ${unbound} ` +
           `${tc.hasSubscribers}`);
}
out.push(`same channel object ${dc.channel('app.request') === requestChannel}` +
         ` unbindStore ${requestChannel.unbindStore(als)}` +
         ` ${requestChannel.unbindStore(als)}`);
out.push('done');
console.log(out.join('\n'));
