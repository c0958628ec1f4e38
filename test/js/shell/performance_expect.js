// performance.now() is monotonic, has sub-microsecond resolution (fractional
// milliseconds), counts from process start, and agrees with the timers'
// clock; performance.timeOrigin is the wall-clock time of that start.
// expect-stdout: \A(?![\s\S]*FAIL)
// expect-stdout: ^PASS number since process start$
// expect-stdout: ^PASS monotonic$
// expect-stdout: ^PASS sub-millisecond resolution$
// expect-stdout: ^PASS timeOrigin$
// expect-stdout: ^PASS a 20 ms timer waits at least 20 ms$
function check(name, ok, detail) {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + detail));
}
const first = performance.now();
check('number since process start',
      typeof first === 'number' && first > 0 && first < 30000, first);

let previous = performance.now();
let monotonic = true;
let smallestStep = Infinity;
for (let i = 0; i < 100000; i++) {
  const now = performance.now();
  if (now < previous)
    monotonic = false;
  if (now > previous)
    smallestStep = Math.min(smallestStep, now - previous);
  previous = now;
}
check('monotonic', monotonic, 'went backwards');
check('sub-millisecond resolution', smallestStep < 0.001, smallestStep);

const origin = performance.timeOrigin;
check('timeOrigin', typeof origin === 'number' &&
      Math.abs(origin + performance.now() - Date.now()) < 1000, origin);

const start = performance.now();
setTimeout(() => {
  const elapsed = performance.now() - start;
  check('a 20 ms timer waits at least 20 ms', elapsed >= 20, elapsed);
}, 20);
