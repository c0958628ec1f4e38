// Runs test files in Node.js the way the shell runs them, so that a test
// written for both (test/js/lib/diagnostics_channel_test.js) can be checked
// against real Node:
//
//   node test/js/node_host.js [--version] FILE...
//
// Each FILE is a classic script of its own in the one global context, as in
// `asyncctx_shell harness.js FILE` (a file's 'use strict' directive is its
// own; concatenating the files would make the test file sloppy and box
// `this`). `require` is Node's, as the shell's global `require` is for its
// built-ins. `--version` prints the V8 line test/js/run_tests.py reads.
// test/js/run_tests.py --node NODE uses this file.

'use strict';

const fs = require('node:fs');
const vm = require('node:vm');

const files = process.argv.slice(2);
if (files[0] === '--version') {
  console.log(`V8 ${process.versions.v8} (Node.js ${process.version})`);
  process.exit(0);
}
globalThis.require = require;
for (const file of files) {
  vm.runInThisContext(fs.readFileSync(file, 'utf8'), {filename: file});
}
