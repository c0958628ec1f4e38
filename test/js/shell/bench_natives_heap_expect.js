// benchNatives.heapStatistics() (--bench-natives) gives V8's heap statistics
// in bytes, and usedHeapSize grows with what the script allocates and keeps.
// args: --bench-natives
// expect-exit: 0
// expect-stdout: \Anumber number number true true\n\Z
const before = benchNatives.heapStatistics();
const kept = [];
for (let i = 0; i < 1e4; i++) kept.push({i});
const after = benchNatives.heapStatistics();
console.log(typeof before.usedHeapSize, typeof before.totalHeapSize,
            typeof before.mallocedMemory,
            after.usedHeapSize - before.usedHeapSize >= 1e4 * 16,
            before.totalHeapSize >= before.usedHeapSize && kept.length === 1e4);
