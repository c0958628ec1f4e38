// Errors that know which request they belong to: an ES module that imports
// AsyncLocalStorage from node:async_hooks, as code written for Node.js does,
// and handles failures with the web's `error` and `unhandledrejection`
// events. Each listener runs in the context of the request that failed, so
// it can log the request id without being told.
//
//   tools/run examples/request_errors.mjs

import { AsyncLocalStorage } from 'node:async_hooks';

const requestContext = new AsyncLocalStorage();

function log(message) {
  const request = requestContext.getStore();
  console.log(`[${request ? `request ${request.id}` : 'server'}] ${message}`);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A promise rejected and never handled: reported for the request that
// rejected it; preventDefault() keeps the server running.
addEventListener('unhandledrejection', (event) => {
  log(`unhandled rejection: ${event.reason.message}`);
  event.preventDefault();
});

// An exception thrown by a callback: the same, for the request whose timer
// threw.
addEventListener('error', (event) => {
  log(`uncaught exception: ${event.error.message}`);
  event.preventDefault();
});

async function handleRequest(id, failure) {
  log('started');
  await sleep(5 * id);
  if (failure === 'reject') {
    // Forgot to await it.
    Promise.reject(new Error('the database said no'));
  } else if (failure === 'throw') {
    setTimeout(() => {
      throw new Error('a timer callback threw');
    }, 1);
  }
  await sleep(20);
  log('finished');
}

await Promise.all([
  requestContext.run({ id: 1 }, () => handleRequest(1, 'reject')),
  requestContext.run({ id: 2 }, () => handleRequest(2, 'none')),
  requestContext.run({ id: 3 }, () => handleRequest(3, 'throw')),
]);
log('all requests finished; the server is still up');
