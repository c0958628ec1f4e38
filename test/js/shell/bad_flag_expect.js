// An unknown flag is a usage error: exit code 2, usage on stderr.
// args: --no-such-flag
// expect-exit: 2
// expect-stderr: unknown flag: --no-such-flag
// expect-stderr: ^Usage: asyncctx_shell
// expect-stdout: \A\Z
console.log('must not run');
