// A top-level await that can never settle: once the loop drains the shell
// warns and exits with 13, as Node.js does.
// expect-exit: 13
// expect-stderr: Warning: Detected unsettled top-level await at test/js/shell/modules_unsettled_top_level_await_expect\.mjs
// expect-stdout: \Abefore\n\Z
console.log('before');
await new Promise(() => {});
console.log('must not run');
