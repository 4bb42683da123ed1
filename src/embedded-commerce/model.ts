// The records the embedded backend keeps. They are close to Medusa's own entities, so that a view is mostly a
// matter of adding computed fields (totals, statuses) and Medusa's fixed defaults.

export type Metadata = Record<string, unknown> | null

interface Timestamps {
  created_at: string
  updated_at: string
}

export interface RegionDoc extends Timestamps {
  id: string
  name: string
  currency_code: string
  countries: string[]
  payment_providers: string[]
  automatic_taxes: boolean
  metadata: Metadata
}

/** `metadata.tenant_id` names the club that owns the channel; `metadata.default_region_id` its region. */
export interface SalesChannelDoc extends Timestamps {
  id: string
  name: string
  description: string | null
  is_disabled: boolean
  metadata: Metadata
}

export interface ApiKeyDoc extends Timestamps {
  id: string
  token: string
  title: string
  type: 'publishable'
  sales_channel_ids: string[]
  revoked_at: string | null
}

interface Address {
  first_name: string | null
  last_name: string | null
  company: string | null
  address_1: string | null
  address_2: string | null
  city: string | null
  postal_code: string | null
  province: string | null
  country_code: string | null
  phone: string | null
}

export interface StoredAddress extends Address {
  id: string
}

export interface StockLocationDoc extends Timestamps {
  id: string
  name: string
  address: StoredAddress
  sales_channel_ids: string[]
  metadata: Metadata
}

export interface ShippingOptionDoc extends Timestamps {
  id: string
  name: string
  amount: number
  currency_code: string
  stock_location_id: string
  service_zone_id: string
  fulfillment_set_id: string
  shipping_profile_id: string
  price_set_id: string
  price_id: string
  type: { id: string, label: string, description: string, code: string }
  metadata: Metadata
}

interface OptionValue {
  id: string
  value: string
}

export interface ProductOption {
  id: string
  title: string
  values: OptionValue[]
}

interface Price {
  id: string
  amount: number
  currency_code: string
}

export interface VariantDoc extends Timestamps {
  id: string
  title: string
  sku: string | null
  manage_inventory: boolean
  allow_backorder: boolean
  variant_rank: number
  inventory_item_id: string | null
  option_value_ids: string[]
  price_set_id: string
  prices: Price[]
  /** Grams per unit (Medusa's `weight`, in grams here): what a dispensation of one unit counts. */
  weight?: number | null
  metadata: Metadata
}

type ProductStatus = 'draft' | 'proposed' | 'published' | 'rejected'

export interface ProductDoc extends Timestamps {
  id: string
  title: string
  subtitle: string | null
  description: string | null
  handle: string
  status: ProductStatus
  thumbnail: string | null
  metadata: Metadata
  sales_channel_ids: string[]
  options: ProductOption[]
  variants: VariantDoc[]
}

export interface InventoryItemDoc extends Timestamps {
  id: string
  sku: string | null
  title: string | null
  description: string | null
  requires_shipping: boolean
  metadata: Metadata
}

/** One stock level of an inventory item at a location. */
export interface StockLevel {
  id: string
  location_id: string
  stocked_quantity: number
  reserved_quantity: number
  created_at: string
  updated_at: string
}

/** `metadata.clubs` lists the tenants the customer is a member of (as the Medusa provisioning script keeps it). */
export interface CustomerDoc extends Timestamps {
  id: string
  email: string
  first_name: string | null
  last_name: string | null
  phone: string | null
  has_account: boolean
  metadata: Metadata
}

export interface UserDoc extends Timestamps {
  id: string
  email: string
  first_name: string | null
  last_name: string | null
  /** The claims its tokens carry in `app_metadata`. */
  role: 'admin' | 'grower'
  tenants: string[]
  metadata: Metadata
}

/** An invitation to become a user (Medusa's invite); `metadata` carries the role and club it is for. */
export interface InviteDoc extends Timestamps {
  id: string
  email: string
  accepted: boolean
  token: string
  expires_at: string
  metadata: Metadata
}

