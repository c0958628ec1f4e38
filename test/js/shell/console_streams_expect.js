// console.log/info/debug/dir write to stdout; warn/error/trace/assert to
// stderr. console.log prints an error as its stack (with the error's own
// properties), dir inspects even a string, trace prints the caller's stack,
// and a failed assert formats its message. The methods work unbound.
// expect-stdout: \Alog\ninfo\ndebug\n'dir quotes strings'\nError: logged error\n    at test/js/shell/console_streams_expect\.js:17:27 \{\n  code: 'E_LOGGED'\n\}\nunbound log\n\Z
// expect-stderr: \Awarn\nerror\nTrace: traced 1\n    at test/js/shell/console_streams_expect\.js:13:9\nAssertion failed: assert 2\nAssertion failed\n\Z
console.log('log');
console.info('info');
console.debug('debug');
console.dir('dir quotes strings');
console.warn('warn');
console.error('error');
console.trace('traced %d', 1);
console.assert(true, 'must not print');
console.assert(0, 'assert %i', 2.5);
console.assert(false);
console.log(Object.assign(new Error('logged error'), {code: 'E_LOGGED'}));
const {log} = console;
log('unbound log');
