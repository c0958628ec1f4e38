// An unref'd timer, interval or immediate does not keep the loop alive, but
// runs while something else does. ref() makes it count again; hasRef()
// reports the state; ref()/unref() return the object.
// expect-stdout: ^hasRef: true false true$
// expect-stdout: ^chaining returns the object: true$
// expect-stdout: ^unref'd interval ran while the loop was alive: true$
// expect-stdout: ^re-ref'd timer ran$
// expect-stdout: ^unload$
// expect-stdout: \A(?![\s\S]*must not run)
const start = performance.now();
setTimeout(() => console.log('must not run: unref timer'), 60000).unref();
setImmediate(() => {}).unref();

const probe = setTimeout(() => {}, 1);
const states = [probe.hasRef()];
probe.unref();
states.push(probe.hasRef());
probe.ref();
states.push(probe.hasRef());
console.log('hasRef: ' + states.join(' '));
console.log('chaining returns the object: ' +
            (probe.unref() === probe && probe.ref() === probe &&
             setImmediate(() => {}).unref().ref() !== undefined));

let ticks = 0;
const interval = setInterval(() => ticks++, 1);
interval.unref();
setTimeout(() => {
  console.log("unref'd interval ran while the loop was alive: " + (ticks > 0));
}, 30);

const reref = setTimeout(() => console.log("re-ref'd timer ran"), 5);
reref.unref();
reref.ref();

addEventListener('unload', () => {
  console.log('unload');
  if (performance.now() - start > 30000)
    console.log('must not run: the loop waited for an unref\'d timer');
});
