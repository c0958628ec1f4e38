// args: --expose-gc
// expect-exit: 0
// expect-stdout: ^unreferenced channel: collected true, channel\(\) gives a new object true, hasSubscribers false$
// expect-stdout: ^subscribed channel: alive true, same object true, publish reaches it true$
// expect-stdout: ^module-level subscribe: alive true, same object true$
// expect-stdout: ^bound store only: alive true, same object true, runStores enters it true$
// expect-stdout: ^tracing channel with a handler: start alive true, handlerless error channel collected true, same start true$
// expect-stdout: ^after unsubscribe/unbindStore: collected 4/4$
// expect-stdout: ^symbol names: unreferenced collected true, subscribed alive true$
// expect-stdout: ^1000 unreferenced channels: collected 1000/1000$
// expect-stdout: ^done$
//
// Channels are held weakly while nothing subscribes (Node.js 24's
// WeakReference registry): a channel that has no subscriber, no bound store
// and no reference from the program is collected by a real GC, and
// channel(name) then makes a new object; a subscriber (on the channel or
// through the module-level subscribe) or a bound store keeps it, and
// unsubscribing the last one makes it collectable again. The same file runs
// in Node 24 (`node --expose-gc FILE` prints the same lines).

'use strict';

const dc = typeof diagnosticsChannel === 'object' ?
    diagnosticsChannel :
    require('node:diagnostics_channel');
const {AsyncLocalStorage: ALS} = typeof AsyncLocalStorage === 'function' ?
    {AsyncLocalStorage} :
    require('node:async_hooks');
const log = console.log;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

async function collect() {
  // A WeakRef's target stays alive until the end of the job that made or
  // dereferenced it: collect from fresh tasks, twice.
  await tick();
  gc();
  await tick();
  gc();
  await tick(5);
}

// Makes the channel in a function of its own, so that no local of the
// caller refers to it; marks it to recognise it later.
function make(name, setUp) {
  const channel = dc.channel(name);
  channel.marker = name;
  if (setUp) setUp(channel);
  return new WeakRef(channel);
}

const onMessage = () => {};

async function main() {
  const plain = make('gc:plain');
  const subscribed = make('gc:subscribed', (ch) => ch.subscribe(onMessage));
  dc.subscribe('gc:module', onMessage);
  const moduleLevel = make('gc:module');
  const als = new ALS();
  const bound = make('gc:bound', (ch) => ch.bindStore(als));
  const tracingStartRef = (() => {
    const tc = dc.tracingChannel('gc:traced');
    tc.subscribe({start: onMessage});
    tc.start.marker = 'gc:traced';
    return new WeakRef(tc.start);
  })();
  const tracingErrorRef = new WeakRef(dc.channel('tracing:gc:traced:error'));
  const symbolName = Symbol('gc:symbol');
  const symbolPlain = make(symbolName);
  const symbolSubscribedName = Symbol('gc:symbol-subscribed');
  const symbolSubscribed =
      make(symbolSubscribedName, (ch) => ch.subscribe(onMessage));
  const many = [];
  for (let i = 0; i < 1000; i++) many.push(make(`gc:many:${i}`));

  await collect();

  const fresh = dc.channel('gc:plain');
  log(`unreferenced channel: collected ${plain.deref() === undefined}, ` +
      `channel() gives a new object ${fresh.marker === undefined}, ` +
      `hasSubscribers ${dc.hasSubscribers('gc:plain')}`);

  let received = false;
  const again = dc.channel('gc:subscribed');
  const second = () => {
    received = true;
  };
  again.subscribe(second);
  again.publish('x');
  log(`subscribed channel: alive ${subscribed.deref() !== undefined}, ` +
      `same object ${again.marker === 'gc:subscribed'}, ` +
      `publish reaches it ${received}`);

  log(`module-level subscribe: alive ${moduleLevel.deref() !== undefined}, ` +
      `same object ${dc.channel('gc:module').marker === 'gc:module'}`);

  const boundAgain = dc.channel('gc:bound');
  const seen = boundAgain.runStores('store', () => als.getStore());
  log(`bound store only: alive ${bound.deref() !== undefined}, ` +
      `same object ${boundAgain.marker === 'gc:bound'}, ` +
      `runStores enters it ${seen === 'store'}`);

  log(`tracing channel with a handler: ` +
      `start alive ${tracingStartRef.deref() !== undefined}, ` +
      `handlerless error channel collected ` +
      `${tracingErrorRef.deref() === undefined}, same start ` +
      `${dc.tracingChannel('gc:traced').start.marker === 'gc:traced'}`);

  log(`symbol names: unreferenced collected ${symbolPlain.deref() === undefined}, ` +
      `subscribed alive ${symbolSubscribed.deref() !== undefined}`);

  let gone = 0;
  for (const ref of many) {
    if (ref.deref() === undefined) gone++;
  }
  log(`1000 unreferenced channels: collected ${gone}/1000`);

  // Release every holder; the channels become collectable again.
  const released = [];
  again.unsubscribe(onMessage);
  again.unsubscribe(second);
  released.push(subscribed);
  dc.unsubscribe('gc:module', onMessage);
  released.push(moduleLevel);
  dc.channel('gc:bound').unbindStore(als);
  released.push(bound);
  dc.tracingChannel('gc:traced').unsubscribe({start: onMessage});
  released.push(tracingStartRef);
  return released;
}

main().then(async (released) => {
  await collect();
  const gone = released.filter((ref) => ref.deref() === undefined).length;
  log(`after unsubscribe/unbindStore: collected ${gone}/${released.length}`);
  log('done');
});
