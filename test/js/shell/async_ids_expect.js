// Each timer and immediate is a host AsyncResource ("Timeout", "Immediate")
// whose resource object is the Timeout/Immediate itself: inside the
// callback executionAsyncId() is its id (the Timeout's numeric value),
// triggerAsyncId() the id current when it was set, executionAsyncResource()
// the object; hooks see init at scheduling, before/after around each firing,
// and destroy after a one-shot fires or when the work is cleared.
// expect-stdout: \A(?![\s\S]*FAIL)
// expect-stdout: ^PASS top level: execution 1, trigger 0$
// expect-stdout: ^PASS timeout ids$
// expect-stdout: ^PASS nested timeout is triggered by the outer one$
// expect-stdout: ^PASS immediate ids$
// expect-stdout: ^PASS interval keeps its id$
// expect-stdout: ^PASS hook events$
function check(name, ok, detail) {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + detail));
}
const {executionAsyncId, triggerAsyncId, executionAsyncResource} = asyncHooks;

const events = [];
const watched = new Set();
const hook = asyncHooks.createHook({
  init(id, type, trigger, resource) {
    if (type === 'Timeout' || type === 'Immediate') {
      watched.add(id);
      events.push({event: 'init', id, type, trigger, resource});
    }
  },
  before(id) {
    if (watched.has(id))
      events.push({event: 'before', id});
  },
  after(id) {
    if (watched.has(id))
      events.push({event: 'after', id});
  },
  destroy(id) {
    if (watched.has(id))
      events.push({event: 'destroy', id});
  },
}).enable();

check('top level: execution 1, trigger 0',
      executionAsyncId() === 1 && triggerAsyncId() === 0,
      `${executionAsyncId()} ${triggerAsyncId()}`);

const topId = executionAsyncId();
const timeout = setTimeout(function(arg) {
  check('timeout ids',
        executionAsyncId() === +timeout && triggerAsyncId() === topId &&
            executionAsyncResource() === timeout && this === timeout &&
            arg === 'arg',
        `${executionAsyncId()} ${+timeout} ${triggerAsyncId()}`);
  const nested = setTimeout(() => {
    check('nested timeout is triggered by the outer one',
          executionAsyncId() === +nested && triggerAsyncId() === +timeout,
          `${executionAsyncId()} ${triggerAsyncId()} ${+timeout}`);
  }, 1);
}, 1, 'arg');

let immediateId;
const immediate = setImmediate(function() {
  immediateId = executionAsyncId();
  check('immediate ids',
        triggerAsyncId() === topId && executionAsyncResource() === immediate &&
            this === immediate && immediateId !== +timeout,
        `${immediateId} ${triggerAsyncId()}`);
});

const intervalIds = [];
const interval = setInterval(() => {
  intervalIds.push(executionAsyncId());
  if (intervalIds.length === 3) {
    clearInterval(interval);
    check('interval keeps its id',
          intervalIds.every((id) => id === +interval), intervalIds.join());
  }
}, 1);

const cleared = setTimeout(() => {}, 1000);
clearTimeout(cleared);

addEventListener('unload', () => {
  hook.disable();
  const of = (id) => events.filter((e) => e.id === id).map((e) => e.event);
  const init = (id) => events.find((e) => e.id === id && e.event === 'init');
  const problems = [];
  const expect = (what, actual, wanted) => {
    if (actual !== wanted)
      problems.push(`${what}: ${actual} !== ${wanted}`);
  };
  expect('timeout events', of(+timeout).join(), 'init,before,after,destroy');
  expect('timeout init type', init(+timeout).type, 'Timeout');
  expect('timeout init resource', init(+timeout).resource === timeout, true);
  expect('timeout init trigger', init(+timeout).trigger, topId);
  expect('immediate events', of(immediateId).join(),
         'init,before,after,destroy');
  expect('immediate init type', init(immediateId).type, 'Immediate');
  expect('immediate init resource', init(immediateId).resource === immediate,
         true);
  expect('interval events', of(+interval).join(),
         'init,before,after,before,after,before,after,destroy');
  expect('cleared timeout events', of(+cleared).join(), 'init,destroy');
  check('hook events', problems.length === 0, problems.join('; '));
});
