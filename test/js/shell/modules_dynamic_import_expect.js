// import() from a classic script: relative paths resolve against the
// script, node:async_hooks gives the installed objects, and failures reject
// with Node's codes (a missing file, an unknown builtin, a bare package, a
// syntax error) without ending the program.
// expect-stdout: \Ahelper: request undefined \(from the leaf\)\n
// expect-stdout: \nasync_hooks: true\n
// expect-stdout: \nmissing: ERR_MODULE_NOT_FOUND .*/test/js/shell/fixtures/nope\.mjs' imported from .*/modules_dynamic_import_expect\.js\n
// expect-stdout: \nbuiltin: ERR_UNKNOWN_BUILTIN_MODULE No such built-in module: node:fs\n
// expect-stdout: \npackage: ERR_MODULE_NOT_FOUND Cannot find package 'left-pad'
// expect-stdout: \nsyntax: SyntaxError\n
(async () => {
  const helper = await import('./fixtures/module_helper.mjs');
  console.log('helper:', helper.describe());
  const hooks = await import('node:async_hooks');
  console.log('async_hooks:', hooks.default === asyncHooks);
  const show = (label) => (e) => console.log(label + ':', e.code, e.message);
  await import('./fixtures/nope.mjs').catch(show('missing'));
  await import('node:fs').catch(show('builtin'));
  await import('left-pad').catch(show('package'));
  await import('./fixtures/module_syntax_error.mjs')
      .catch((e) => console.log('syntax:', e.name));
})();
