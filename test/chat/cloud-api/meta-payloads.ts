// Webhook bodies as Meta's Cloud API sends them (the shapes of its webhook reference for messages and statuses),
// recorded with placeholder ids and numbers.

const metadata = { display_phone_number: '15550001111', phone_number_id: '106540352242922' }
const contact = (waId: string, name: string) => ({ profile: { name }, wa_id: waId })
const envelope = (...values: unknown[]) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: '102290129340398', changes: values.map((value) => ({ field: 'messages', value })) }],
})

export const textMessage = envelope({
  messaging_product: 'whatsapp',
  metadata,
  contacts: [contact('5491100000001', 'Ana')],
  messages: [{ from: '5491100000001', id: 'wamid.HBgNNTQ5MTEwMDAwMDAwMRUCABIYFjNFQjA1', timestamp: '1700000000', text: { body: 'hola' }, type: 'text' }],
})

export const buttonReply = envelope({
  messaging_product: 'whatsapp',
  metadata,
  contacts: [contact('5491100000001', 'Ana')],
  messages: [{
    context: { from: '15550001111', id: 'wamid.sent.1' },
    from: '5491100000001',
    id: 'wamid.button.1',
    timestamp: '1700000001',
    type: 'interactive',
    interactive: { type: 'button_reply', button_reply: { id: 'menu:browse', title: 'Ver productos' } },
  }],
})

export const listReply = envelope({
  messaging_product: 'whatsapp',
  metadata,
  contacts: [contact('5491100000001', 'Ana')],
  messages: [{
    from: '5491100000001',
    id: 'wamid.list.1',
    timestamp: '1700000002',
    type: 'interactive',
    interactive: { type: 'list_reply', list_reply: { id: 'product:prod_1', title: 'Aceite CBD', description: '10 ml' } },
  }],
})

export const statuses = envelope({
  messaging_product: 'whatsapp',
  metadata,
  statuses: [
    {
      id: 'wamid.sent.1',
      status: 'delivered',
      timestamp: '1700000010',
      recipient_id: '5491100000001',
      conversation: { id: 'c1', origin: { type: 'service' } },
      pricing: { billable: true, pricing_model: 'PMP', category: 'service' },
    },
    {
      id: 'wamid.sent.2',
      status: 'failed',
      timestamp: '1700000011',
      recipient_id: '5491100000002',
      errors: [{
        code: 131047,
        title: 'Re-engagement message',
        message: 'Re-engagement message',
        error_data: { details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' }
      }],
    },
  ],
})

/** A sender who has a username and no phone in the payload: only the business-scoped user id names them. */
export const withoutPhone = envelope({
  messaging_product: 'whatsapp',
  metadata,
  contacts: [{ profile: { name: 'Bo', username: '@bo' }, user_id: 'AR.1502576394655843' }],
  messages: [{ from_user_id: 'AR.1502576394655843', id: 'wamid.bsuid.1', timestamp: '1700000003', text: { body: 'menu' }, type: 'text' }],
})

/** Several entries, one with a message and a status in the same change, one of a field this service does not read. */
export const severalEntries = {
  object: 'whatsapp_business_account',
  entry: [
    textMessage.entry[0],
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata,
            contacts: [contact('5491100000003', 'Cy')],
            messages: [{
              from: '5491100000003',
              id: 'wamid.img.1',
              timestamp: '1700000004',
              type: 'image',
              image: { id: 'media1', mime_type: 'image/jpeg', caption: 'esto' }
            }],
            statuses: [{ id: 'wamid.sent.3', status: 'read', timestamp: '1700000012', recipient_id: '5491100000003' }],
          },
        },
        { field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: 1 } },
      ],
    },
  ],
}
