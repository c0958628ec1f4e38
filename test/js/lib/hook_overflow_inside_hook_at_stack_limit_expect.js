// Hook callbacks that make calls of their own, called at every depth near
// the stack limit by the program (`new AsyncResource` for init,
// runInAsyncScope for before and after, a promise the program resolves for
// promiseResolve, which V8's promise hook calls). Unlike an empty callback,
// whose overflow at its entry leaves the layer no room to look at the error
// (the layer's own call overflows too, and the program gets that
// RangeError), these overflow some frames inside the callback, so the layer
// catches the RangeError with room to spare: at hook call depth 1 it is the
// program's (its code is that deep) and is rethrown to the program's
// try/catch, never a hook error (which would end the process, as in
// Node.js). Nothing is left on the execution stack afterwards.
// expect-stdout: ^init: caught true, ran true$
// expect-stdout: ^before: caught true, ran true$
// expect-stdout: ^after: caught true, ran true$
// expect-stdout: ^promiseResolve: caught true, ran true$
// expect-stdout: ^at rest: true$
'use strict';

// Each kind gets functions of its own, made from a source text of its own
// (so V8 shares no code or feedback between kinds): the callback's dozen
// frames of its own calls, where an overflow lands with room left for the
// layer's catch, and the program's recursion to the limit. Shared ones
// would be optimized by the later kinds' turn (a smaller, inlined chain,
// with no such room).
function freshFunctions(kind) {
  return new Function('hooks', 'kind', 'call', 'length', `// ${kind}
    let ran = 0;
    function chain(n) {
      return n === 0 ? 0 : chain(n - 1) + 1;
    }
    const hook = hooks.createHook({
      [kind]() {
        ran++;
        chain(length);
      },
    }).enable();
    let caught = 0;
    (function deep() {
      try {
        deep();
      } catch {
        // The limit: start calling on the way up.
      }
      try {
        call();
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        caught++;
      }
    })();
    hook.disable();
    return {caught, ran};`);
}

const resource = new AsyncResource('LIMIT');
const calls = {
  init: () => new AsyncResource('LIMIT'),
  before: () => resource.runInAsyncScope(() => {}),
  after: () => resource.runInAsyncScope(() => {}),
  // No executor, which could overflow and reject the promise.
  promiseResolve: () => Promise.resolve(1),
};
// The callback's own frames: a dozen where the program calls the layer,
// 600 (about 48 KB) for promiseResolve, which V8 calls from C++: its entry
// into JavaScript wants some 40 KB of headroom, so a shorter chain never
// overflows inside the callback.
const lengths = {init: 12, before: 12, after: 12, promiseResolve: 600};
for (const kind of Object.keys(calls)) {
  const {caught, ran} =
      freshFunctions(kind)(asyncHooks, kind, calls[kind], lengths[kind]);
  console.log(`${kind}: caught ${caught > 0}, ran ${ran > 0}`);
}

// The bookkeeping is intact: the execution ids are the top level's.
console.log(`at rest: ${asyncHooks.executionAsyncId() === 1 &&
                        asyncHooks.triggerAsyncId() === 0}`);
