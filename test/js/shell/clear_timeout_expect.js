// clearTimeout takes the Timeout object, its numeric id (`+timeout`) or that
// id as a string; clearTimeout and clearInterval are interchangeable;
// close() clears; clearImmediate cancels an immediate; a timer cleared by an
// earlier callback of the same phase does not run; clearing something
// unknown, or twice, does nothing.
// expect-stdout: ^timers fired: h,k$
// expect-stdout: ^immediates fired: kept$
const fired = [];
const immediates = [];
const a = setTimeout(() => fired.push('a'), 1);
clearTimeout(a);
clearTimeout(a);
const b = setTimeout(() => fired.push('b'), 1);
clearTimeout(+b);
const c = setTimeout(() => fired.push('c'), 1);
clearTimeout(String(+c));
const d = setInterval(() => fired.push('d'), 1);
clearTimeout(d);
const e = setTimeout(() => fired.push('e'), 1);
clearInterval(e);
const f = setImmediate(() => immediates.push('f'));
clearImmediate(f);
const g = setTimeout(() => fired.push('g'), 1);
g.close();
setTimeout(() => {
  fired.push('h');
  clearTimeout(i);
}, 1);
const i = setTimeout(() => fired.push('i'), 1);
const k = setTimeout(() => fired.push('k'), 1);
const kept = setImmediate(() => immediates.push('kept'));
// None of these is a pending timer of ours.
clearTimeout(undefined);
clearTimeout(null);
clearTimeout(123456);
clearTimeout({});
clearTimeout(kept);       // an Immediate is not a Timeout
clearImmediate(k);        // nor a Timeout an Immediate
clearImmediate(+k);
addEventListener('unload', () => {
  console.log('timers fired: ' + fired.join(','));
  console.log('immediates fired: ' + immediates.join(','));
});
