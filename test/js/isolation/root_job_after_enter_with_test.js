// Promise jobs captured at the root (cases reduced from tools/fuzz
// programs): V8 10.2 neither sets nor resets the continuation data around a
// promise job whose captured frame is the root (undefined), so such a job
// would run in whatever frame the previous job left, and an enterWith in one
// (an await continuation of a handler called at the root, a reaction
// attached at the root) would leak into the next: into unrelated root-frame
// code, and into other requests. The library must reset the frame.
//
// docs/semantics.md: a promise reaction runs in the frame of its then();
// await resumes in the frame of the await point.

'use strict';

test('enterWith in an await continuation does not leak into the next ' +
     'root-frame reaction', async () => {
  const als = new AsyncLocalStorage();
  let seen = 'not run';
  await new Promise((resolve) => setTimeout(() => {
    (async () => {
      await null;
      als.enterWith('handler');
    })();
    Promise.resolve().then(() => {
      seen = als.getStore();
    }).then(resolve);
  }, 0));
  assert.equal(seen, undefined);
});

test('enterWith in a root-frame reaction does not leak into the next one',
     async () => {
       const als = new AsyncLocalStorage();
       let seen = 'not run';
       await new Promise((resolve) => setTimeout(() => {
         Promise.resolve().then(() => {
           als.enterWith('first');
         });
         Promise.resolve().then(() => {
           seen = als.getStore();
         }).then(resolve);
       }, 0));
       assert.equal(seen, undefined);
     });

test('a root-frame microtask after such a reaction sees the root frame',
     async () => {
       const als = new AsyncLocalStorage();
       let seen = 'not run';
       await new Promise((resolve) => setTimeout(() => {
         Promise.resolve().then(() => {
           als.enterWith('reaction');
         });
         queueMicrotask(() => {
           seen = als.getStore();
           resolve();
         });
       }, 0));
       assert.equal(seen, undefined);
     });

test('two handlers called at the root, each enterWith after an await, ' +
     'do not see each other', async () => {
  const als = new AsyncLocalStorage();
  const seen = [];
  async function handler(id) {
    await null;
    seen.push([id, 'before enterWith', als.getStore()]);
    als.enterWith(id);
    await null;
    seen.push([id, 'after enterWith', als.getStore()]);
  }
  await new Promise((resolve) => setTimeout(() => {
    Promise.all([handler('a'), handler('b')]).then(resolve);
  }, 0));
  assert.deepEqual(seen, [
    ['a', 'before enterWith', undefined],
    ['b', 'before enterWith', undefined],
    ['a', 'after enterWith', 'a'],
    ['b', 'after enterWith', 'b'],
  ]);
});

test('an AsyncContext.Variable is not affected either', async () => {
  const als = new AsyncLocalStorage();
  const variable = new AsyncContext.Variable();
  let seen = 'not run';
  await new Promise((resolve) => setTimeout(() => {
    Promise.resolve().then(() => {
      variable.run('inner', () => {});
      als.enterWith('leak');
    });
    Promise.resolve().then(() => {
      seen = [als.getStore(), variable.get()];
    }).then(resolve);
  }, 0));
  assert.deepEqual(seen, [undefined, undefined]);
});
