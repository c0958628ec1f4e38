// asyncctx inside isolated-vm, under the real `node` binary
// (test/isolated_vm/run_tests.py installs the packed tarball next to the
// pinned isolated-vm in a temporary project and runs this file there):
//
//   node --expose-gc suite.js <project dir> <repo root> [--filter SUBSTR]
//
// Prints `ok - NAME` / `not ok - NAME: why` per case, measurements as
// `# ...` lines, and `N passed, N failed` last.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const {createRequire} = require('module');

const [projectDir, root, ...rest] = process.argv.slice(2);
const filterAt = rest.indexOf('--filter');
const filter = filterAt >= 0 ? rest[filterAt + 1] : '';
const projectRequire = createRequire(path.join(projectDir, 'package.json'));
const ivm = projectRequire('isolated-vm');
const asyncctx = projectRequire('asyncctx-isolated-vm');

let passed = 0;
let failed = 0;
function ok(name) {
  passed++;
  console.log(`ok - ${name}`);
}
function notOk(name, why) {
  failed++;
  console.log(`not ok - ${name}: ${why}`);
}
function check(name, cond, why) {
  cond ? ok(name) : notOk(name, why);
}
function note(text) {
  console.log(`# ${text}`);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function rssMb() {
  global.gc && global.gc();
  return process.memoryUsage().rss / (1 << 20);
}

// --- A minimal host for test/js files: console.log, setTimeout/clearTimeout
// (a timer fires as a task of its own, in the AsyncResource its setTimeout
// call created, as in Node), load() inlined by the runner. -----------------

const SHIM = `
(function(global, hostLog, hostSetTimer, hostClearTimer) {
  'use strict';
  const apply = Reflect.apply;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const ArrayJoin = Array.prototype.join;
  const ArrayMap = Array.prototype.map;
  const StringCtor = String;
  const runIn = AsyncResource.prototype.runInAsyncScope;
  const emitDestroy = AsyncResource.prototype.emitDestroy;
  const asyncId = AsyncResource.prototype.asyncId;
  // Timer objects are the timers' async resources, as in Node.
  class Timeout extends AsyncResource {
    constructor() { super('Timeout'); }
  }
  class Immediate extends AsyncResource {
    constructor() { super('Immediate'); }
  }
  const timers = new MapCtor();  // async id -> {resource, fn, args, repeat}
  function format(args) {
    return apply(ArrayJoin, apply(ArrayMap, args, [(a) => StringCtor(a)]),
                 [' ']);
  }
  global.console = {
    log(...args) { hostLog(format(args)); },
    error(...args) { hostLog(format(args)); },
  };
  function start(resource, fn, args, ms, repeat) {
    const id = apply(asyncId, resource, []);
    apply(mapSet, timers, [id, {resource, fn, args, ms, repeat}]);
    hostSetTimer(id, ms);
    return resource;
  }
  function clear(resource) {
    if (resource === null || typeof resource !== 'object') return;
    const id = apply(asyncId, resource, []);
    const timer = apply(mapGet, timers, [id]);
    if (timer === undefined || timer.resource !== resource) return;
    apply(mapDelete, timers, [id]);
    apply(emitDestroy, resource, []);
    hostClearTimer(id);
  }
  const delay = (ms) => (ms = +ms) >= 1 ? ms : 1;
  global.setTimeout = function setTimeout(fn, ms, ...args) {
    return start(new Timeout(), fn, args, delay(ms), false);
  };
  global.setInterval = function setInterval(fn, ms, ...args) {
    return start(new Timeout(), fn, args, delay(ms), true);
  };
  global.setImmediate = function setImmediate(fn, ...args) {
    return start(new Immediate(), fn, args, -1, false);
  };
  global.clearTimeout = global.clearInterval = global.clearImmediate = clear;
  return function fire(id) {
    const timer = apply(mapGet, timers, [id]);
    if (timer === undefined) return;
    if (!timer.repeat) apply(mapDelete, timers, [id]);
    try {
      apply(runIn, timer.resource, [timer.fn, timer.resource, ...timer.args]);
    } finally {
      if (!timer.repeat) {
        apply(emitDestroy, timer.resource, []);
      } else if (apply(mapGet, timers, [id]) === timer) {
        hostSetTimer(id, timer.ms);
      }
    }
  };
})`;

// One isolate running one test/js program. Resolves with its output lines
// once `doneLine` is printed (or `quietMs` pass without output).
async function runProgram(sources, {doneLine, timeoutMs = 90000,
                                   quietMs = 0}) {
  const isolate = new ivm.Isolate({memoryLimit: 128});
  const lines = [];
  const errors = [];
  let finish;
  const finished = new Promise((resolve) => {
    finish = resolve;
  });
  let quietTimer;
  const hostTimers = new Map();
  try {
    const context = await isolate.createContext();
    await asyncctx.install(context, {onError: (e) => errors.push(e)});
    const shim = await context.eval(SHIM, {reference: true});
    let fire;
    const log = new ivm.Callback((line) => {
      lines.push(line);
      if (line === doneLine) finish();
      if (quietMs) {
        clearTimeout(quietTimer);
        quietTimer = setTimeout(finish, quietMs);
      }
    }, {ignored: true});
    const setTimer = new ivm.Callback((id, ms) => {
      const run = () => {
        hostTimers.delete(id);
        if (!isolate.isDisposed) fire.apply(undefined, [id]).catch(() => {});
      };
      hostTimers.set(id, ms < 0 ? {immediate: setImmediate(run)} :
                                  setTimeout(run, ms));
    }, {ignored: true});
    const clearTimer = new ivm.Callback((id) => {
      const t = hostTimers.get(id);
      if (t && t.immediate) clearImmediate(t.immediate); else clearTimeout(t);
      hostTimers.delete(id);
    }, {ignored: true});
    fire = await shim.apply(
        undefined, [context.global.derefInto(), log, setTimer, clearTimer],
        {result: {reference: true}});
    // Separate classic scripts, as the shell runs them, all before the
    // first timer can fire (Node's thread is blocked meanwhile).
    for (const source of sources) {
      isolate.compileScriptSync(source).runSync(context);
    }
    if (quietMs) quietTimer = setTimeout(finish, quietMs);
    const timeout = sleep(timeoutMs).then(() => 'timeout');
    const how = await Promise.race([finished, timeout]);
    return {lines, errors, timedOut: how === 'timeout'};
  } catch (e) {
    return {lines, errors, thrown: e};
  } finally {
    clearTimeout(quietTimer);
    for (const t of hostTimers.values()) {
      if (t && t.immediate) clearImmediate(t.immediate); else clearTimeout(t);
    }
    isolate.dispose();
  }
}

// As test/js/run_tests.py declares it for the shell.
const V8_VERSION = `const V8_VERSION = Object.freeze([${
    process.versions.v8.split('.').slice(0, 2).join(', ')}]);`;

function inlineLoads(source) {
  return source.replace(/^load\('([^']+)'\);$/mg, (_, file) =>
    fs.readFileSync(path.join(root, file), 'utf8'));
}

