// Timers fire by due time, then in creation order (a delay of 0 means 1, so
// `t0` and `t1` are due together and keep their creation order), whatever
// order they were created in. A timer set inside a timer callback never runs
// in the same timers phase, even with a delay of 0.
// expect-stdout: ^order: t0 t0-second t1 t5 t10$
// expect-stdout: ^nested ran after: t0 t0-second t1( |$)
const order = [];
setTimeout(() => order.push('t10'), 10);
setTimeout(() => {
  order.push('t0');
  setTimeout(() => {
    console.log('nested ran after: ' + order.join(' '));
  }, 0);
}, 0);
setTimeout(() => order.push('t0-second'), 0);
setTimeout(() => order.push('t5'), 5);
setTimeout(() => order.push('t1'), 1);
addEventListener('unload', () => console.log('order: ' + order.join(' ')));
