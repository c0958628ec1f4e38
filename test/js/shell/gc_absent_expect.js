// Without --expose-gc there is no gc().
// expect-stdout: ^typeof gc: undefined$
console.log('typeof gc: ' + typeof gc);