// The test/js files that apply inside an isolated-vm isolate: the library's
// own behaviour (ALS, AsyncContext, AsyncResource, hooks, queueMicrotask,
// isolation between requests), with only console.log and timers from the
// host. Left out: what needs the shell itself (gc(), its event loop's
// exit and uncaught-error reporting: the *_expect.js files of test/js/lib).
const JS_TESTS = [
  'test/js/lib/async_context_test.js',
  'test/js/lib/async_context_spec_test.js',
  'test/js/lib/async_local_storage_test.js',
  'test/js/lib/async_resource_test.js',
  'test/js/lib/hooks_test.js',
  'test/js/lib/propagation_test.js',
  'test/js/lib/queue_microtask_test.js',
  'test/js/isolation/context_leaks_test.js',
  'test/js/isolation/requests_test.js',
  'test/js/isolation/root_job_after_enter_with_test.js',
  'test/js/hostile/own_keys_test.js',
  'test/js/hostile/stack_trace_functions_test.js',
];

async function jsTests() {
  const harness = fs.readFileSync(path.join(root, 'test/js/harness.js'),
                                  'utf8');
  let files = 0;
  for (const file of JS_TESTS) {
    const name = `js ${file}`;
    if (filter && !name.includes(filter)) continue;
    files++;
    const result = await runProgram(
        [V8_VERSION, harness,
         inlineLoads(fs.readFileSync(path.join(root, file), 'utf8'))],
        {doneLine: '# done'});
    let cases = 0;
    for (const line of result.lines) {
      if (line.startsWith('ok - ')) {
        cases++;
        ok(`${file}: ${line.slice(5)}`);
      } else if (line.startsWith('not ok - ')) {
        cases++;
        notOk(`${file}: ${line.slice(9)}`, 'failed inside isolated-vm');
      }
    }
    if (result.thrown || result.timedOut || cases === 0 ||
        result.lines[result.lines.length - 1] !== '# done') {
      notOk(name, result.thrown ? String(result.thrown.stack) :
                                  `no '# done' (${cases} cases${
                                      result.timedOut ? ', timed out' : ''})`);
    }
  }
  note(`js: ${files} files run inside isolated-vm isolates`);
}

