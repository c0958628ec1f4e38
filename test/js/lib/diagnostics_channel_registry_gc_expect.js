// args: --expose-gc --bench-natives
// expect-exit: 0
// expect-stdout: ^name taken again before the finalizer ran: same channel true, marker true$
// expect-stdout: ^20000 unreferenced channels a round: the registry does not grow true$
// expect-stdout: ^done$
//
// The registry of channels by name (internal/diagnostics_channel) drops the
// entry of a collected channel when its finalizer runs, unless a new channel
// took the name since: that one is still alive and must stay the channel of
// its name. Entries of collected channels do not accumulate (the heap after
// a round of 20,000 unreferenced channels, collected, is what it was after
// the round before).

'use strict';

const dc = diagnosticsChannel;
const log = console.log;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

async function collect() {
  // A WeakRef's target stays alive until the end of the job that made or
  // dereferenced it: collect from fresh tasks, twice; the finalizers run
  // in tasks of their own.
  for (let i = 0; i < 3; i++) {
    await tick();
    gc();
  }
  await tick(5);
}

function make(name) {
  const channel = dc.channel(name);
  channel.marker = name;
  return new WeakRef(channel);
}

function makeMany(round, count) {
  for (let i = 0; i < count; i++) dc.channel(`registry:${round}:${i}`);
}

async function main() {
  // The first channel of the name, collected; its finalizer has not run
  // when the name is taken again (synchronously after the GC).
  const first = make('registry:retaken');
  await tick();
  gc();
  const collected = first.deref() === undefined;
  const second = dc.channel('registry:retaken');
  second.marker = 'second';
  await collect();
  log(`name taken again before the finalizer ran: same channel ${
      collected && dc.channel('registry:retaken') === second}, marker ${
      dc.channel('registry:retaken').marker === 'second'}`);

  const used = [];
  for (let round = 0; round < 4; round++) {
    makeMany(round, 20000);
    await collect();
    used.push(benchNatives.heapStatistics().usedHeapSize);
  }
  // A leaked entry (its name, the WeakRef, the map's slot) is over 50
  // bytes: 20,000 of them a round is over 1 MB.
  const growth = used[3] - used[1];
  log(`20000 unreferenced channels a round: the registry does not grow ${
      growth < 512 * 1024}`);
  if (growth >= 512 * 1024) log(`heap after each round: ${used.join(', ')}`);
  log('done');
}
main();
