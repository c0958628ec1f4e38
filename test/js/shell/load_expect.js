// load(path) runs another file in the same context, like d8's: its globals
// become visible, it returns undefined, its exceptions (including syntax
// errors) propagate to the caller with that file's name in the stack, and a
// path that cannot be read or is not a string throws.
// expect-stdout: \A(?![\s\S]*FAIL)
// expect-stdout: ^PASS defines globals$
// expect-stdout: ^PASS returns undefined$
// expect-stdout: ^PASS exception propagates with the loaded file's location$
// expect-stdout: ^PASS syntax error propagates$
// expect-stdout: ^PASS missing file throws$
// expect-stdout: ^PASS non-string path throws ERR_INVALID_ARG_TYPE$
// expect-stdout: ^PASS loaded timers run$
function check(name, ok, detail) {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ': ' + detail));
}
const dir = 'test/js/shell/fixtures/';

const result = load(dir + 'load_defines.js');
check('defines globals', globalThis.loadedValue === 42 &&
      typeof loadedFunction === 'function' && loadedFunction() === 'hi',
      String(globalThis.loadedValue));
check('returns undefined', result === undefined, String(result));

try {
  load(dir + 'load_throws.js');
  check('exception propagates with the loaded file\'s location', false,
        'no exception');
} catch (e) {
  check('exception propagates with the loaded file\'s location',
        e.message === 'thrown by a loaded file' &&
            /load_throws\.js:\d+:\d+/.test(e.stack),
        e.stack);
}

try {
  load(dir + 'load_syntax_error.js');
  check('syntax error propagates', false, 'no exception');
} catch (e) {
  check('syntax error propagates', e instanceof SyntaxError, String(e));
}

try {
  load(dir + 'no_such_file.js');
  check('missing file throws', false, 'no exception');
} catch (e) {
  check('missing file throws', e instanceof Error &&
        e.message.includes('no_such_file.js'), String(e));
}

try {
  load(42);
  check('non-string path throws ERR_INVALID_ARG_TYPE', false, 'no exception');
} catch (e) {
  check('non-string path throws ERR_INVALID_ARG_TYPE',
        e instanceof TypeError && e.code === 'ERR_INVALID_ARG_TYPE', String(e));
}

addEventListener('unload', () => {
  check('loaded timers run', globalThis.loadedTimerRan === true,
        String(globalThis.loadedTimerRan));
});
