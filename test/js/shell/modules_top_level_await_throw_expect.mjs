// An exception after a top-level await is uncaught: reported with the file
// and line, exit code 1, and nothing later runs.
// expect-exit: 1
// expect-stderr: ^test/js/shell/modules_top_level_await_throw_expect\.mjs:9\n
// expect-stderr: Error: thrown after await\n    at test/js/shell/modules_top_level_await_throw_expect\.mjs:9:
// expect-stdout: \Abefore\n\Z
console.log('before');
await new Promise((resolve) => setTimeout(resolve, 1));
throw new Error('thrown after await');
