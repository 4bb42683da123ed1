import { run as chat } from './chat.ts'
import { run as notifications } from './notifications.ts'

// `npm run bench`: every benchmark in turn, each printing its own figures. Targets live here, never in tests.
const benches: Array<[string, () => Promise<void>]> = [
  ['chat: webhook acks, turns end to end, ack latency, bytes per session', chat],
  ['notifications: list and unread count for a user with 10,000 notifications', notifications],
]

for (const [title, bench] of benches) {
  process.stdout.write(`\n== ${title}\n`)
  await bench()
}
