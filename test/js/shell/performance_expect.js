// performance.now() is monotonic, has sub-millisecond resolution (fractional
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

// Each step seen is a difference of two readings; the clock has
// sub-millisecond resolution if one step is under a millisecond. The loop
// ends at the first such step, so a stalled or slow machine (a descheduled
// reading makes one step large, not every step) cannot fail it; only a
// clock that counts whole milliseconds can.
let previous = performance.now();
let monotonic = true;
let smallestStep = Infinity;
for (let i = 0; i < 1000000 && (monotonic && smallestStep >= 1); i++) {
  const now = performance.now();
  if (now < previous)
    monotonic = false;
  if (now > previous)
    smallestStep = Math.min(smallestStep, now - previous);
  previous = now;
}
for (let i = 0; i < 100000 && monotonic; i++) {
  const now = performance.now();
  if (now < previous)
    monotonic = false;
  previous = now;
}
check('monotonic', monotonic, 'went backwards');
check('sub-millisecond resolution', smallestStep < 1, smallestStep);

// Between two wall-clock readings (a stall between them widens the window
// instead of failing the check); 50 ms for the two clocks' rounding and
// drift.
const origin = performance.timeOrigin;
const wallBefore = Date.now();
const wallNow = origin + performance.now();
const wallAfter = Date.now();
check('timeOrigin', typeof origin === 'number' &&
      wallNow >= wallBefore - 50 && wallNow <= wallAfter + 50,
      `${wallBefore} <= ${wallNow} <= ${wallAfter}`);

const start = performance.now();
setTimeout(() => {
  const elapsed = performance.now() - start;
  check('a 20 ms timer waits at least 20 ms', elapsed >= 20, elapsed);
}, 20);
