// 'beforeunload' runs each time the loop drains, and work it schedules keeps
// the loop going; 'unload' runs once at the end. Listeners get an event with
// its type and `this` the global object, run in registration order, get a
// microtask checkpoint each, and can be removed or registered `once`;
// registering the same listener twice has no effect.
// expect-stdout: \Ascript\ntimer\nbeforeunload 1 this=global\nbeforeunload-microtask 1\nonce\ntimer from beforeunload 1\nbeforeunload 2 this=global\nbeforeunload-microtask 2\ntimer from beforeunload 2\nbeforeunload 3 this=global\nbeforeunload-microtask 3\nunload unload\n\Z
let rounds = 0;
function beforeUnload(event) {
  rounds++;
  const self = this === globalThis ? 'global' : String(this);
  console.log(`beforeunload ${rounds} this=${self}`);
  Promise.resolve().then(() => console.log('beforeunload-microtask ' + rounds));
  if (rounds < 3) {
    const round = rounds;
    setTimeout(() => console.log('timer from beforeunload ' + round), 1);
  }
  if (event.type !== 'beforeunload')
    console.log('wrong event type: ' + event.type);
}
addEventListener('beforeunload', beforeUnload);
addEventListener('beforeunload', beforeUnload);
addEventListener('beforeunload', () => console.log('once'), {once: true});
const removed = () => console.log('must not run: removed listener');
addEventListener('beforeunload', removed);
removeEventListener('beforeunload', removed);
addEventListener('unload', (event) => console.log('unload ' + event.type));
// Another event type is accepted and never dispatched.
addEventListener('load', () => console.log('must not run: load'));
addEventListener('beforeunload', null);
setTimeout(() => console.log('timer'), 1);
console.log('script');