// test/js/hostile/*_expect.js: each attacker-then-victim program in a fresh
// isolate; the victim lines they expect must appear.
async function hostileTests() {
  const dir = path.join(root, 'test/js/hostile');
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('_expect.js')) continue;
    const name = `hostile ${file}`;
    if (filter && !name.includes(filter)) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const expected = [...text.matchAll(/^\/\/ expect-stdout: (.*)$/mg)]
        .map((m) => new RegExp(m[1], 'm'));
    // `// isolated-vm: quiet-ms N (why)`: the program may print nothing for
    // N ms before it is done (300 unless told).
    const quiet = /^\/\/ isolated-vm: quiet-ms (\d+)/m.exec(text);
    // `// isolated-vm: platform tasks are the host's (why)`: the program
    // runs with globalThis.platformTasksAreTheHosts true (isolated-vm, not
    // asyncctx, runs V8's platform tasks, such as FinalizationRegistry
    // cleanups, there).
    const hostTasks =
        /^\/\/ isolated-vm: platform tasks are the host's/m.test(text);
    const result = await runProgram(
        [V8_VERSION,
         (hostTasks ? 'globalThis.platformTasksAreTheHosts = true;\n' : '') +
             inlineLoads(text)],
        {quietMs: quiet ? Number(quiet[1]) : 300, timeoutMs: 20000});
    const out = result.lines.join('\n');
    const missing = expected.filter((re) => !re.test(out));
    check(name, !result.thrown && missing.length === 0 &&
                    result.errors.length === 0,
          result.thrown ? String(result.thrown) :
                          `missing ${missing.join(', ')}; got ${
                              JSON.stringify(out).slice(0, 300)}; errors ${
                              JSON.stringify(result.errors).slice(0, 200)}`);
  }
}

// A context with the globals installed and a small request handler.
const HANDLER = `
  const als = new AsyncLocalStorage();
  const variable = new AsyncContext.Variable();
  globalThis.handle = async function(id) {
    return als.run(id, () => variable.run(id, async () => {
      let wrong = 0;
      const seen = () => {
        if (als.getStore() !== id || variable.get() !== id) wrong++;
      };
      await null;
      seen();
      await new Promise((resolve) => queueMicrotask(() => {
        seen();
        resolve();
      }));
      await {then(resolve) { seen(); resolve(); }};
      await hostYield();
      seen();
      const resource = new AsyncResource('Request');
      await hostYield();
      resource.runInAsyncScope(seen);
      resource.emitDestroy();
      return wrong;
    }));
  };
`;

// Runs [name, body, want] cases: each body's result must equal `want`.
async function runCases(cases) {
  for (const [name, body, want] of cases) {
    if (filter && !name.includes(filter)) continue;
    try {
      const got = await body();
      check(name, got === want, `got ${JSON.stringify(got)}, want ${
          JSON.stringify(want)}`);
    } catch (e) {
      notOk(name, String(e && e.stack || e));
    }
  }
}

async function newInstalledIsolate(options = {}) {
  const isolate = new ivm.Isolate({memoryLimit: 64});
  const context = await isolate.createContext();
  const errors = [];
  await asyncctx.install(context, {onError: (e) => errors.push(e)});
  // hostYield(): a promise resolved by a later isolated-vm task.
  await context.evalClosure(
      `globalThis.hostYield = () => $0.apply(undefined, [], ` +
          `{result: {promise: true}});`,
      [new ivm.Reference(() => sleep(0))]);
  if (options.handler !== false) await context.eval(HANDLER);
  const handle = await context.global.get('handle', {reference: true})
      .catch(() => undefined);
  return {isolate, context, errors, handle};
}

