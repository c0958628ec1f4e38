// args: --expose-gc
// expect-exit: 0
// expect-stdout: ^construction context: variable foo, store s, held h1, this undefined$
// expect-stdout: ^reaction queued by the cleanup: variable foo, store s$
// expect-stdout: ^registry made at the root, registered in a store: variable undefined, store undefined$
// expect-stdout: ^a registry made earlier, cleaned up after it: variable undefined, store undefined$
// expect-stdout: ^subclass: variable sub, held h3$
// expect-stdout: ^next task: variable undefined, store undefined$
// expect-stdout: ^done$
//
// A FinalizationRegistry cleanup callback runs in the context in which the
// registry was constructed (the AsyncContext proposal; test262's
// built-ins/AsyncContext/context-propagation/FinalizationRegistry.js is the
// first case), not where the target was registered or where gc() ran, and
// the registry's context reaches neither other registries' cleanups nor
// later tasks. (V8 runs each registry's cleanups in a task of their own,
// and the shell starts every task at the root, so that the frame the
// wrapper restores after the callback is checked by the unit test
// PropagationTest.FinalizationRegistryCleanupRunsInTheConstructionFrame,
// which runs V8's tasks with nothing around them.)
// Node 24 and 26 run every cleanup in the frame current when V8's task
// runs (the first line prints "variable undefined, store undefined" there).

'use strict';

const log = console.log;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
const variable = new AsyncContext.Variable();
const als = new AsyncLocalStorage();
const seen = () =>
  `variable ${variable.get()}, store ${als.getStore()}`;

async function collect() {
  // Targets stay alive until the end of the job that created them, and
  // cleanups run from a task: collect from fresh tasks, twice.
  await tick();
  gc();
  await tick();
  gc();
  await tick(5);
}

// Made first: V8 runs its cleanup after the later registries' (either order
// must give the root here).
const early = new FinalizationRegistry(() => {
  log(`a registry made earlier, cleaned up after it: ${seen()}`);
});
let reaction;
const fromFoo = variable.run('foo', () => als.run('s', () =>
  new FinalizationRegistry(function(held) {
    log(`construction context: ${seen()}, held ${held}, this ${this}`);
    reaction = Promise.resolve().then(() => {
      log(`reaction queued by the cleanup: ${seen()}`);
    });
  })));
const fromRoot = new FinalizationRegistry(() => {
  log(`registry made at the root, registered in a store: ${seen()}`);
});
class Sub extends FinalizationRegistry {}
const fromSub = variable.run('sub', () => new Sub((held) => {
  log(`subclass: variable ${variable.get()}, held ${held}`);
}));

variable.run('bar', () => als.run('registered', () => {
  fromFoo.register({payload: new Array(100)}, 'h1');
  fromRoot.register({payload: new Array(100)}, 'h2');
  early.register({payload: new Array(100)}, 'h4');
  fromSub.register({payload: new Array(100)}, 'h3');
}));

(async () => {
  await variable.run('baz', () => collect());
  await reaction;
  await tick();
  log(`next task: ${seen()}`);
  log('done');
})();
