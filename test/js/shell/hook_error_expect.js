// An exception thrown by an async hook while the shell creates a timer's
// AsyncResource is fatal, as in Node: its stack is printed, the exit code is
// 1, and nothing else runs or prints (not even the rest of the statement
// that scheduled the timer).
// expect-exit: 1
// expect-stderr: ^Error: thrown by init\n    at AsyncHook\.init \(test/js/shell/hook_error_expect\.js:\d+:\d+\)
// expect-stdout: \A\Z
asyncHooks.createHook({
  init(id, type) {
    if (type === 'Timeout')
      throw new Error('thrown by init');
  },
}).enable();
setTimeout(() => console.log('must not run: timer'), 1);
console.log('must not print: the script stops at the hook error');
