// A directory is not a readable script: usage error, exit code 2.
// args: test/js/shell/fixtures
// expect-exit: 2
// expect-stderr: cannot read file 'test/js/shell/fixtures'
// expect-stdout: \A(?![\s\S]*must not run)
console.log('must not run');
