// Without --bench-natives the shell defines no benchNatives global.
// expect-exit: 0
// expect-stdout: \Aundefined\n\Z
console.log(typeof benchNatives);
