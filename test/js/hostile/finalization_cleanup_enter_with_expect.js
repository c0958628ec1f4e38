// Two tenants' FinalizationRegistry cleanups run in the same turn of the
// event loop. Each calls enterWith() on its own store inside its cleanup:
// the store must reach neither the other tenant's cleanup nor the jobs that
// cleanup queues (a reaction, an await, queueMicrotask, a timer), and both
// cleanups run at the root with executionAsyncId()/triggerAsyncId() 0/0, as
// every platform task does in Node. The tenant whose cleanup runs second
// also sees only its own store in its jobs.
// args: --expose-gc
// isolated-vm: platform tasks are the host's (isolated-vm runs V8's
// cleanup task there, not in a task scope of asyncctx: its ids are
// isolated-vm's, 1/0, and only the stores are checked)
// expect-stdout: ^tenant a: cleanup ran, 5 checks ok$
// expect-stdout: ^tenant b: cleanup ran, 5 checks ok$
'use strict';

const tenants = ['a', 'b'].map((name) => ({
  name,
  store: new AsyncLocalStorage(),
  wrong: [],
  checks: 0,
  ran: false,
}));

function check(tenant, where, ownExpected) {
  tenant.checks++;
  for (const other of tenants) {
    const expected = other === tenant ? ownExpected : undefined;
    const got = other.store.getStore();
    if (got !== expected) {
      tenant.wrong.push(`${where}: ${other.name}'s store is ${got}`);
    }
  }
}

for (const tenant of tenants) {
  const registry = new FinalizationRegistry(() => {
    tenant.ran = true;
    const ids = `${asyncHooks.executionAsyncId()}/${asyncHooks.triggerAsyncId()}`;
    if (ids !== '0/0' && !globalThis.platformTasksAreTheHosts) {
      tenant.wrong.push(`cleanup ids ${ids}`);
    }
    check(tenant, 'cleanup', undefined);
    tenant.store.enterWith(`${tenant.name}-secret`);
    const own = `${tenant.name}-secret`;
    Promise.resolve().then(() => check(tenant, 'reaction', own));
    (async () => {
      await null;
      check(tenant, 'await', own);
    })();
    queueMicrotask(() => check(tenant, 'queueMicrotask', own));
    setTimeout(() => check(tenant, 'timer', own), 1);
  });
  // Registered from a function, so that nothing keeps the object alive.
  (() => registry.register({}, tenant.name))();
  tenant.registry = registry;
}

setTimeout(() => {
  gc();
  setTimeout(() => {
    for (const tenant of tenants) {
      const ok = tenant.ran && tenant.wrong.length === 0;
      console.log(`tenant ${tenant.name}: ` +
                  (ok ? `cleanup ran, ${tenant.checks} checks ok` :
                        `FAIL ran ${tenant.ran}: ${tenant.wrong.join('; ')}`));
    }
  }, 30);
}, 1);
