import { indexOrder, newestFirstOrder, type CommerceStore } from '../store/port.ts'

/** What every service needs: the store and the token secret. */
export interface CommerceContext {
  store: CommerceStore
  jwtSecret: string
}

export const nowIso = (): string => new Date().toISOString()

/** Index scores: creation time in ms. */
export const score = (iso: string): number => Date.parse(iso)

/** Records as an index by creation time lists them (creation time, then id), or newest first. */
export const creationOrder = (newestFirst = false) => (a: { id: string, created_at: string }, b: { id: string, created_at: string }): number =>
  (newestFirst ? newestFirstOrder : indexOrder)([a.id, score(a.created_at)], [b.id, score(b.created_at)])

export const INDEX = {
  regions: 'regions',
  salesChannels: 'sales_channels',
  apiKeys: 'api_keys',
  stockLocations: 'stock_locations',
  shippingOptions: 'shipping_options',
  products: 'products',
  inventoryItems: 'inventory_items',
  customers: 'customers',
  // what a club's staff see of the customers (services/accounts.ts): its members, and the customers without an
  // account that ordered in its channels; scores as `customers`
  customersOfClub: (club: string) => `customers:club:${club}`,
  users: 'users',
  invites: 'invites',
  ordersOfChannel: (salesChannelId: string) => `orders:sc:${salesChannelId}`,
  ordersOfCustomer: (customerId: string) => `orders:customer:${customerId}`,
  // the customer's orders in one channel (what a member's list asks), written with the order; filled from the
  // customer's index for orders completed before it existed (services/orders.ts)
  ordersOfCustomerIn: (customerId: string, salesChannelId: string) => `orders:customer:${customerId}:sc:${salesChannelId}`,
} as const

export const LOOKUP = {
  publishableKey: 'pk',
  authIdentity: (actorType: string) => `auth:${actorType}`,
  handle: 'handle',
  variant: 'variant',
  customerEmail: 'customer-email',
  guestEmail: 'guest-email',
  paymentCollection: 'payment-collection',
  payment: 'payment',
  inviteToken: 'invite-token',
  // set once a club's index of customers holds the customers made before it existed
  customersOfClubFilled: 'customers-of-club-filled',
} as const
