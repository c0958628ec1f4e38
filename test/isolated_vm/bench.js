// What installing asyncctx costs an isolated-vm context, in one run:
//
//   node bench.js <project dir> <repo root> [--quick]
//
// (test/isolated_vm/run_tests.py --v8=13.6 --bench runs it in the test
// project.) Prints `# ...` lines:
//   context      isolate.createContextSync() alone, per context
//   +install     createContextSync() + asyncctx.installSync(), per context
//   ratio        (+install) / context, the median of the rounds' ratios:
//                the target is at most 1.5
//   no cache     createContextSync() + installSync({codeCache: false})
//   async        isolate.createContext() alone, and with await
//                asyncctx.install(), the same way (the ratio: median of the
//                rounds'); and one empty isolated-vm round trip
//                (await context.eval('0')), what each crossing costs
//   first        the same three for the first context of a fresh isolate
//                (V8's per-isolate compilation cache is still empty)
//   compile      the JavaScript layer (the build's kAsyncctxSource)
//                compiled cold in a fresh isolate, and again with a V8 code
//                cache made from that compilation (produceCachedData /
//                cachedData, i.e. ScriptCompiler::CreateCodeCache and
//                kConsumeCodeCache)
// Each measurement alternates the variants over many short rounds (their
// order rotating) and reports the median round; a ratio is the median of
// the ratios of the rounds, each measured within a few milliseconds, so
// that a machine whose load changes between rounds moves it little.
'use strict';

const fs = require('fs');
const path = require('path');
const {createRequire} = require('module');

let ivm;
let asyncctx;

const now = () => Number(process.hrtime.bigint()) / 1e3;  // microseconds
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

// The layer exactly as the library compiles it: the bytes of
// internal::kAsyncctxSource in the build's generated js_sources.cc (the
// project is out/v8-<v8>/isolated_vm/project).
function layerSource(projectDir) {
  const generated = fs.readFileSync(
      path.join(projectDir, '..', '..', 'gen', 'src', 'js_sources.cc'), 'utf8');
  const begin = generated.indexOf('kAsyncctxSource[] = {');
  const body = generated.slice(begin, generated.indexOf('};', begin));
  const bytes = body.slice(body.indexOf('{') + 1).match(/\d+/g).map(Number);
  return Buffer.from(bytes).toString('utf8').replace(/\0+$/, '');
}

// install: false (createContextSync() alone), true, or 'nocache' (install
// with {codeCache: false}: the layer compiled from source, as before the
// library had a code cache).
function perContext(isolate, count, install) {
  const options = {onError() {}, codeCache: install !== 'nocache'};
  const start = now();
  for (let i = 0; i < count; i++) {
    const context = isolate.createContextSync();
    if (install) asyncctx.installSync(context, options);
    context.release();
  }
  return (now() - start) / count;
}

function measure(projectDir, quick) {
  const rounds = quick ? 5 : 31;
  const count = quick ? 10 : 20;
  const result = {};

  // Steady state: many contexts in one isolate each.
  const plainIsolate = new ivm.Isolate({memoryLimit: 128});
  const installIsolate = new ivm.Isolate({memoryLimit: 128});
  const noCacheIsolate = new ivm.Isolate({memoryLimit: 128});
  perContext(plainIsolate, 10, false);
  perContext(installIsolate, 10, true);
  perContext(noCacheIsolate, 10, 'nocache');
  const plain = [];
  const installed = [];
  const noCache = [];
  const ratios = [];
  const noCacheRatios = [];
  const variants = [
    () => plain.push(perContext(plainIsolate, count, false)),
    () => installed.push(perContext(installIsolate, count, true)),
    () => noCache.push(perContext(noCacheIsolate, count, 'nocache')),
  ];
  for (let r = 0; r < rounds; r++) {
    for (let v = 0; v < variants.length; v++) {
      variants[(r + v) % variants.length]();
    }
    ratios.push(installed[r] / plain[r]);
    noCacheRatios.push(noCache[r] / plain[r]);
  }
  plainIsolate.dispose();
  installIsolate.dispose();
  noCacheIsolate.dispose();
  result.context = median(plain);
  result.install = median(installed);
  result.installNoCache = median(noCache);
  result.ratio = median(ratios);
  result.noCacheRatio = median(noCacheRatios);

  // The first context of a fresh isolate (isolate creation not counted).
  const first = {false: [], true: [], nocache: []};
  for (let r = 0; r < rounds * 3; r++) {
    for (const install of [false, true, 'nocache']) {
      const isolate = new ivm.Isolate({memoryLimit: 128});
      first[install].push(perContext(isolate, 1, install));
      isolate.dispose();
    }
  }
  result.firstContext = median(first.false);
  result.firstInstall = median(first.true);
  result.firstNoCache = median(first.nocache);

  // Compiling the layer, cold, and with a code cache.
  const source = layerSource(projectDir);
  const cold = [];
  const cached = [];
  let rejected = 0;
  let cache;
  const options = {filename: 'asyncctx:internal/asyncctx.js'};
  {
    const isolate = new ivm.Isolate({memoryLimit: 128});
    cache = isolate.compileScriptSync(
        source, {...options, produceCachedData: true}).cachedData;
    isolate.dispose();
  }
  for (let r = 0; r < rounds * 3; r++) {
    for (const withCache of [false, true]) {
      const isolate = new ivm.Isolate({memoryLimit: 128});
      const start = now();
      const script = isolate.compileScriptSync(
          source, withCache ? {...options, cachedData: cache} : options);
      (withCache ? cached : cold).push(now() - start);
      if (withCache && script.cachedDataRejected) rejected++;
      isolate.dispose();
    }
  }
  result.compileCold = median(cold);
  result.compileCached = median(cached);
  result.cacheBytes = cache ? cache.copy().byteLength : 0;
  result.cacheRejected = rejected;
  result.sourceBytes = source.length;
  return result;
}

