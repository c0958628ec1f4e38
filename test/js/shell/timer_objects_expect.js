// setTimeout/setInterval return a Timeout and setImmediate an Immediate, as
// in Node: class names, prototype methods (not own, not enumerable),
// chaining, the numeric id from [Symbol.toPrimitive], `this` in the callback
// and the extra arguments. The id stays readable after the timer fired.
// console.log shows them by class name.
// expect-stdout: \A(?![\s\S]*FAIL)
// expect-stdout: ^PASS classes$
// expect-stdout: ^PASS methods$
// expect-stdout: ^PASS numeric id$
// expect-stdout: ^PASS callback this and arguments$
// expect-stdout: ^PASS id after firing$
// expect-stdout: ^Timeout \{\} Immediate \{\}$
function check(name, ok, detail) {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + detail));
}
const timeout = setTimeout(function(a, b, c) {
  check('callback this and arguments',
        this === timeout && a === 1 && b === 'two' && c === undefined &&
            arguments.length === 2,
        `${a} ${b} ${arguments.length}`);
  setTimeout(() => {
    check('id after firing', +timeout === id && timeout.hasRef(),
          `${+timeout} ${id}`);
  }, 1);
}, 1, 1, 'two');
const interval = setInterval(() => clearInterval(interval), 1);
const immediate = setImmediate(() => {});

check('classes',
      timeout.constructor.name === 'Timeout' &&
          interval.constructor.name === 'Timeout' &&
          immediate.constructor.name === 'Immediate' &&
          timeout instanceof timeout.constructor &&
          typeof Timeout === 'undefined' && typeof Immediate === 'undefined',
      `${timeout.constructor.name} ${immediate.constructor.name}`);

const timeoutMethods = ['ref', 'unref', 'hasRef', 'refresh', 'close'];
const immediateMethods = ['ref', 'unref', 'hasRef'];
const proto = Object.getPrototypeOf(timeout);
const immediateProto = Object.getPrototypeOf(immediate);
check('methods',
      timeoutMethods.every((m) => typeof proto[m] === 'function' &&
                                  !Object.keys(proto).includes(m)) &&
          typeof proto[Symbol.toPrimitive] === 'function' &&
          immediateMethods.every(
              (m) => typeof immediateProto[m] === 'function') &&
          immediateProto.refresh === undefined &&
          Object.keys(timeout).length === 0 &&
          timeout.refresh() === timeout && timeout.ref() === timeout,
      Object.getOwnPropertyNames(proto).join());

const id = +timeout;
check('numeric id',
      typeof id === 'number' && Number.isInteger(id) && id > 1 &&
          id === timeout[Symbol.toPrimitive]() && `${timeout}` === String(id) &&
          +interval !== id,
      id);

console.log(timeout, immediate);
