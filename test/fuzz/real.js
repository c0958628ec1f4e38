// Copyright 2026 the asyncctx authors. All rights reserved.
//
// FUZZ_RUNTIME for the system under test: the shell's own globals
// (asyncctx's AsyncLocalStorage, AsyncResource, AsyncContext, asyncHooks,
// queueMicrotask and the shell's timers). See test/fuzz/README.md.

'use strict';

(function(global) {
  const api = {
    AsyncLocalStorage: global.AsyncLocalStorage,
    AsyncResource: global.AsyncResource,
    AsyncContext: global.AsyncContext,
    asyncHooks: global.asyncHooks,
    queueMicrotask: global.queueMicrotask,
    setTimeout: global.setTimeout,
    setImmediate: global.setImmediate,
    clearTimeout: global.clearTimeout,
    clearImmediate: global.clearImmediate,
  };
  const executionAsyncId = api.asyncHooks.executionAsyncId;
  const triggerAsyncId = api.asyncHooks.triggerAsyncId;
  const log = console.log.bind(console);

  global.FUZZ_RUNTIME = {
    name: 'real',
    configure() {},
    environment(lines, hooked) {
      const env = Object.assign({}, api, {
        // The real rendering of a program never calls M.
        M: null,
        K: [],
        S: [],
        V: [],
        hook: null,
        hooked,
        base: 0,
        lines,
      });
      // Ids relative to the program's first resource (its main timer).
      env.id = (id) => id >= env.base ? 'r' + (id - env.base) : String(id);
      env.ids = () => env.id(executionAsyncId()) + ' ' +
          env.id(triggerAsyncId());
      return env;
    },
    start(env, body) {
      api.setTimeout(() => {
        env.base = executionAsyncId();
        body(env);
      }, 0);
    },
    finish(env) {
      if (env.hook) env.hook.disable();
    },
    onIdle(fn) {
      global.addEventListener('beforeunload', fn);
    },
    print: log,
  };
})(globalThis);
