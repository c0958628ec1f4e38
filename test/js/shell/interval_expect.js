// setInterval passes its extra arguments on every firing, keeps one async id
// for all firings, re-arms after each one, and stops when cleared from its
// own callback (after which the loop ends, so the test exits).
// expect-stdout: ^1:ab 2:ab 3:ab 4:ab 5:ab$
// expect-stdout: ^same id every time: true$
// expect-stdout: ^cleared from another timer: fired before, not after: true$
let n = 0;
const seen = [];
const ids = new Set();
const interval = setInterval((x, y) => {
  seen.push(`${++n}:${x}${y}`);
  ids.add(asyncHooks.executionAsyncId());
  if (n === 5) {
    clearInterval(interval);
    console.log(seen.join(' '));
    console.log('same id every time: ' +
                (ids.size === 1 && ids.has(+interval)));
  }
}, 2, 'a', 'b');

let victimFirings = 0;
const victim = setInterval(() => victimFirings++, 1);
setTimeout(() => {
  clearInterval(victim);
  const before = victimFirings;
  setTimeout(() => {
    console.log('cleared from another timer: fired before, not after: ' +
                (before > 0 && victimFirings === before));
  }, 10);
}, 10);
