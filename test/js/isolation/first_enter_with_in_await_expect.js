// The first enterWith of an isolate, inside an await
// continuation, must not leak into unrelated continuations of the same
// checkpoint. Node 24 prints `unrelated continuation sees undefined`
// (Node 18 and 20 print 'A'). Run alone, so this is the first enterWith.
// expect-stdout: ^unrelated continuation sees undefined$
const als = new AsyncLocalStorage();
(async () => { await null; als.enterWith('A'); })();
(async () => { await null; console.log('unrelated continuation sees', als.getStore()); })();
