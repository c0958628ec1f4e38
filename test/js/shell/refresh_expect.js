// Timeout.prototype.refresh restarts the timer from now. Like Node's, it
// re-arms a one-shot timer that already fired (under a new async id), but
// not one that was cleared.
// expect-stdout: ^refreshed timer fired once, late enough: true$
// expect-stdout: ^re-armed after firing: fired 2 times, new id: true$
// expect-stdout: ^cleared timer stays cleared: true$
const start = performance.now();
let firings = 0;
const late = setTimeout(() => {
  firings++;
  const elapsed = performance.now() - start;
  console.log('refreshed timer fired once, late enough: ' +
              (firings === 1 && elapsed >= 59));
}, 40);
setTimeout(() => late.refresh(), 20);

let count = 0;
let firstId;
const again = setTimeout(() => {
  count++;
  if (count === 1) {
    firstId = asyncHooks.executionAsyncId();
    setTimeout(() => again.refresh(), 1);
  } else {
    console.log(`re-armed after firing: fired ${count} times, new id: ` +
                (asyncHooks.executionAsyncId() !== firstId));
  }
}, 1);

let clearedFired = false;
const cleared = setTimeout(() => { clearedFired = true; }, 1);
clearTimeout(cleared);
cleared.refresh();
setTimeout(() => {
  console.log('cleared timer stays cleared: ' + !clearedFired);
}, 10);
