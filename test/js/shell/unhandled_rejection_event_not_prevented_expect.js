// An `unhandledrejection` listener that does not call preventDefault()
// observes the rejection, which then is fatal as without a listener; a
// removed listener is not called.
// expect-exit: 1
// expect-stdout: \Aobserved 42\n\Z
// expect-stderr: The promise rejected with the reason "42"
function removed() { console.log('must not run: removed listener'); }
addEventListener('unhandledrejection', removed);
addEventListener('unhandledrejection', (event) => console.log('observed', event.reason));
removeEventListener('unhandledrejection', removed);
Promise.reject(42);
setTimeout(() => console.log('must not run: timer'), 1);
