// A tiny test harness for asyncctx's JavaScript tests.
//
// test/js/run_tests.py runs `asyncctx_shell test/js/harness.js foo_test.js`,
// so this file is a classic script that runs first, in the same global
// context as the test file. It defines two globals:
//
//   test(name, fn[, {timeout}])  registers a case; fn may be async. Cases run
//                                one after another once every file has been
//                                loaded, each with a timeout (default 5 s).
//   test.skip(name, fn)          registers a case that is reported, not run.
//   assert(cond, msg)            and assert.equal / notEqual / deepEqual /
//                                throws / rejects / match / fail.
//
// Output, one line per case, then a last line the runner looks for:
//
//   ok - <name>
//   not ok - <name>: <message>
//       <stack, indented>
//   # done
//
// Only shell globals are used (console.log, setTimeout, clearTimeout), so a
// test file can run in Node or Deno too; none of the library's APIs are used,
// so a broken library cannot break the reporting. Each case starts from a
// fresh timer callback in the root context: a context entered by one case
// (enterWith, an AsyncContext variable) does not leak into the next. A case's
// own timers that are still pending when it ends are not cancelled. Tests of
// async_hooks should expect the harness's timeout timer and promise (created
// before the case runs, settled after it) to be visible to an enabled hook.

(function(global) {
  'use strict';

  const DEFAULT_TIMEOUT_MS = 5000;
  const cases = [];
  // Captured now, so a test that replaces a global cannot break reporting.
  const log = console.log.bind(console);
  const setTimer = setTimeout;
  const clearTimer = clearTimeout;
  const ObjectIs = Object.is;

  // --- Formatting values for messages ---------------------------------------

  function format(value, depth = 0, seen = []) {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'number':
        return ObjectIs(value, -0) ? '-0' : String(value);
      case 'bigint':
        return value + 'n';
      case 'symbol':
        return value.toString();
      case 'undefined':
        return 'undefined';
      case 'boolean':
        return String(value);
      case 'function':
        return '[Function ' + (value.name || '(anonymous)') + ']';
    }
    if (value === null) return 'null';
    if (seen.includes(value)) return '[Circular]';
    if (value instanceof Error) {
      return value.name + ': ' + value.message;
    }
    if (value instanceof Date) {
      return isNaN(value.getTime()) ? 'Invalid Date' :
                                      'Date(' + value.toISOString() + ')';
    }
    if (value instanceof RegExp) return String(value);
    if (typeof Promise !== 'undefined' && value instanceof Promise) {
      return 'Promise {}';
    }
    if (depth > 3) return Array.isArray(value) ? '[Array]' : '[Object]';
    const inner = seen.concat([value]);
    const items = (entries) => entries.slice(0, 30).join(', ') +
        (entries.length > 30 ? ', ... ' + (entries.length - 30) + ' more' : '');
    if (Array.isArray(value)) {
      return '[' + items(value.map((v) => format(v, depth + 1, inner))) + ']';
    }
    if (value instanceof Map) {
      return 'Map(' + value.size + ') {' +
          items([...value].map(([k, v]) => format(k, depth + 1, inner) +
                               ' => ' + format(v, depth + 1, inner))) + '}';
    }
    if (value instanceof Set) {
      return 'Set(' + value.size + ') {' +
          items([...value].map((v) => format(v, depth + 1, inner))) + '}';
    }
    const proto = Object.getPrototypeOf(value);
    const ctor = proto && proto.constructor && proto.constructor.name;
    const prefix = (ctor && ctor !== 'Object') ? ctor + ' ' :
                   (proto === null ? '[Object: null prototype] ' : '');
    const keys = Reflect.ownKeys(value).filter(
        (k) => Object.prototype.propertyIsEnumerable.call(value, k));
    return prefix + '{' +
        items(keys.map((k) => (typeof k === 'symbol' ? '[' + k.toString() + ']'
                                                     : k) +
                              ': ' + format(value[k], depth + 1, inner))) +
        '}';
  }

  // --- assert ---------------------------------------------------------------

  class AssertionError extends Error {
    constructor(message) {
      super(message);
      this.name = 'AssertionError';
      this.code = 'ERR_ASSERTION';
    }
  }

  function fail(message, fallback) {
    if (message instanceof Error) throw message;
    throw new AssertionError(
        message === undefined ? fallback : message + ' (' + fallback + ')');
  }

  function assert(cond, message) {
    if (!cond) fail(message, 'expected a truthy value, got ' + format(cond));
  }
  assert.ok = assert;
  assert.AssertionError = AssertionError;

  assert.fail = function(message) {
    fail(undefined, message === undefined ? 'failed' : message);
  };

  assert.equal = function(actual, expected, message) {
    if (!ObjectIs(actual, expected)) {
      fail(message, 'expected ' + format(expected) + ', got ' + format(actual));
    }
  };

  assert.notEqual = function(actual, expected, message) {
    if (ObjectIs(actual, expected)) {
      fail(message, 'expected a value other than ' + format(expected));
    }
  };

  assert.match = function(string, regexp, message) {
    if (typeof string !== 'string' || !regexp.test(string)) {
      fail(message, 'expected ' + format(string) + ' to match ' + regexp);
    }
  };

  // Structural equality: same prototype, same own enumerable keys (strings and
  // symbols), recursively equal values; Object.is for primitives.
  function deepEqual(a, b, path, seen) {
    if (ObjectIs(a, b)) return null;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null ||
        b === null) {
      return path + ': expected ' + format(b) + ', got ' + format(a);
    }
    for (const [x, y] of seen) {
      if (x === a && y === b) return null;
    }
    seen = seen.concat([[a, b]]);
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) {
      return path + ': different prototypes, expected ' + format(b) +
          ', got ' + format(a);
    }
    if (a instanceof Date) {
      return a.getTime() === b.getTime() ? null :
          path + ': expected ' + format(b) + ', got ' + format(a);
    }
    if (a instanceof RegExp) {
      return String(a) === String(b) ? null :
          path + ': expected ' + String(b) + ', got ' + String(a);
    }
    if (a instanceof Error && (a.name !== b.name || a.message !== b.message)) {
      return path + ': expected ' + format(b) + ', got ' + format(a);
    }
    if (a instanceof Map) {
      if (a.size !== b.size) {
        return path + ': expected a Map of size ' + b.size + ', got ' + a.size;
      }
      for (const [k, v] of a) {
        if (!b.has(k)) return path + ': unexpected key ' + format(k);
        const d = deepEqual(v, b.get(k), path + '.get(' + format(k) + ')', seen);
        if (d) return d;
      }
      return null;
    }
    if (a instanceof Set) {
      if (a.size !== b.size) {
        return path + ': expected a Set of size ' + b.size + ', got ' + a.size;
      }
      for (const v of a) {
        if (!b.has(v)) return path + ': unexpected element ' + format(v);
      }
      return null;
    }
    const keysOf = (o) => Reflect.ownKeys(o).filter(
        (k) => Object.prototype.propertyIsEnumerable.call(o, k));
    const ka = keysOf(a);
    const kb = keysOf(b);
    if (Array.isArray(a) && a.length !== b.length) {
      return path + ': expected length ' + b.length + ', got ' + a.length;
    }
    for (const k of kb) {
      if (!ka.includes(k)) return path + ': missing key ' + String(k);
    }
    for (const k of ka) {
      if (!kb.includes(k)) return path + ': unexpected key ' + String(k);
      const sub = Array.isArray(a) ? path + '[' + String(k) + ']' :
                                     path + '.' + String(k);
      const d = deepEqual(a[k], b[k], sub, seen);
      if (d) return d;
    }
    return null;
  }

  assert.deepEqual = function(actual, expected, message) {
    const difference = deepEqual(actual, expected, 'value', []);
    if (difference) fail(message, difference);
  };

  // expected may be: an Error class (instanceof), a RegExp (tested against
  // String(error)), a validation function returning true, or an object whose
  // properties must match (a RegExp value is tested, anything else is
  // compared with Object.is, or deepEqual for objects).
  function checkError(error, expected, message, what) {
    if (expected === undefined) return;
    if (typeof expected === 'function') {
      if (expected === Error || expected.prototype instanceof Error) {
        if (!(error instanceof expected)) {
          fail(message, what + ' ' + format(error) + ', expected an instance of ' +
                        expected.name);
        }
        return;
      }
      if (expected(error) !== true) {
        fail(message, what + ' ' + format(error) +
                      ', which the validation function rejected');
      }
      return;
    }
    if (expected instanceof RegExp) {
      if (!expected.test(String(error))) {
        fail(message, what + ' ' + format(error) + ', expected it to match ' +
                      expected);
      }
      return;
    }
    if (typeof expected !== 'object' || expected === null) {
      throw new TypeError('assert.throws: expected must be a function, ' +
                          'RegExp or object');
    }
    if (error === null || (typeof error !== 'object' &&
                           typeof error !== 'function')) {
      fail(message, what + ' ' + format(error) + ', expected an object');
    }
    for (const key of Reflect.ownKeys(expected)) {
      const want = expected[key];
      const got = error[key];
      if (want instanceof RegExp && typeof got === 'string') {
        if (!want.test(got)) {
          fail(message, what + ' ' + format(error) + ' whose ' + String(key) +
                        ' ' + format(got) + ' does not match ' + want);
        }
      } else if (typeof want === 'object' && want !== null) {
        const difference = deepEqual(got, want, String(key), []);
        if (difference) {
          fail(message, what + ' ' + format(error) + ': ' + difference);
        }
      } else if (!ObjectIs(got, want)) {
        fail(message, what + ' ' + format(error) + ' whose ' + String(key) +
                      ' is ' + format(got) + ', expected ' + format(want));
      }
    }
  }

  assert.throws = function(fn, expected, message) {
    if (typeof expected === 'string') {
      message = expected;
      expected = undefined;
    }
    try {
      fn();
    } catch (error) {
      checkError(error, expected, message, 'threw');
      return error;
    }
    fail(message, 'expected the function to throw');
  };

  assert.rejects = async function(promiseOrFn, expected, message) {
    if (typeof expected === 'string') {
      message = expected;
      expected = undefined;
    }
    let promise = promiseOrFn;
    if (typeof promiseOrFn === 'function') {
      promise = promiseOrFn();
    }
    if (!promise || typeof promise.then !== 'function') {
      fail(message, 'expected a promise or a function returning one, got ' +
                    format(promise));
    }
    try {
      await promise;
    } catch (error) {
      checkError(error, expected, message, 'rejected with');
      return error;
    }
    fail(message, 'expected the promise to reject');
  };

  // --- test -----------------------------------------------------------------

  function test(name, fn, options) {
    if (typeof name !== 'string' || typeof fn !== 'function') {
      throw new TypeError('test(name, fn): name must be a string and fn a ' +
                          'function');
    }
    const timeout = typeof options === 'number' ? options :
        (options && options.timeout) || DEFAULT_TIMEOUT_MS;
    cases.push({name, fn, timeout, skip: false});
  }
  test.skip = function(name, fn) {
    cases.push({name, fn, timeout: 0, skip: true});
  };

  function describe(error) {
    if (error instanceof Error) {
      const header = error.name + ': ' + error.message;
      let stack = typeof error.stack === 'string' ? error.stack : '';
      // V8's stack starts with the header; keep only the frames.
      if (stack.startsWith(header)) stack = stack.slice(header.length);
      // The harness's own frames (fail, runCase, next) are noise.
      const frames = stack.split('\n').map((l) => l.trim()).filter(
          (l) => l && !l.includes('harness.js'));
      return [error instanceof AssertionError ? error.message : header]
          .concat(frames.map((f) => '    ' + f)).join('\n');
    }
    return 'threw a non-Error: ' + format(error);
  }

  // Runs one case and calls report(failure or null). Everything that leads to
  // the next case (the report reaction, the timeout timer) is created before
  // fn runs, so context that fn enters (enterWith, an AsyncContext variable)
  // cannot leak into the harness or the next case.
  function runCase(c, report) {
    let resolveDone;
    const done = new Promise((resolve) => {
      resolveDone = resolve;
    });
    done.then(report);
    let settled = false;
    const finish = (failure) => {
      if (settled) return;
      settled = true;
      clearTimer(timer);
      resolveDone(failure);
    };
    const timer = setTimer(() => {
      finish({message: 'timed out after ' + c.timeout + ' ms'});
    }, c.timeout);
    let result;
    try {
      result = c.fn();
    } catch (error) {
      finish({error});
      return;
    }
    if (result && typeof result.then === 'function') {
      result.then(() => finish(null), (error) => finish({error}));
    } else {
      finish(null);
    }
  }

  let index = 0;
  function next() {
    if (index >= cases.length) {
      log('# done');
      return;
    }
    const c = cases[index++];
    if (c.skip) {
      log('ok - ' + c.name + ' # SKIP');
      setTimer(next, 0);
      return;
    }
    runCase(c, (failure) => {
      if (failure) {
        log('not ok - ' + c.name + ': ' +
            ('message' in failure ? failure.message : describe(failure.error)));
      } else {
        log('ok - ' + c.name);
      }
      setTimer(next, 0);
    });
  }

  global.test = test;
  global.assert = assert;
  // Every script on the command line has run by the time this fires.
  setTimer(next, 0);
})(globalThis);
