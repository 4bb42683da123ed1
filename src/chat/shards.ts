// A phone's shard (src/stores/shards.ts, beside the key names it is part of): every key of the phone carries
// the shard's hash tag, so the count must stay the same for the life of the data (CHAT_SHARDS).

export { shardOf } from '../stores/shards.ts'

/** The phone's last four digits: enough to follow it in the log, not enough to reveal it. */
export const maskPhone = (phone: string): string => `…${phone.slice(-4)}`
