// --expose-gc defines gc(), which collects: a WeakRef to an unreachable
// object is cleared after gc() in a later task.
// args: --expose-gc
// expect-stdout: ^typeof gc: function$
// expect-stdout: ^collected: true$
console.log('typeof gc: ' + typeof gc);
let ref = new WeakRef({big: new Array(1000).fill(0)});
setTimeout(() => {
  gc();
  console.log('collected: ' + (ref.deref() === undefined));
}, 1);
