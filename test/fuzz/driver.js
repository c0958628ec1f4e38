// Copyright 2026 the asyncctx authors. All rights reserved.
//
// Runs the generated programs in FUZZ_PROGRAMS one after another against
// FUZZ_RUNTIME (real.js or model.js), each once the previous one has no work
// left (the host's beforeunload, or Node's beforeExit, which create no async
// resource). Prints, per program:
//
//   #B <seed>
//   <one line per probe>
//   #E <seed>
//
// Loaded last: `asyncctx_shell RUNTIME.js PROGRAMS.js driver.js`.

'use strict';

(function(global) {
  const runtime = global.FUZZ_RUNTIME;
  const ObjectHasOwn = Object.hasOwn;
  const programs = global.FUZZ_PROGRAMS || [];
  runtime.configure(global.FUZZ_OPTIONS || {});
  let index = -1;
  let env = null;

  function formatValue(value) {
    if (value === undefined) return '-';
    if (value instanceof Error) {
      return 'E(' + value.constructor.name + ':' +
          (value.code !== undefined ? value.code : value.message) + ')';
    }
    if (Array.isArray(value)) return '[' + value.map(formatValue).join(',') + ']';
    if (typeof value === 'string') return value;
    if (value === null) return 'null';
    if (typeof value === 'object' && ObjectHasOwn(value, 'status')) {
      return value.status + ':' +
          formatValue(ObjectHasOwn(value, 'value') ? value.value :
                                                     value.reason);
    }
    return typeof value + ':' + String(value);
  }

  // The probe. Records the execution ids (unless a hook is enabled, or the
  // program is in the Node dialect, test/fuzz/gen.py) and the
  // value of every AsyncLocalStorage and AsyncContext.Variable.
  function makeProbe(e) {
    return function P(label, extra) {
      // The hostile-realm mode (test/fuzz/pollute.js).
      if (typeof global.FUZZ_POLLUTE_PROBE === 'function') {
        global.FUZZ_POLLUTE_PROBE();
      }
      let line = label;
      if (!e.hooked && !e.noIds) line += ' ' + e.ids();
      line += ' |';
      for (const s of e.S) line += ' ' + formatValue(s.getStore());
      line += ' |';
      for (const v of e.V) line += ' ' + formatValue(v.get());
      if (arguments.length > 1) line += ' | ' + formatValue(extra);
      e.lines.push(line);
    };
  }

  function next() {
    if (env !== null) {
      for (const cleanup of env.cleanup) cleanup();
      runtime.finish(env);
      // The hostile-realm mode (test/fuzz/pollute.js): what the pollution
      // saw the library reveal.
      if (typeof global.FUZZ_POLLUTION_REPORT === 'function') {
        const seen = global.FUZZ_POLLUTION_REPORT();
        if (seen !== '') env.lines.push(seen.slice(0, -1));
      }
      env.lines.push('#E ' + programs[index].seed);
      runtime.print(env.lines.join('\n'));
      env = null;
    }
    index++;
    if (index >= programs.length) return;
    const program = programs[index];
    env = runtime.environment(['#B ' + program.seed], program.hooked);
    env.noIds = program.ids === false;
    env.cleanup = [];
    env.P = makeProbe(env);
    runtime.start(env, program.main);
  }

  runtime.onIdle(next);
})(globalThis);
