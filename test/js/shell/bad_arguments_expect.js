// Wrong arguments to the shell's globals throw TypeErrors (with Node's
// ERR_INVALID_ARG_TYPE code and wording where Node has one) instead of
// crashing; clear functions ignore what they do not know; methods called on
// the wrong receiver throw "Illegal invocation"; the classes cannot be
// constructed from JavaScript.
// expect-stdout: \A(?![\s\S]*FAIL)
// expect-stdout: ^done 29$
let count = 0;
function expectThrow(name, fn, check) {
  count++;
  try {
    fn();
    console.log(`FAIL ${name}: did not throw`);
  } catch (e) {
    const problem = check(e);
    console.log(problem ? `FAIL ${name}: ${problem} (${e})` : `PASS ${name}`);
  }
}
function expectNoThrow(name, fn) {
  count++;
  try {
    fn();
    console.log(`PASS ${name}`);
  } catch (e) {
    console.log(`FAIL ${name}: threw ${e}`);
  }
}
const invalidArg = (name, received) => (e) => {
  if (!(e instanceof TypeError))
    return 'not a TypeError';
  if (e.code !== 'ERR_INVALID_ARG_TYPE')
    return 'code ' + e.code;
  const wanted = `The "${name}" argument must be of type `;
  if (!e.message.startsWith(wanted))
    return 'message';
  if (received && !e.message.endsWith('Received ' + received))
    return 'received part';
  if (!/^TypeError \[ERR_INVALID_ARG_TYPE\]: /.test(e.stack))
    return 'stack header';
  return '';
};
const typeError = (message) => (e) =>
    e instanceof TypeError && (!message || e.message === message) ? '' :
    'wrong error';

expectThrow('setTimeout()', () => setTimeout(),
            invalidArg('callback', 'undefined'));
expectThrow('setTimeout(string)', () => setTimeout('code'),
            invalidArg('callback', "type string ('code')"));
expectThrow('setTimeout(object)', () => setTimeout({}),
            invalidArg('callback', 'an instance of Object'));
expectThrow('setTimeout(long string)', () => setTimeout('x'.repeat(40)),
            invalidArg('callback', `type string ('${'x'.repeat(25)}...')`));
expectThrow('setInterval(null)', () => setInterval(null),
            invalidArg('callback', 'null'));
expectThrow('setImmediate(42)', () => setImmediate(42),
            invalidArg('callback', 'type number (42)'));
expectThrow('setTimeout(fn, Symbol())', () => setTimeout(() => {}, Symbol()),
            typeError());
expectThrow('setTimeout(fn, 1n)', () => setTimeout(() => {}, 1n), typeError());
expectThrow('setTimeout(fn, throwing valueOf)',
            () => setTimeout(() => {}, {
              valueOf() {
                throw new RangeError('v');
              },
            }),
            (e) => e instanceof RangeError ? '' : 'not the valueOf error');
expectThrow('load()', () => load(), invalidArg('path', 'undefined'));
expectThrow('load(Symbol())', () => load(Symbol('s')), invalidArg('path'));
expectThrow('addEventListener()', () => addEventListener(), typeError());
expectThrow('addEventListener(type, 1)', () => addEventListener('unload', 1),
            invalidArg('listener', 'type number (1)'));
expectThrow('addEventListener(Symbol(), fn)',
            () => addEventListener(Symbol(), () => {}), invalidArg('type'));
expectThrow('removeEventListener(type)', () => removeEventListener('unload'),
            typeError());

const timeout = setTimeout(() => {}, 1);
const immediate = setImmediate(() => {});
const TimeoutProto = Object.getPrototypeOf(timeout);
const ImmediateProto = Object.getPrototypeOf(immediate);
expectThrow('Timeout method on a plain object',
            () => TimeoutProto.ref.call({}), typeError('Illegal invocation'));
expectThrow('Timeout method on an Immediate',
            () => TimeoutProto.refresh.call(immediate),
            typeError('Illegal invocation'));
expectThrow('Immediate method on a Timeout',
            () => ImmediateProto.hasRef.call(timeout),
            typeError('Illegal invocation'));
expectThrow('toPrimitive on a number',
            () => TimeoutProto[Symbol.toPrimitive].call(1),
            typeError('Illegal invocation'));
expectThrow('new Timeout', () => new timeout.constructor(),
            typeError('Illegal constructor'));
expectThrow('new Immediate', () => new immediate.constructor(),
            typeError('Illegal constructor'));
expectThrow('new setTimeout', () => new setTimeout(() => {}), typeError());

expectNoThrow('clear functions ignore unknown values', () => {
  for (const value of [undefined, null, 0, -1, NaN, '', 'x', {}, [], Symbol(),
                       10n, () => {}, immediate]) {
    clearTimeout(value);
    clearInterval(value);
  }
  for (const value of [undefined, null, 0, {}, Symbol(), timeout])
    clearImmediate(value);
});
expectNoThrow('null listener is ignored',
              () => addEventListener('unload', null));
expectNoThrow('removing an unknown listener is fine',
              () => removeEventListener('unload', () => {}));
expectNoThrow('console accepts anything', () => {
  console.log(Symbol('s'), 1n, Object.create(null), new Proxy({}, {}));
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  console.log(revocable.proxy, '%s %d %i %f %j %o %O', Symbol(), Symbol(),
              Symbol(), Symbol(), 1n, revocable.proxy, revocable.proxy);
  console.log('%s', {toString: 5}, '%d', {}, '%c');
  console.dir();
  console.log('%j', {toJSON() { return 'json'; }});
  let deep = [];
  for (let i = 0; i < 10000; i++)
    deep = [deep];
  console.log(deep);
});
expectThrow('console.log propagates a throwing toString for %s',
            () => console.log('%s', {toString() { throw new EvalError('x'); }}),
            (e) => e instanceof EvalError ? '' : 'wrong error');
expectNoThrow('performance.now ignores its receiver',
              () => performance.now.call(undefined));
expectThrow('new performance.now', () => new performance.now(), typeError());
console.log('done ' + count);
