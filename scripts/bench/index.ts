import * as EventStore from "./event-store.js"

/** Every benchmark, run one after another in this process; add new ones here. */
const benches: ReadonlyArray<{ readonly name: string; readonly run: () => Promise<void> }> = [
  { name: "event store", run: EventStore.run }
]

for (const bench of benches) {
  console.log(`\n=== ${bench.name} ===`)
  await bench.run()
}
