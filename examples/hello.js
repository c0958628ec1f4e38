// Hello, asyncctx: a value that follows asynchronous work.
//
//   tools/run examples/hello.js
//
// Two "requests" run interleaved. Each one stores its id in an
// AsyncLocalStorage; every log line finds the right id again after an
// `await` and inside a setTimeout callback, without passing it around.

const requestContext = new AsyncLocalStorage();

function log(message) {
  const request = requestContext.getStore();
  const who = request ? `request ${request.id}` : 'no request';
  console.log(`[${who}] ${message}`);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function handleRequest(delayMs) {
  log('started');
  await sleep(delayMs);
  log(`resumed after an await of ${delayMs} ms`);
  setTimeout(() => log('inside a setTimeout callback'), delayMs);
}

requestContext.run({id: 1}, () => handleRequest(30));
requestContext.run({id: 2}, () => handleRequest(10));
log('both requests started; outside of run() there is no store');
