// A rejection observed and prevented by an `unhandledrejection` listener
// that reads the store of the rejecting context; a handler attached later
// fires `rejectionhandled`, in the same frame. The program goes on and exits
// with 0. Jobs the listener queues run right after it.
// expect-stdout: \Aunhandledrejection: PromiseRejectionEvent boom for req-A, store=req-A, same promise=true\n
// expect-stdout: \nlistener microtask: store=req-A\nattaching a handler\nrejectionhandled: boom for req-A, store=req-A, same promise=true\nstill running\n\Z
import { AsyncLocalStorage } from 'node:async_hooks';

const als = new AsyncLocalStorage();
let rejected;
addEventListener('unhandledrejection', (event) => {
  console.log(`unhandledrejection: ${event.constructor.name} ` +
              `${event.reason.message}, store=${als.getStore()}, ` +
              `same promise=${event.promise === rejected}`);
  event.preventDefault();
  Promise.resolve().then(
      () => console.log(`listener microtask: store=${als.getStore()}`));
});
addEventListener('rejectionhandled', (event) => {
  console.log(`rejectionhandled: ${event.reason.message}, ` +
              `store=${als.getStore()}, ` +
              `same promise=${event.promise === rejected}`);
  setTimeout(() => console.log('still running'), 1);
});
als.run('req-A', () => {
  setTimeout(async () => {
    await null;
    rejected = Promise.reject(new Error(`boom for ${als.getStore()}`));
  }, 1);
});
setTimeout(() => {
  console.log('attaching a handler');
  rejected.catch(() => {});
}, 20);