async function interleaved() {
  const name = 'interleaved: 1,000 requests over 4 isolates';
  if (filter && !name.includes(filter)) return;
  const isolates = await Promise.all([0, 1, 2, 3].map(
      () => newInstalledIsolate()));
  const pending = [];
  for (let i = 0; i < 1000; i++) {
    const {handle} = isolates[i % 4];
    pending.push(handle.apply(undefined, [`request-${i}`],
                              {result: {promise: true, copy: true}}));
  }
  const results = await Promise.allSettled(pending);
  const rejected = results.filter((r) => r.status === 'rejected');
  const wrong = results.filter((r) => r.status === 'fulfilled' && r.value !== 0)
      .length;
  const errors = isolates.reduce((n, i) => n + i.errors.length, 0);
  note(`interleaved: ${results.length} requests, ${wrong} wrong, ` +
       `${rejected.length} rejected, ${errors} errors`);
  check(name, wrong === 0 && rejected.length === 0 && errors === 0,
        `${wrong} wrong, ${rejected.length} rejected (${
            rejected[0] && rejected[0].reason})`);
  for (const i of isolates) i.isolate.dispose();
}

async function churn() {
  const name = 'churn: 1,000 isolates created, installed and disposed';
  if (filter && !name.includes(filter)) return;
  // Isolates of earlier cases that the GC has not disposed yet would count.
  for (let i = 0; i < 40 && asyncctx.stats().live > 0; i++) {
    global.gc && global.gc();
    await sleep(50);
  }
  // The handler releases those disposals posted to Node's thread.
  await sleep(50);
  const startStats = asyncctx.stats();
  // Every 10th isolate is disposed while a script loops inside run(), every
  // 10th terminated by isolated-vm's timeout inside run() and then disposed;
  // the others serve a request and are disposed. `install: false`: the same
  // without asyncctx, for comparison.
  const cycle = async (count, offset, install = true) => {
    let wrong = 0;
    for (let i = 0; i < count; i++) {
      const n = offset + i;
      let isolate, context, handle;
      if (install) {
        ({isolate, context, handle} = await newInstalledIsolate());
      } else {
        isolate = new ivm.Isolate({memoryLimit: 64});
        context = await isolate.createContext();
        await context.eval(`globalThis.als = {run: (s, f) => f()};`);
      }
      if (n % 10 === 3) {
        const running = context.eval(
            `als.run('loop', () => { for (;;) {} })`).catch((e) => e);
        await sleep(1);
        isolate.dispose();
        await running;
      } else if (n % 10 === 7) {
        await context.eval(`als.run('loop', () => { for (;;) {} })`,
                           {timeout: 5}).catch((e) => e);
        isolate.dispose();
      } else {
        if (install) {
          const result = await handle.apply(undefined, [`churn-${n}`],
                                            {result: {promise: true}});
          if (result !== 0) wrong++;
        } else {
          await context.eval('1 + 1');
        }
        isolate.dispose();
      }
    }
    return wrong;
  };
  await cycle(100, 0, false);
  const plainBefore = rssMb();
  await cycle(900, 100, false);
  const plainAfter = rssMb();
  let wrong = await cycle(100, 0);
  const before = rssMb();
  wrong += await cycle(900, 100);
  const after = rssMb();
  // 100 more that isolated-vm disposes when their handles are collected.
  const dropped = async () => {
    const isolate = new ivm.Isolate({memoryLimit: 64});
    const context = await isolate.createContext();
    await asyncctx.install(context, {onError() {}});
    await context.eval(`new AsyncLocalStorage().enterWith(1)`);
  };
  for (let i = 0; i < 100; i++) await dropped();
  await sleep(0);
  for (let i = 0; i < 40 && asyncctx.stats().live > 0; i++) {
    global.gc && global.gc();
    await sleep(50);
  }
  const stats = asyncctx.stats();
  const created = stats.created - startStats.created;
  const destroyed = stats.destroyed - startStats.destroyed;
  note(`churn: 1,000 isolates disposed (100 while looping in run, 100 after ` +
       `a timeout in run) + 100 collected: ${created} runtimes created, ` +
       `${destroyed} destroyed, ${stats.live} live; ${wrong} wrong`);
  note(`churn RSS with asyncctx: ${before.toFixed(1)} MB after 100, ` +
       `${after.toFixed(1)} MB after 1,000 (+${(after - before).toFixed(1)}` +
       ` MB); isolated-vm alone: ${plainBefore.toFixed(1)} -> ` +
       `${plainAfter.toFixed(1)} MB (+${
           (plainAfter - plainBefore).toFixed(1)} MB)`);
  check(name + ': 0 wrong', wrong === 0, `${wrong} wrong`);
  for (let i = 0; i < 50 && asyncctx.stats().handlers >
                              startStats.handlers; i++) {
    await sleep(10);
  }
  const handlersLeft = asyncctx.stats().handlers - startStats.handlers;
  note(`churn: ${handlersLeft} onError handlers left in Node`);
  check(name + ': 0 handlers left', handlersLeft === 0,
        `${handlersLeft} handlers left`);
  check(name + ': 0 stale runtimes',
        startStats.live === 0 && stats.live === 0 && created === 1100 &&
            destroyed === 1100,
        `created ${created}, destroyed ${destroyed}, live ${stats.live} ` +
            `(${startStats.live} before)`);
  check(name + ': RSS bounded (at most 32 MB more over 900 isolates than ' +
            'isolated-vm alone)',
        (after - before) - Math.max(0, plainAfter - plainBefore) < 32,
        `+${(after - before).toFixed(1)} MB`);
}