export type ActorType = 'customer' | 'user'

export interface AuthIdentityDoc extends Timestamps {
  id: string
  actor_type: ActorType
  email: string
  password_hash: string
  actor_id: string | null
}

export interface LineItem extends Timestamps {
  id: string
  variant_id: string
  product_id: string
  inventory_item_id: string | null
  title: string
  subtitle: string | null
  thumbnail: string | null
  quantity: number
  unit_price: number
  product_title: string
  product_description: string | null
  product_subtitle: string | null
  product_handle: string
  variant_sku: string | null
  variant_title: string
  requires_shipping: boolean
  metadata: Record<string, unknown>
}

export interface ShippingMethod extends Timestamps {
  id: string
  name: string
  shipping_option_id: string
  amount: number
}

export interface PaymentSession extends Timestamps {
  id: string
  provider_id: string
  currency_code: string
  amount: number
  status: 'pending' | 'authorized' | 'canceled'
  authorized_at: string | null
  data: Record<string, unknown>
}

interface MoneyMovement {
  id: string
  amount: number
  created_by: string | null
  created_at: string
}

export interface Payment extends Timestamps {
  id: string
  provider_id: string
  currency_code: string
  amount: number
  payment_session_id: string
  captured_at: string | null
  canceled_at: string | null
  captures: MoneyMovement[]
  refunds: MoneyMovement[]
}

export interface PaymentCollection extends Timestamps {
  id: string
  currency_code: string
  amount: number
  completed_at: string | null
  payment_sessions: PaymentSession[]
  payments: Payment[]
  metadata: Metadata
}

export interface CartDoc extends Timestamps {
  id: string
  region_id: string
  sales_channel_id: string
  currency_code: string
  email: string | null
  customer_id: string | null
  items: LineItem[]
  shipping_methods: ShippingMethod[]
  shipping_address: StoredAddress | null
  billing_address: StoredAddress | null
  payment_collection: PaymentCollection | null
  metadata: Metadata
}

export interface OrderLineItem extends LineItem {
  fulfilled_quantity: number
  shipped_quantity: number
  delivered_quantity: number
}

interface FulfillmentItem {
  id: string
  line_item_id: string
  inventory_item_id: string | null
  title: string
  sku: string | null
  quantity: number
  created_at: string
}

interface FulfillmentLabel {
  id: string
  tracking_number: string
  tracking_url: string
  label_url: string
  created_at: string
}

export interface Fulfillment extends Timestamps {
  id: string
  location_id: string
  shipping_option_id: string | null
  packed_at: string
  shipped_at: string | null
  delivered_at: string | null
  canceled_at: string | null
  created_by: string | null
  marked_shipped_by: string | null
  delivery_address_id: string
  items: FulfillmentItem[]
  labels: FulfillmentLabel[]
}

type OrderStatus = 'pending' | 'completed' | 'canceled'

export interface OrderDoc extends Timestamps {
  id: string
  /** Set by the store, atomically with the stock reservation: the sales channel's next number. */
  display_id: number
  version: number
  status: OrderStatus
  cart_id: string
  region_id: string
  sales_channel_id: string
  /** Where the items were reserved at completion. */
  stock_location_id: string
  customer_id: string | null
  email: string | null
  currency_code: string
  items: OrderLineItem[]
  shipping_methods: ShippingMethod[]
  shipping_address: StoredAddress | null
  billing_address: StoredAddress | null
  payment_collections: PaymentCollection[]
  fulfillments: Fulfillment[]
  metadata: Metadata
  canceled_at: string | null
}

export interface DocKinds {
  region: RegionDoc
  sales_channel: SalesChannelDoc
  api_key: ApiKeyDoc
  stock_location: StockLocationDoc
  shipping_option: ShippingOptionDoc
  product: ProductDoc
  inventory_item: InventoryItemDoc
  customer: CustomerDoc
  user: UserDoc
  invite: InviteDoc
  auth_identity: AuthIdentityDoc
  cart: CartDoc
  order: OrderDoc
}

export type Kind = keyof DocKinds
