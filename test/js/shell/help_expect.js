// --help prints the usage to stdout, exits 0 and runs nothing.
// args: --help
// expect-stdout: ^Usage: asyncctx_shell
// expect-stdout: --expose-gc
// expect-stdout: --v8-flags=
// expect-stdout: --module
// expect-stdout: \A(?![\s\S]*must not run)
console.log('must not run');