// The rules a host that checkpoints by itself relies on (each eval is a
// task of its own): nothing one task entered reaches the next.
async function taskBoundaries() {
  const cases = [
    ['boundary: enterWith in one task is not seen by the next', async (c) => {
      await c.eval(`als.enterWith('entered'); variable; 0`);
      return c.eval(`String(als.getStore())`);
    }, 'undefined'],
    ['boundary: enterWith with a pending reaction, then the next task',
     async (c) => {
       await c.eval(`globalThis.sticky = new AsyncLocalStorage();
                     sticky.enterWith('x'); Promise.resolve().then(() => {});`);
       return c.eval(`String(sticky.getStore()) + ' ' +
                      asyncHooks.executionAsyncId()`);
     }, 'undefined 1'],
    ['boundary: isolated-vm timeout inside run(), then the next task at the ' +
         'root', async (c) => {
       const error = await c.eval(`als.run('timed-out', () => { for (;;) {} })`,
                                  {timeout: 20}).then(() => 'resolved',
                                                      (e) => e.message);
       if (!/timed out/.test(error)) return `timeout: ${error}`;
       return c.eval(`String(als.getStore()) + ' ' +
                      asyncHooks.executionAsyncId()`);
     }, 'undefined 1'],
    ['boundary: timeout inside a queueMicrotask callback in run(), then root',
     async (c) => {
       await c.eval(`als.run('micro', () => queueMicrotask(() => {
                       for (;;) {} })); 0`, {timeout: 20}).catch((e) => e);
       return c.eval(`String(als.getStore())`);
     }, 'undefined'],
  ];
  for (const [name, body, want] of cases) {
    if (filter && !name.includes(filter)) continue;
    const {isolate, context} = await newInstalledIsolate();
    try {
      const got = await body(context);
      check(name, got === want, `got ${JSON.stringify(got)}, want ${
          JSON.stringify(want)}`);
    } catch (e) {
      notOk(name, String(e && e.stack || e));
    } finally {
      isolate.dispose();
    }
  }
}

