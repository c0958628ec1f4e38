// --version prints the shell's version and V8's, and runs nothing.
// args: --version
// expect-stdout: \Aasyncctx_shell \d+\.\d+\.\d+\nV8 \d+\.\d+\.\d+\S*\n\Z
console.log('must not run');
