// Module evaluation runs in the empty context (the AsyncContext proposal):
// a module imported with import() inside als.run(...) and
// variable.run(...), and the module it imports statically, see no store and
// no variable value at their top level, after a top-level await, or in the
// jobs and timers their top level queues. The promise import() returns is
// the caller's: its reactions see the caller's store. The module is
// evaluated once; a later import() gets the same namespace.
// Node 24 and 26 evaluate it in the importer's store (every probe line
// says "store caller" there; node test/js/shell/modules_empty_context_node.js).
// expect-stdout: \Astatic import top level: store undefined, variable undefined\n
// expect-stdout: \ntop level: store undefined, variable undefined\n
// expect-stdout: \ntop-level reaction: store undefined, variable undefined\n
// expect-stdout: \nafter top-level await: store undefined, variable undefined\n
// expect-stdout: \nreaction on import\(\): store caller, variable caller\n
// expect-stdout: \nawait import\(\): store second caller, same namespace true\n
// expect-stdout: \ntop-level timer: store undefined, variable undefined\n
// expect-stdout: \nafter the imports: store undefined\n\Z
'use strict';

const log = globalThis.probeLog = [];
const als = globalThis.probeStorage = new AsyncLocalStorage();
const variable = globalThis.probeVariable = new AsyncContext.Variable();
const flush = () => {
  for (const line of log.splice(0)) console.log(line);
};

const first = variable.run('caller', () => als.run('caller', () =>
  import('./fixtures/context_probe.mjs').then((ns) => {
    log.push(`reaction on import(): store ${als.getStore()}, ` +
             `variable ${variable.get()}`);
    return ns;
  })));

(async () => {
  const ns = await first;
  await als.run('second caller', async () => {
    const again = await import('./fixtures/context_probe.mjs');
    log.push(`await import(): store ${als.getStore()}, ` +
             `same namespace ${again === ns}`);
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  log.push(`after the imports: store ${als.getStore()}`);
  flush();
})();
