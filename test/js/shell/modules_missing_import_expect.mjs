// A static import of a missing file is reported with Node's code, the
// importing file and line, and exit code 1; nothing of the module runs.
// expect-exit: 1
// expect-stderr: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module '/.*/test/js/shell/no_such_module\.mjs' imported from /.*/modules_missing_import_expect\.mjs
// expect-stderr: at test/js/shell/modules_missing_import_expect\.mjs:8:
// expect-stdout: \A\Z
console.log('must not run');
import './no_such_module.mjs';
