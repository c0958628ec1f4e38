// Context privacy through stack traces. On V8 >= 12 the layer reads and
// writes the continuation data with V8's own accessors (the extras binding's
// get/setContinuationPreservedEmbedderData, which return and replace the
// frame that holds every store). A RangeError thrown by a stack overflow
// inside the layer carries the frames of its stack; with a sloppy-mode
// Error.prepareStackTrace, CallSite#getFunction() hands out the function of
// every sloppy frame. No frame of the layer, and no accessor, may come out:
// each call below runs at every depth near the stack limit, and every
// function reachable from the call sites of every error is collected.

// Sloppy mode on purpose: getFunction() returns undefined for strict frames
// only, so this is the shape an attacker would write.

const seenFunctions = new Set();
const seenNames = new Set();

function collect(error, sites) {
  for (const site of sites) {
    let fn;
    try {
      fn = site.getFunction();
    } catch (e) {
      fn = undefined;
    }
    if (fn !== undefined) seenFunctions.add(fn);
    seenNames.add(String(site.getFunctionName()));
  }
  return 'collected';
}

function runAtEveryDepth(call) {
  let overflows = 0;
  for (let pad = 0; pad < 12; pad++) {
    const args = Array.from({length: pad}, (_, i) => 'a' + i);
    const recurse = new Function('c', ...args, `
      try { c.self(c, ${args.join(',')}); } catch (e) { c.caught(e); }
      try { c.call(); } catch (e) { c.caught(e); }`);
    const c = {
      self: recurse,
      call,
      caught(e) {
        if (e instanceof RangeError) {
          overflows++;
          void e.stack;
        }
      },
    };
    try {
      recurse(c);
    } catch (e) {
      // The outermost overflow.
    }
  }
  return overflows;
}

test('no stack trace gives out the frame accessors or a layer function',
     () => {
       const als = new AsyncLocalStorage();
       const variable = new AsyncContext.Variable();
       const snapshot = new AsyncContext.Snapshot();
       const resource = new AsyncResource('Probe');
       const calls = [
         () => als.run(1, () => als.getStore()),
         () => als.getStore(),
         () => als.exit(() => 1),
         () => als.enterWith(2),
         () => snapshot.run(() => 1),
         () => AsyncContext.Snapshot.wrap(() => 1)(),
         () => variable.run(1, () => variable.get()),
         () => variable.get(),
         () => resource.runInAsyncScope(() => 1),
         () => queueMicrotask(() => {}),
         () => asyncHooks.executionAsyncResource(),
       ];
       const saved = Error.prepareStackTrace;
       Error.prepareStackTrace = collect;
       let overflows = 0;
       try {
         als.run('outer', () => {
           for (const call of calls) overflows += runAtEveryDepth(call);
         });
       } finally {
         Error.prepareStackTrace = saved;
       }
       assert(overflows > 100, `only ${overflows} overflows`);
       // The collection works: the sloppy functions of this file come out.
       assert(seenFunctions.size > 0, 'getFunction() gave out nothing');
       const userFunctions = new Set(calls);
       for (const fn of seenFunctions) {
         if (userFunctions.has(fn)) continue;
         const name = String(fn.name);
         assert(!/ContinuationPreserved|Frame/i.test(name),
                `a stack trace gave out ${name}`);
       }
       for (const name of seenNames) {
         assert(!/ContinuationPreserved/.test(name),
                `a stack trace names ${name}`);
       }
     });
