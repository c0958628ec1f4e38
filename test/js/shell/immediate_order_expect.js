// Node's phases: inside a timer callback, setImmediate runs before
// setTimeout(0) (immediates come later in the same iteration, the new timer
// in the next one). Immediates queued while the immediate phase runs wait
// for the next iteration (where a due timer may or may not beat them, as in
// Node). The microtask checkpoint runs after every single callback, and
// after the main script before any callback.
// expect-stdout: ^script, script-microtask, timer-a, a-microtask, timer-b, immediate-1, immediate-1-microtask, immediate-2, immediate-from-timer, (immediate-from-immediate, timeout-from-timer|timeout-from-timer, immediate-from-immediate)$
const order = [];
setTimeout(() => {
  order.push('timer-a');
  Promise.resolve().then(() => order.push('a-microtask'));
}, 1);
setTimeout(() => {
  order.push('timer-b');
  setTimeout(() => order.push('timeout-from-timer'), 0);
  setImmediate(() => order.push('immediate-from-timer'));
}, 1);
setImmediate(() => {
  order.push('immediate-1');
  queueMicrotask(() => order.push('immediate-1-microtask'));
  setImmediate(() => order.push('immediate-from-immediate'));
});
setImmediate(() => order.push('immediate-2'));
Promise.resolve().then(() => order.push('script-microtask'));
order.push('script');
addEventListener('unload', () => console.log(order.join(', ')));
// Let both timers be due before the loop starts, so that the first
// iteration runs them before the immediates.
const until = performance.now() + 5;
while (performance.now() < until) {
}
