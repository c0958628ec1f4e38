// A promise rejected with a non-error value prints Node's
// ERR_UNHANDLED_REJECTION message with the inspected value; exit code 1.
// expect-exit: 1
// expect-stderr: UnhandledPromiseRejection: .*The promise rejected with the reason "\{ why: 'no reason' \}"
// expect-stderr: code: 'ERR_UNHANDLED_REJECTION'
(async () => {
  await null;
  throw {why: 'no reason'};
})();
