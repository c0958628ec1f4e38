// runStores as the first thing of a program that enters a store (no run,
// enterWith or Variable before it): the store it enters reaches the jobs
// of thenables awaited inside fn (their then) (V8 10.2 needs the layer's thenable repair
// for those, which runStores turns on before its frame is current) and the
// reactions fn queues; outside, the store is unset.
// expect-stdout: ^in the thenable's then: req-1$
// expect-stdout: ^after a thenable: req-1$
// expect-stdout: ^in a reaction: req-1$
// expect-stdout: ^outside: undefined$
'use strict';

const als = new AsyncLocalStorage();
const ch = diagnosticsChannel.channel('first:runStores');
ch.bindStore(als, (data) => `req-${data}`);
const thenable = {
  then(resolve) {
    console.log(`in the thenable's then: ${als.getStore()}`);
    resolve('value');
  },
};
ch.runStores(1, async () => {
  Promise.resolve().then(() => console.log(`in a reaction: ${als.getStore()}`));
  await thenable;
  console.log(`after a thenable: ${als.getStore()}`);
});
console.log(`outside: ${als.getStore()}`);
