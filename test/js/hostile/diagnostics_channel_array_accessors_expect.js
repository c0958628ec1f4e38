// Accessors on Array.prototype indices (getters and setters that record
// what passes) while diagnostics_channel adds and removes subscribers and
// bound stores, replaces a store's transform, publishes and runs stores:
// its lists are copied, never grown, so no subscriber, store or transform
// ever reaches them, and every list still holds what it should.
// expect-stdout: ^observed nothing: true$
// expect-stdout: ^published: a,c,a,c,ts$
// expect-stdout: ^stores: second,undefined$
'use strict';
// Strings, not arrays: an array of the test's own would meet the accessors.
let observed = '';
let seen = '';
for (let i = 0; i < 64; i++) {
  Object.defineProperty(Array.prototype, i, {
    get() {
      observed += ` get ${i}`;
      return undefined;
    },
    set(value) {
      observed += ` set ${i}: ${typeof value}`;
    },
    configurable: true,
  });
}

const dc = diagnosticsChannel;
const ch = dc.channel('hostile:lists');
const a = () => seen += 'a,';
const b = () => seen += 'b,';
const c = () => seen += 'c,';
ch.subscribe(a);
ch.subscribe(b);
ch.subscribe(c);
ch.unsubscribe(b);
ch.publish(1);

const first = new AsyncLocalStorage();
const second = new AsyncLocalStorage();
const third = new AsyncLocalStorage();
ch.bindStore(first, () => 'first');
ch.bindStore(second, () => 'second');
ch.bindStore(third, () => 'third');
// Replacing a transform keeps the store's place (a copy without the old
// entry); unbinding copies the list without it.
ch.bindStore(second, () => 'second');
ch.unbindStore(first);
ch.unbindStore(third);
const stores = ch.runStores(2, () => `${second.getStore()},${first.getStore()}`);

const tc = dc.tracingChannel('hostile:traced');
const handlers = {start() {}, end() {}};
const other = {start() { seen += 'ts'; }};
tc.subscribe(handlers);
tc.subscribe(other);
tc.unsubscribe(handlers);
tc.traceSync(() => 3);
ch.unsubscribe(a);
ch.unsubscribe(c);
ch.unbindStore(second);

console.log(`observed nothing: ${observed === ''}`);
if (observed !== '') console.log(`observed:${observed}`);
console.log(`published: ${seen}`);
console.log(`stores: ${stores}`);
