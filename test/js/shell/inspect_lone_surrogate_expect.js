// util.inspect escapes a lone surrogate in a quoted string with
// lowercase hex, as Node.js 18 to 26 do (`'\ud800'`), and control
// characters with uppercase hex (`'\x7F'`).
// expect-stdout: \A\[ 'a\\x01\\ud800\\x7F', '\\udfff' \]\n\Z
console.log(['a\x01\ud800\x7f', '\udfff']);
