// asyncctx for isolated-vm: AsyncLocalStorage, AsyncResource, queueMicrotask,
// AsyncContext and asyncHooks inside isolated-vm contexts (README.md).
//
//   const ivm = require('isolated-vm');
//   const asyncctx = require('asyncctx-isolated-vm');
//   const context = await isolate.createContext();
//   await asyncctx.install(context, { onError(e) { ... } });
'use strict';

const path = require('path');

const binaryPath = path.join(
    __dirname, 'prebuilds', `${process.platform}-${process.arch}`,
    `asyncctx-isolated-vm.abi${process.versions.modules}.node`);

// The Node addon side of the binary (the error handlers, the staged install,
// stats()); loading it also fails early, with Node's error, on a platform or
// ABI this package has no binary for.
let addon;
// new ivm.NativeModule(binaryPath): must be created in Node's isolate.
let nativeModule;
let ivmChecked = false;

// The isolated-vm this package was built for: the peerDependencies range
// that tools/pack_isolated_vm writes from DEPS ('~7.0.1': 7.0.x). The binary
// calls isolated-vm's internal entry points, whose layout may change in any
// minor release, so any other version is refused before it is touched.
function isolatedVm() {
  if (!ivmChecked) {
    const range = require('./package.json').peerDependencies['isolated-vm'];
    const want = /^~(\d+)\.(\d+)\.\d+$/.exec(range);
    let version;
    try {
      ({version} = require('isolated-vm/package.json'));
    } catch (e) {
      throw new Error(
          `asyncctx-isolated-vm: isolated-vm ${range} is required (${
              e.message})`);
    }
    const got = /^(\d+)\.(\d+)\./.exec(String(version));
    if (!want || !got || got[1] !== want[1] || got[2] !== want[2]) {
      throw new Error(
          `asyncctx-isolated-vm: this build supports isolated-vm ${
              want ? `${want[1]}.${want[2]}.x` : range} only, not ${version}`);
    }
    ivmChecked = true;
  }
  return require('isolated-vm');
}

function load() {
  if (nativeModule === undefined) {
    const ivm = isolatedVm();
    addon = require(binaryPath);
    nativeModule = new ivm.NativeModule(binaryPath);
  }
  return nativeModule;
}

const NAME_KEYS = ['AsyncLocalStorage', 'AsyncResource', 'queueMicrotask',
                   'AsyncContext', 'asyncHooks', 'diagnosticsChannel'];

function defaultOnError(error) {
  // Where errors go when the caller gives no onError: Node's console, from
  // Node's thread, labelled. Give onError to handle them yourself.
  console.error(`asyncctx-isolated-vm: ${error.kind}` +
                (error.hook ? ` in hook '${error.hook}'` : '') + ': ' +
                (error.stack || error.message));
}

function prepare(options) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('asyncctx-isolated-vm: options must be an object');
  }
  const names = {};
  for (const key of NAME_KEYS) {
    if (options.names && options.names[key] !== undefined) {
      const value = options.names[key];
      if (typeof value !== 'string') {
        throw new TypeError(
            `asyncctx-isolated-vm: names.${key} must be a string`);
      }
      names[key] = value;
    }
  }
  if (options.codeCache !== undefined) {
    if (typeof options.codeCache !== 'boolean') {
      throw new TypeError('asyncctx-isolated-vm: codeCache must be a boolean');
    }
    // Travels with the names (the module reads it from the same object).
    names.codeCache = options.codeCache;
  }
  const onError = options.onError === undefined ? defaultOnError :
                                                  options.onError;
  if (typeof onError !== 'function') {
    throw new TypeError('asyncctx-isolated-vm: onError must be a function');
  }
  return [JSON.stringify(names), errorHandler(onError)];
}

// What the binary calls on Node's thread for an error inside an isolate:
// one per onError function.
const errorHandlers = new WeakMap();
function errorHandler(onError) {
  let handler = errorHandlers.get(onError);
  if (handler === undefined) {
    handler = (kind, hook, message, stack) => {
      onError({kind, hook: hook || undefined, message,
               stack: stack || message});
    };
    errorHandlers.set(onError, handler);
  }
  return handler;
}

/**
 * Installs the globals into an isolated-vm context. Resolves (to undefined)
 * once they exist there.
 *
 * options.names: global name per API ('' leaves it out), e.g.
 *   {AsyncContext: '', asyncHooks: 'asyncHooks'}.
 * options.onError(error): receives {kind, hook, message, stack} for an
 *   exception thrown by a queueMicrotask callback (kind
 *   'uncaughtException') or an async hook (kind 'hookError'); called on
 *   Node's thread. Default: console.error.
 */
async function install(context, options = {}) {
  const [settings, handler] = prepare(options);
  const module = load();
  // A token for the handler, kept by the context once installed (released
  // with it), dropped here if the install fails.
  const token = addon.acquire(handler);
  let installed = false;
  try {
    const exports = await module.create(context);
    try {
      const fn = await exports.get('install', {reference: true});
      try {
        await fn.apply(undefined, [settings, token]);
        installed = true;
      } finally {
        fn.release();
      }
    } finally {
      exports.release();
    }
  } finally {
    if (!installed) addon.release(token);
  }
}

/**
 * install(), synchronously (blocks Node's thread while the isolate works).
 * Installed by the createSync() it makes: an error isolated-vm reports at
 * the end of that call (its microtask checkpoint, e.g. an unhandled
 * rejection of code that ran before) is thrown after the context was
 * installed.
 */
function installSync(context, options = {}) {
  const [settings, handler] = prepare(options);
  const module = load();
  const token = addon.acquire(handler);
  let installed = false;
  try {
    // isolated-vm runs createSync()'s work on this thread: the binary finds
    // the staged settings there and installs at once, in one call.
    addon.stage(settings, token);
    let exports;
    let staged;
    try {
      exports = module.createSync(context);
    } finally {
      staged = addon.unstage();
    }
    try {
      if (staged !== 1) {
        // Not installed there (or it threw: install() again, which fails
        // the same way, gives isolated-vm's copy of the error).
        const fn = exports.getSync('install', {reference: true});
        try {
          fn.applySync(undefined, [settings, token]);
        } finally {
          fn.release();
        }
      }
      installed = true;
    } finally {
      exports.release();
    }
  } finally {
    if (!installed) addon.release(token);
  }
}

/**
 * {live, created, destroyed}: asyncctx runtimes (one per isolate that has an
 * installed context). `live` drops when isolated-vm disposes an isolate.
 * `handlers`: the onError handlers this Node environment still holds (one
 * per installed context; freed when the context is collected or its
 * isolate disposed). `stagedInstalls`: installSync() calls that installed
 * inside their createSync() (one isolated-vm call, not three).
 */
function stats() {
  load();
  const {live, created, destroyed, handlers, stagedInstalls} = addon.stats();
  return {live, created, destroyed, handlers, stagedInstalls};
}

module.exports = {install, installSync, stats, binaryPath};
