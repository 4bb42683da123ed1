// The project's demo data (shared/design/decisions.md, section 3), as Medusa fixtures.

export const TENANT_IDS = ['club-norte', 'club-sur'] as const
export type TenantId = typeof TENANT_IDS[number]

export const DEMO_PASSWORD = 'demo-password'
export const STOCK_QUANTITY = 100
export const CURRENCY = 'ars'
export const COUNTRY = 'ar'

export interface VariantSpec {
  title: string
  sku: string
  /** Whole ARS. */
  price: number
}

export interface ProductSpec {
  handle: string
  title: string
  description: string
  option: string
  variants: VariantSpec[]
}

export interface ClubSpec {
  name: string
  /** The demo's stable name for the club's stock location; Medusa makes up the id itself. */
  stockLocationName: string
  address: { address_1: string, city: string, postal_code: string }
  products: ProductSpec[]
}

export const SHIPPING_OPTIONS = [
  { name: 'pickup', amount: 0, label: 'Retiro en el club', code: 'pickup' },
  { name: 'delivery', amount: 1500, label: 'Envío a domicilio', code: 'delivery' },
] as const
export type ShippingOptionName = typeof SHIPPING_OPTIONS[number]['name']

function single (handle: string, title: string, description: string, sku: string, price: number): ProductSpec {
  return { handle, title, description, option: 'Presentación', variants: [{ title: 'Única', sku, price }] }
}

export const CLUBS: Record<TenantId, ClubSpec> = {
  'club-norte': {
    name: 'Club Norte',
    stockLocationName: 'sloc_norte',
    address: { address_1: 'Av. Cabildo 1200', city: 'Buenos Aires', postal_code: 'C1426' },
    products: [
      {
        handle: 'norte-aceite',
        title: 'Aceite de cáñamo',
        description: 'Aceite de cáñamo de elaboración propia.',
        option: 'Tamaño',
        variants: [
          { title: '10 ml', sku: 'NORTE-ACEITE-10', price: 12000 },
          { title: '30 ml', sku: 'NORTE-ACEITE-30', price: 30000 },
        ],
      },
      single('norte-sustrato', 'Sustrato orgánico 25 L', 'Sustrato con perlita y humus.', 'NORTE-SUSTRATO', 9500),
      single('norte-fertilizante', 'Fertilizante de floración', 'Fertilizante líquido, 1 L.', 'NORTE-FERT', 7800),
      {
        handle: 'norte-maceta',
        title: 'Maceta textil',
        description: 'Maceta de tela con asas.',
        option: 'Capacidad',
        variants: [
          { title: '10 L', sku: 'NORTE-MACETA-10', price: 4500 },
          { title: '20 L', sku: 'NORTE-MACETA-20', price: 6500 },
        ],
      },
    ],
  },
  'club-sur': {
    name: 'Club Sur',
    stockLocationName: 'sloc_sur',
    address: { address_1: 'Av. Mitre 800', city: 'Avellaneda', postal_code: 'B1870' },
    products: [
      {
        handle: 'sur-crema',
        title: 'Crema de caléndula',
        description: 'Crema artesanal de caléndula.',
        option: 'Tamaño',
        variants: [
          { title: '50 g', sku: 'SUR-CREMA-50', price: 8000 },
          { title: '100 g', sku: 'SUR-CREMA-100', price: 14000 },
        ],
      },
      single('sur-semillas', 'Semillas de tomate', 'Sobre de 20 semillas.', 'SUR-SEMILLAS', 3000),
      single('sur-humus', 'Humus de lombriz 5 kg', 'Abono orgánico.', 'SUR-HUMUS', 5200),
      single('sur-tijera', 'Tijera de poda', 'Tijera de acero inoxidable.', 'SUR-TIJERA', 11000),
    ],
  },
}

export interface CustomerSpec {
  email: string
  first_name: string
  last_name: string
  /** The first club is the one whose publishable key registers the customer. */
  clubs: [TenantId, ...TenantId[]]
}

export const CUSTOMERS: CustomerSpec[] = [
  { email: 'ana@example.com', first_name: 'Ana', last_name: 'García', clubs: ['club-norte', 'club-sur'] },
  { email: 'bruno@example.com', first_name: 'Bruno', last_name: 'Pérez', clubs: ['club-norte'] },
]
