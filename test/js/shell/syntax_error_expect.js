// A syntax error is reported with the file and line, the source line and a
// caret under the offending token; nothing in the file runs; exit code 1.
// expect-exit: 1
// expect-stderr: ^test/js/shell/syntax_error_expect\.js:8\nconst x = = 1;\n          \^\n\nSyntaxError: Unexpected token '='
// expect-stdout: \A\Z
console.log('must not run: the script never compiles');

const x = = 1;