// The asynchronous API: each await is a round trip through isolated-vm's
// thread pool (createContext() one, install() one for its create() and two
// more for get() and apply()).
async function measureAsync(quick) {
  const rounds = quick ? 5 : 31;
  const count = quick ? 5 : 20;
  const options = {onError() {}};
  const plainIsolate = new ivm.Isolate({memoryLimit: 128});
  const installIsolate = new ivm.Isolate({memoryLimit: 128});
  const tripContext = await plainIsolate.createContext();
  const plain = [];
  const installed = [];
  const trips = [];
  const ratios = [];
  const variants = [
    async () => {
      const start = now();
      for (let i = 0; i < count; i++) {
        (await plainIsolate.createContext()).release();
      }
      plain.push((now() - start) / count);
    },
    async () => {
      const start = now();
      for (let i = 0; i < count; i++) {
        const context = await installIsolate.createContext();
        await asyncctx.install(context, options);
        context.release();
      }
      installed.push((now() - start) / count);
    },
    async () => {
      const start = now();
      for (let i = 0; i < count; i++) await tripContext.eval('0');
      trips.push((now() - start) / count);
    },
  ];
  for (const variant of variants) await variant();
  plain.length = installed.length = trips.length = 0;
  for (let r = 0; r < rounds; r++) {
    for (let v = 0; v < variants.length; v++) {
      await variants[(r + v) % variants.length]();
    }
    ratios.push(installed[r] / plain[r]);
  }
  plainIsolate.dispose();
  installIsolate.dispose();
  return {asyncContext: median(plain), asyncInstall: median(installed),
          asyncRatio: median(ratios), roundTrip: median(trips)};
}

// Measures and prints; returns the numbers.
async function run(projectDir, root, quick) {
  const projectRequire = createRequire(path.join(projectDir, 'package.json'));
  ivm = projectRequire('isolated-vm');
  asyncctx = projectRequire('asyncctx-isolated-vm');
  const r = measure(projectDir, quick);
  Object.assign(r, await measureAsync(quick));
  const f = (us) => `${us.toFixed(0)} us`;
  console.log(`# context      ${f(r.context)} per createContextSync()`);
  console.log(`# +install     ${f(r.install)} per createContextSync() + ` +
              `installSync()`);
  console.log(`# ratio        ${r.ratio.toFixed(2)} (install ` +
              `adds ${((r.ratio - 1) * 100).toFixed(0)}%; ` +
              `target at most 50%)`);
  console.log(`# no cache     ${f(r.installNoCache)} per createContextSync() ` +
              `+ installSync({codeCache: false}) (ratio ` +
              `${r.noCacheRatio.toFixed(2)})`);
  console.log(`# async        ${f(r.asyncContext)} per await ` +
              `createContext(), ${f(r.asyncInstall)} with await install() ` +
              `(ratio ${r.asyncRatio.toFixed(2)}); one empty round trip ` +
              `(await context.eval('0')) ${f(r.roundTrip)}`);
  console.log(`# first        ${f(r.firstContext)} / ${f(r.firstInstall)} ` +
              `(ratio ${(r.firstInstall / r.firstContext).toFixed(2)}; ` +
              `without the code cache ${f(r.firstNoCache)}, ratio ` +
              `${(r.firstNoCache / r.firstContext).toFixed(2)}) for ` +
              `the first context of a fresh isolate`);
  console.log(`# compile      layer (${r.sourceBytes} bytes): cold ` +
              `${f(r.compileCold)}, with a code cache (${r.cacheBytes} bytes` +
              `${r.cacheRejected ? `, rejected ${r.cacheRejected} times` :
                                   ''}) ${f(r.compileCached)}`);
  return r;
}

module.exports = {run};

// bench.js <project> <root> --count context|install N: N contexts of one
// isolate, each alone or installed (run_tests.py --instructions runs it
// under cachegrind at two counts).
function count(projectDir, mode, n) {
  const projectRequire = createRequire(path.join(projectDir, 'package.json'));
  ivm = projectRequire('isolated-vm');
  asyncctx = projectRequire('asyncctx-isolated-vm');
  const isolate = new ivm.Isolate({memoryLimit: 128});
  const options = {onError() {}};
  for (let i = 0; i < n; i++) {
    const context = isolate.createContextSync();
    if (mode === 'install') asyncctx.installSync(context, options);
    context.release();
  }
  isolate.dispose();
}

if (require.main === module) {
  const [projectDir, root, ...flags] = process.argv.slice(2);
  const at = flags.indexOf('--count');
  if (at >= 0) {
    count(projectDir, flags[at + 1], Number(flags[at + 2]));
    return;
  }
  run(projectDir, root, flags.includes('--quick')).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
