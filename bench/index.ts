import { cpus, loadavg } from 'node:os'
import { run as turnCosts } from './confirm.ts'
import { deployments } from './greetings.ts'
import { run as members } from './members.ts'
import { run as notifications } from './notifications.ts'
import { run as phoneDay } from './phone-day.ts'
import { run as dispensing } from './dispensing.ts'
import { run as growth } from './growth.ts'
import { printTopSelfTime } from './profile.ts'
import { run as receipts } from './receipts.ts'
import { run as scale } from './scale.ts'
import { printTargets, SCALE, type Target } from './lib.ts'

// `npm run bench`: every benchmark in turn, each printing its figures, then every target (docs/performance.md) next to its
// figure (met / NOT met), and the top self time of a CPU profile of the service during the members' mix
// (BENCH_PROFILE=0: no profile). Targets live here, never in tests. BENCH_SCALE=0.1 for a short run.
process.stdout.write(
  `machine: ${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg().map((l) =>
    l.toFixed(1)).join(' ')} at the start${SCALE === 1 ? '' : `, BENCH_SCALE=${SCALE}`}\n`
)

const targets: Target[] = []
process.stdout.write('\n== deployments: the single process with its defaults beside the split one, 200 phones greeting, 32 members waiting for each reply\n')
targets.push(...await deployments())

process.stdout.write('\n== members: acks, turns by kind vs a bare route, Redis and commerce work per turn, bytes per idle phone\n')
const mix = await members()
targets.push(...mix.targets)

process.stdout.write(
  '\n== turns: CPU per turn of each kind, service and commerce backend apart, beside its floor (the same HTTP exchanges and Redis scripts)\n'
)
targets.push(...(await turnCosts()).targets)

process.stdout.write('\n== a phone\'s day: Redis time of one phone\'s message at the start and at the end of 5,000 in a day\n')
targets.push(...await phoneDay())

process.stdout.write('\n== growth: what a club\'s busy day makes dearer, its end against its start (Redis\'s own clock)\n')
targets.push(...await growth())

process.stdout.write('\n== scale: RSS over phones, the provider\'s pace, Redis Cluster spread\n')
targets.push(...await scale())

process.stdout.write('\n== receipts: 5,000 status events posted while 32 members chat, beside the same members without them (pairs)\n')
targets.push(...(await receipts()).targets)

process.stdout.write('\n== notifications: list and unread count for a user with 10,000 notifications\n')
await notifications()

process.stdout.write('\n== dispensing: a limit check on an order and a handover, Redis round trips and CPU per call\n')
await dispensing()

printTargets(targets)
if (mix.profile) printTopSelfTime(mix.profile)
