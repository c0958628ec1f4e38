// --module runs a .js file as an ES module: import, top-level await and
// import.meta work.
// args: --module
// expect-stdout: \Astore: m\nurl: file:///.*/module_flag_expect\.js\n\Z
import { AsyncLocalStorage } from 'node:async_hooks';
const als = new AsyncLocalStorage();
await als.run('m', async () => {
  await null;
  console.log('store:', als.getStore());
});
console.log('url:', import.meta.url);
