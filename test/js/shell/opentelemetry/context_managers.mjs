// OpenTelemetry's two context managers, bundled as an ES module whose only
// external import is node:async_hooks (see check.py), keep each request's
// context across await, timers, immediates, thenables, bound functions and
// queueMicrotask, and leave nothing behind outside. check.py runs this in
// the shell and compares with the expected lines (Node 24 prints the same).
import { AsyncHooksContextManager, AsyncLocalStorageContextManager, context,
         createContextKey, ROOT_CONTEXT } from './otel.bundle.mjs';  // made by check.py

const key = createContextKey('request');
async function scenario(name, Manager) {
  const manager = new Manager().enable();
  context.setGlobalContextManager(manager);
  const seen = [];
  const request = (id) => context.with(ROOT_CONTEXT.setValue(key, id), async () => {
    await null;
    seen.push(`${id}:await=${context.active().getValue(key)}`);
    await new Promise((resolve) => setTimeout(resolve, id === 'a' ? 3 : 1));
    seen.push(`${id}:timer=${context.active().getValue(key)}`);
    await new Promise((resolve) => setImmediate(resolve));
    await { then(resolve) { resolve(); } };
    seen.push(`${id}:thenable=${context.active().getValue(key)}`);
    const bound = context.bind(context.active(), () => context.active().getValue(key));
    return new Promise((resolve) => queueMicrotask(() => resolve(bound())));
  });
  const results = await Promise.all([request('a'), request('b')]);
  seen.push(`outside=${context.active().getValue(key)}`);
  console.log(name, results.join(','), seen.sort().join(' '));
  context.disable();
}
await scenario('AsyncLocalStorageContextManager', AsyncLocalStorageContextManager);
await scenario('AsyncHooksContextManager', AsyncHooksContextManager);