// Errors reach the isolated-vm caller's onError, not Node's stderr; destroy
// hooks run without another task.
async function errorsAndDestroys() {
  const cases = [
    ['errors: a throwing queueMicrotask callback reaches onError',
     async (c, errors) => {
       const result = await c.eval(
           `queueMicrotask(() => { throw new Error('from a microtask'); });
            'returned'`);
       await sleep(50);
       const e = errors[0];
       return `${result} ${errors.length} ${e && e.kind} ${
           e && /from a microtask/.test(e.stack)}`;
     }, 'returned 1 uncaughtException true'],
    ['errors: a throwing hook reaches onError, the task goes on',
     async (c, errors) => {
       const result = await c.eval(`
         asyncHooks.createHook({init() { throw new Error('from init'); }})
             .enable();
         new AsyncResource('X');
         'returned'`);
       await sleep(50);
       const e = errors[0];
       return `${result} ${errors.length > 0} ${e && e.kind} ${e && e.hook}`;
     }, 'returned true hookError init'],
    ['destroys: emitDestroy reaches the hook without another task',
     async (c, errors) => {
       let destroyed = 0;
       const seen = new ivm.Callback(() => destroyed++, {ignored: true});
       await c.evalClosure(`
         asyncHooks.createHook({destroy() { $0(); }}).enable();
         new AsyncResource('X').emitDestroy();`, [seen]);
       for (let i = 0; i < 50 && destroyed === 0; i++) await sleep(10);
       return `${destroyed} ${errors.length}`;
     }, '1 0'],
  ];
  for (const [name, body, want] of cases) {
    if (filter && !name.includes(filter)) continue;
    const {isolate, context, errors} = await newInstalledIsolate();
    try {
      const got = await body(context, errors);
      check(name, got === want, `got ${JSON.stringify(got)}, want ${
          JSON.stringify(want)}`);
    } catch (e) {
      notOk(name, String(e && e.stack || e));
    } finally {
      isolate.dispose();
    }
  }
}

// The onError handlers: installSync() reaches them too (its install runs
// inside createSync()), and each installed context's handler is freed with
// the context, or with its isolate.
async function handlers() {
  const cases = [
    ['handlers: installSync() errors reach onError', async () => {
      const isolate = new ivm.Isolate({memoryLimit: 64});
      try {
        const context = isolate.createContextSync();
        const errors = [];
        const staged = asyncctx.stats().stagedInstalls;
        // Names and onError reach the install made inside createSync().
        asyncctx.installSync(context, {
          names: {AsyncLocalStorage: 'Storage', AsyncContext: ''},
          onError: (e) => errors.push(e),
        });
        const inside = asyncctx.stats().stagedInstalls - staged;
        context.evalSync(`queueMicrotask(() => {
                            throw new Error('from installSync'); }); 0`);
        for (let i = 0; i < 50 && errors.length === 0; i++) await sleep(10);
        const e = errors[0];
        return `${inside} ${context.evalSync(
            '[typeof Storage, typeof AsyncLocalStorage, typeof AsyncContext]' +
            '.join()')} ${errors.length} ${e && e.kind} ${
            e && /from installSync/.test(e.stack)}`;
      } finally {
        isolate.dispose();
      }
    }, '1 function,undefined,undefined 1 uncaughtException true'],
    ['handlers: codeCache is read as an own property only', async () => {
      const isolate = new ivm.Isolate({memoryLimit: 64});
      try {
        const context = isolate.createContextSync();
        context.evalSync(`Object.defineProperty(Object.prototype,
            'codeCache', {get() { globalThis.readIt = true; return false; },
                          configurable: true});`);
        asyncctx.installSync(context, {onError() {}});
        return context.evalSync(
            'delete Object.prototype.codeCache; String(globalThis.readIt)');
      } finally {
        isolate.dispose();
      }
    }, 'undefined'],
    ['handlers: freed when their contexts are collected, then disposed',
     async () => {
       // Releases posted by earlier cases' disposals land first.
       await sleep(50);
       const base = asyncctx.stats().handlers;
       const isolate = new ivm.Isolate({memoryLimit: 64});
       try {
         // Kept (referenced) until all are installed, so none is collected
         // before the count.
         const contexts = [];
         for (let i = 0; i < 300; i++) {
           const context = isolate.createContextSync();
           // A fresh onError each time, as inline arrows are.
           if (i % 2) {
             asyncctx.installSync(context, {onError: () => i});
           } else {
             await asyncctx.install(context, {onError: () => i});
           }
           contexts.push(context);
         }
         const held = asyncctx.stats().handlers - base;
         for (const context of contexts) context.release();
         const last = isolate.createContextSync();
         await asyncctx.install(last, {onError() {}});
         let live = -1;
         for (let i = 0; i < 50 && !(live >= 0 && live <= 2); i++) {
           await last.eval('gc()');
           await sleep(10);
           live = asyncctx.stats().handlers - base;
         }
         isolate.dispose();
         let left = -1;
         for (let i = 0; i < 50 && left !== 0; i++) {
           await sleep(10);
           left = asyncctx.stats().handlers - base;
         }
         // `last`, and at most one context V8 itself still holds (the last
         // one entered before it).
         return `${held} held, ${live >= 1 && live <= 2 ? 'at most 2' : live}` +
             ` live after the GC, ${left} left`;
       } finally {
         if (!isolate.isDisposed) isolate.dispose();
       }
     }, '300 held, at most 2 live after the GC, 0 left'],
    ['handlers: a failed install frees its handler', async () => {
      const isolate = new ivm.Isolate({memoryLimit: 64});
      try {
        const context = isolate.createContextSync();
        asyncctx.installSync(context, {onError() {}});
        const base = asyncctx.stats().handlers;
        const results = [];
        for (const sync of [true, false]) {
          try {
            sync ? asyncctx.installSync(context, {onError() {}}) :
                   await asyncctx.install(context, {onError() {}});
            results.push('installed');
          } catch (e) {
            results.push(e instanceof Error ? 'threw' : typeof e);
          }
        }
        return `${results.join(' ')} ${asyncctx.stats().handlers - base}`;
      } finally {
        isolate.dispose();
      }
    }, 'threw threw 0'],
  ];
  await runCases(cases);
}

