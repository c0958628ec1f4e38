// withScope as the first thing of a program that enters a store (no run,
// enterWith or Variable before it): the store reaches the `then` of a
// thenable awaited after it (V8 10.2 needs the layer's thenable repair for
// that job, which withScope turns on before its frame is current), and the
// scope's dispose restores the root.
// expect-stdout: ^in the thenable's then: scoped$
// expect-stdout: ^after the thenable: scoped$
// expect-stdout: ^after dispose: undefined$
'use strict';

const als = new AsyncLocalStorage();
const thenable = {
  then(resolve) {
    console.log(`in the thenable's then: ${als.getStore()}`);
    resolve();
  },
};
(async () => {
  const scope = als.withScope('scoped');
  await thenable;
  console.log(`after the thenable: ${als.getStore()}`);
  scope.dispose();
  console.log(`after dispose: ${als.getStore()}`);
})();
