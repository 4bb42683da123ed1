import { Counter, Gauge, type Registry } from 'prom-client'

// The pipeline's counters on the app's registry (exposed at /metrics): what came in, what was applied or
// skipped, what was retried or given up, and how many phones have replies waiting.

export interface ChatMetrics {
  accepted: Counter
  applied: Counter
  duplicates: Counter
  retried: Counter
  sent: Counter
  sendRetried: Counter
  recordedLate: Counter
  deadLetters: Counter<'lane'>
  foreign: Counter
}

export function chatMetrics (registry: Registry, outboxPhones: () => Promise<number>): ChatMetrics {
  const registers = [registry]
  const outbox = new Gauge({
    name: 'club_chat_outbox_phones',
    help: 'Phones with replies waiting to be sent',
    registers,
    async collect () { outbox.set(await outboxPhones()) },
  })
  return {
    accepted: new Counter({ name: 'club_chat_messages_accepted_total', help: 'Inbound messages accepted by the webhook (new ids)', registers }),
    applied: new Counter({ name: 'club_chat_turns_applied_total', help: 'Turns committed with their session and replies', registers }),
    duplicates: new Counter({ name: 'club_chat_turns_duplicate_total', help: 'Messages found already applied and skipped', registers }),
    retried: new Counter({ name: 'club_chat_turns_retried_total', help: 'Turns that failed and were put back for a retry', registers }),
    sent: new Counter({ name: 'club_chat_replies_sent_total', help: 'Replies the provider (or the local simulator) took', registers }),
    sendRetried: new Counter({ name: 'club_chat_sends_retried_total', help: 'Reply sends that failed and were put back for a retry', registers }),
    recordedLate: new Counter({
      name: 'club_chat_replies_recorded_late_total',
      help: 'Replies the provider took while Redis could not record them, recorded later from the process (not sent again)',
      registers
    }),
    foreign: new Counter({
      name: 'club_chat_messages_foreign_number_total',
      help: 'Signed messages for another business number (phone_number_id not ours): acknowledged and dropped',
      registers
    }),
    deadLetters: new Counter({
      name: 'club_chat_dead_letters_total', help: 'Turns or replies given up and kept as dead letters', labelNames: ['lane'], registers
    }),
  }
}
