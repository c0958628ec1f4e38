// A stack overflow while creating a promise, with the layer's
// promise hooks installed (by the thenable repair, after a run), is the program's
// RangeError to catch. V8 reports what a promise hook throws as uncaught;
// the layer's hooks skip their bookkeeping instead. Node 24 prints the two
// lines below (Node 18 dies of the uncaught RangeError).
// expect-stdout: ^caught RangeError$
// expect-stdout: ^continued$
// expect-stdout: ^after: 1 0$
const als = new AsyncLocalStorage();
als.run(1, () => {});
function f() { Promise.resolve(); f(); }
try { f(); } catch (e) { console.log('caught', e.name); }
console.log('continued');
// The layer is still consistent: ids at rest, the store propagates.
als.run('s', () => setTimeout(() => console.log('after:',
    asyncHooks.executionAsyncId() > 1 ? 1 : 0, als.getStore() === 's' ? 0 : 1), 1));
