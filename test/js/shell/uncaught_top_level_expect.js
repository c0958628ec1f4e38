// An exception at the top level of a script is fatal: the later files on
// the command line do not run, nor the timers the script set. A thrown
// non-error prints as `Uncaught <value>`.
// args: test/js/shell/fixtures/throws_string.js
// expect-exit: 1
// expect-stderr: ^test/js/shell/fixtures/throws_string\.js:\d+\n
// expect-stderr: Uncaught thrown by a fixture\n
// expect-stdout: \Afixture ran\n\Z
console.log('must not run: the file after the throwing one');
