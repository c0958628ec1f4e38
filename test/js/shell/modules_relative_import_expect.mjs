// A module imports a relative module (which imports another through `..`);
// dynamic import() of the same file gives the same namespace; every file is
// evaluated once; import.meta.url names the imported file.
// expect-stdout: \Arequest r-7 \(from the leaf\)\n
// expect-stdout: \nhelper url: file:///.*/test/js/shell/fixtures/module_helper\.mjs\n
// expect-stdout: \nsame namespace: true\nsame store: true\nasync_hooks namespace: true\n\Z
import * as helper from './fixtures/module_helper.mjs';
import { describe, requestStore } from './fixtures/module_helper.mjs';

requestStore.run('r-7', () => console.log(describe()));
console.log('helper url:', helper.helperUrl);
const again = await import('./fixtures/../fixtures/module_helper.mjs');
console.log('same namespace:', again === helper);
console.log('same store:', again.requestStore === requestStore);
const hooks = await import('node:async_hooks');
console.log('async_hooks namespace:',
            hooks === await import('async_hooks') &&
                hooks.AsyncResource === AsyncResource);