async function misuse() {
  const name = 'misuse: installing twice into one context throws';
  if (filter && !name.includes(filter)) return;
  const {isolate, context} = await newInstalledIsolate({handler: false});
  const second = await asyncctx.install(context).then(() => 'installed',
                                                      (e) => e.message);
  isolate.dispose();
  check(name, second !== 'installed', 'the second install succeeded');
}

// What install() refuses or ignores: hostile names on Object.prototype, a
// second install's onError, an isolated-vm it was not built for, Node's
// own context.
async function refusals() {
  const cases = [
    ['refusals: names come from own properties, not Object.prototype',
     async () => {
       const isolate = new ivm.Isolate({memoryLimit: 64});
       try {
         const context = await isolate.createContext();
         await context.eval(`
           Object.prototype.asyncHooks = '';
           Object.defineProperty(Object.prototype, 'AsyncLocalStorage',
                                 {get() { return 'Renamed'; },
                                  configurable: true});`);
         await asyncctx.install(context, {onError() {}});
         return await context.eval(`
           delete Object.prototype.asyncHooks;
           delete Object.prototype.AsyncLocalStorage;
           [typeof asyncHooks, typeof AsyncLocalStorage,
            typeof Renamed].join(' ')`);
       } finally {
         isolate.dispose();
       }
     }, 'object function undefined'],
    ['refusals: a failed second install keeps the first onError', async () => {
      const {isolate, context, errors} =
          await newInstalledIsolate({handler: false});
      try {
        const second = [];
        const result = await asyncctx.install(
            context, {onError: (e) => second.push(e)})
            .then(() => 'installed', () => 'rejected');
        await context.eval(
            `queueMicrotask(() => { throw new Error('after'); }); 0`);
        for (let i = 0; i < 50 && errors.length + second.length === 0; i++) {
          await sleep(10);
        }
        await sleep(20);
        return `${result} ${errors.length} ${second.length}`;
      } finally {
        isolate.dispose();
      }
    }, 'rejected 1 0'],
    ['refusals: an isolated-vm other than 7.0.x is refused before loading',
     async () => {
       // A copy of the wrapper next to a stand-in isolated-vm whose main
       // module throws if anything loads it.
       const pkg = path.dirname(
           projectRequire.resolve('asyncctx-isolated-vm/package.json'));
       const results = [];
       for (const version of ['7.1.0', '8.0.1', '7.0.9']) {
         const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asyncctx-ivm-'));
         try {
           const modules = path.join(dir, 'node_modules');
           const wrapper = path.join(modules, 'asyncctx-isolated-vm');
           const fake = path.join(modules, 'isolated-vm');
           fs.mkdirSync(wrapper, {recursive: true});
           fs.mkdirSync(fake, {recursive: true});
           for (const file of ['index.js', 'package.json']) {
             fs.copyFileSync(path.join(pkg, file), path.join(wrapper, file));
           }
           fs.writeFileSync(path.join(fake, 'package.json'), JSON.stringify(
               {name: 'isolated-vm', version, main: 'main.js'}));
           fs.writeFileSync(path.join(fake, 'main.js'),
                            `throw new Error('isolated-vm was loaded');`);
           const copy = require(wrapper);
           const got = await copy.install({}).then(() => 'installed',
                                                   (e) => e.message);
           results.push(
               /supports isolated-vm 7\.0\.x only, not /.test(got) ?
                   'refused' : got);
         } finally {
           fs.rmSync(dir, {recursive: true, force: true});
         }
       }
       return results.join(', ');
     }, 'refused, refused, isolated-vm was loaded'],
    ['refusals: a NativeModule of the binary made before require() is ' +
         'harmless', async () => {
      // isolated-vm's dlopen comes first: the binary registers nothing with
      // Node at load (Node finds node_register_module_v<ABI> by name), so
      // the wrapper's require() of it still works.
      const script = `
        const ivm = require('isolated-vm');
        const binary = require.resolve('asyncctx-isolated-vm')
            .replace(/index\\.js$/, '');
        const path = require('path');
        const fs = require('fs');
        const dir = path.join(binary, 'prebuilds',
                              process.platform + '-' + process.arch);
        const file = path.join(dir, fs.readdirSync(dir).find(
            (f) => f.endsWith('.abi' + process.versions.modules + '.node')));
        new ivm.NativeModule(file);
        const asyncctx = require('asyncctx-isolated-vm');
        const isolate = new ivm.Isolate({memoryLimit: 32});
        const context = isolate.createContextSync();
        asyncctx.installSync(context);
        console.log(context.evalSync('typeof AsyncLocalStorage'));`;
      const child = require('child_process').spawnSync(
          process.execPath, ['-e', script],
          {cwd: projectDir, encoding: 'utf8', timeout: 60000});
      return child.status === 0 ? child.stdout.trim() :
                                  `exit ${child.status} ${child.signal} ${
                                      child.stderr.slice(0, 300)}`;
    }, 'function'],
    ['refusals: install() in Node\'s own context throws', async () => {
      // node_context_addon.cc (run_tests.py builds it) calls InitForContext
      // in this context, which isolated-vm's API never does.
      const addon = require(path.join(projectDir, 'node_context_addon.node'));
      const before = asyncctx.stats();
      const target = addon.initInNodeContext(asyncctx.binaryPath);
      let got;
      try {
        got = `returned ${target.install('{}')}`;
      } catch (e) {
        got = /cannot run in a Node\.js context/.test(e.message) ?
            'refused' : e.message;
      }
      const after = asyncctx.stats();
      return `${got} ${typeof globalThis.AsyncLocalStorage} ${
          after.created - before.created}`;
    }, 'refused undefined 0'],
  ];
  await runCases(cases);
}

