// --bench-natives defines the benchmarks' native floors; without the flag
// (gc_absent_expect.js style) the global does not exist.
// args: --bench-natives
// expect-exit: 0
// expect-stdout: \Afunction function function object true\n\Z
let ran = false;
benchNatives.enqueueMicrotask(() => { ran = true; });
Promise.resolve().then(() => {
  console.log(typeof benchNatives.emptyFunction,
              typeof benchNatives.EmptyConstructor,
              typeof benchNatives.enqueueMicrotask,
              typeof new benchNatives.EmptyConstructor(), ran);
});
