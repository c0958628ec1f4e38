// A syntax error in an imported module is reported with that file's name,
// line and source, and exit code 1.
// expect-exit: 1
// expect-stderr: ^test/js/shell/fixtures/module_syntax_error\.mjs:3\nexport const broken = ;\n
// expect-stderr: SyntaxError: Unexpected token ';'
// expect-stdout: \A\Z
console.log('must not run');
import { fine } from './fixtures/module_syntax_error.mjs';