async function cost() {
  const name = 'cost: createContext() with and without install measured';
  if (filter && !name.includes(filter)) return;
  const r = await require('./bench.js').run(projectDir, root, true);
  check(name, r.install > 0 && r.context > 0 && r.compileCold > 0 &&
                  r.asyncInstall > 0 && r.roundTrip > 0 &&
                  r.cacheRejected === 0,
        JSON.stringify(r));
}

(async () => {
  const start = Date.now();
  await jsTests();
  await hostileTests();
  await interleaved();
  await taskBoundaries();
  await errorsAndDestroys();
  await handlers();
  await misuse();
  await churn();
  await refusals();
  await cost();
  note(`took ${((Date.now() - start) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  // Not process.exit(): it deletes V8's platform without running Node's
  // cleanup hooks, where isolated-vm waits for the isolates it still
  // disposes on its pool threads; one disposed just before (bench.js) then
  // reads the freed platform (SIGSEGV in Isolate::Deinit, with or without
  // asyncctx: src/isolated_vm/README.md). Node's own exit runs the hooks.
  process.exitCode = failed ? 1 : 0;
})().catch((e) => {
  console.log(`not ok - suite: ${e && e.stack || e}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
  // A broken run must not hang on whatever it left alive.
  setTimeout(() => process.exit(1), 30000).unref();
});
