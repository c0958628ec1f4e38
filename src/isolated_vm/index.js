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

// The Node addon side of the binary (stats()); loading it also fails early,
// with Node's error, on a platform or ABI this package has no binary for.
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
  return [JSON.stringify(names), errorCallback(onError)];
}

// The ivm.Callback that carries errors to onError: called inside the
// isolate, run later on Node's thread. One per onError function (a Callback
// can be passed into any number of contexts), so that installing many
// contexts with one handler makes it once.
const errorCallbacks = new WeakMap();
function errorCallback(onError) {
  let callback = errorCallbacks.get(onError);
  if (callback === undefined) {
    const ivm = isolatedVm();
    callback = new ivm.Callback((kind, hook, message, stack) => {
      onError({kind, hook: hook || undefined, message,
               stack: stack || message});
    }, {ignored: true});
    errorCallbacks.set(onError, callback);
  }
  return callback;
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
  const args = prepare(options);
  const exports = await load().create(context);
  const fn = await exports.get('install', {reference: true});
  try {
    await fn.apply(undefined, args);
  } finally {
    fn.release();
    exports.release();
  }
}

/** install(), synchronously (blocks Node's thread while the isolate works). */
function installSync(context, options = {}) {
  const args = prepare(options);
  const exports = load().createSync(context);
  const fn = exports.getSync('install', {reference: true});
  try {
    fn.applySync(undefined, args);
  } finally {
    fn.release();
    exports.release();
  }
}

/**
 * {live, created, destroyed}: asyncctx runtimes (one per isolate that has an
 * installed context). `live` drops when isolated-vm disposes an isolate.
 */
function stats() {
  load();
  const {live, created, destroyed} = addon.stats();
  return {live, created, destroyed};
}

module.exports = {install, installSync, stats, binaryPath};
