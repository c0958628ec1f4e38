// expect-stdout: ^same object within a checkpoint: true$
// expect-stdout: ^an earlier checkpoint's object reaches a later one: false$
// expect-stdout: ^the later checkpoint keeps its own: true$
//
// executionAsyncResource() at the root frame with nothing on the stack (the
// top level; promise reactions and microtasks while no hook is enabled) is
// an extensible object, as in Node.js, but not one shared by the whole
// program: what one request stores on it there must not be read by the
// next. Code of one checkpoint shares one object (the script's top level and
// the checkpoint right after it are one turn); a later checkpoint, after a
// host callback, gets a new one. Alone, with no harness (its hooks and frames
// would put resources on the stack).

const {executionAsyncResource} = asyncHooks;
const log = console.log;
const topLevel = executionAsyncResource();
topLevel.owner = 'top level';
let first;
Promise.resolve().then(() => {
  first = executionAsyncResource();
  first.owner = 'first checkpoint';
});
Promise.resolve().then(() => {
  log(`same object within a checkpoint: ${executionAsyncResource() === first}`);
  setTimeout(() => {
    Promise.resolve().then(() => {
      const later = executionAsyncResource();
      log('an earlier checkpoint\'s object reaches a later one: ' +
          `${later === first || later === topLevel || 'owner' in later}`);
      later.owner = 'later checkpoint';
      queueMicrotask(() => {
        log('the later checkpoint keeps its own: ' +
            `${executionAsyncResource() === later}`);
      });
    });
  }, 0);
});
