// An uncaught error prints like Node's util.inspect of it: the stack, then
// its own enumerable properties.
// expect-exit: 1
// expect-stderr: Error: with a code\n    at Immediate\.<anonymous> \(test/js/shell/uncaught_error_properties_expect\.js:\d+:\d+\) \{\n  code: 'E_SHELL_TEST'\n\}
setImmediate(() => {
  throw Object.assign(new Error('with a code'), {code: 'E_SHELL_TEST'});
});
