// A file that cannot be read is a usage error: exit code 2 with the usage on
// stderr, and no file runs (this one comes after the missing one).
// args: test/js/shell/no_such_file.js
// expect-exit: 2
// expect-stderr: cannot read file 'test/js/shell/no_such_file\.js'
// expect-stderr: ^Usage: asyncctx_shell
// expect-stdout: \A\Z
console.log('must not run');
