import { randomUUID } from 'node:crypto'
import { AppError } from '../errors.ts'
import type { CatalogItems, CatalogKind, Strain } from './model.ts'
import type { CatalogStore } from './store/index.ts'

const SINGULAR: Record<CatalogKind, string> = { strains: 'strain', spaces: 'space', lights: 'light' }

type NewItem<K extends CatalogKind> = Omit<CatalogItems[K], 'id'> & { id?: string | undefined }

function unknownIds (field: string, ids: readonly string[], found: ReadonlyArray<unknown>, kind: CatalogKind): AppError {
  const errors: Record<string, string[]> = {}
  ids.forEach((id, i) => { if (!found[i]) errors[`${field}.${i}`] = [`Unknown ${SINGULAR[kind]} ${id}; add it with POST /api/${kind} first`] })
  return new AppError('VALIDATION_ERROR', `Unknown ${kind}`, { details: { errors } })
}

/** The tenant's strains, spaces and lights, and how a crop refers to them. */
export class CatalogService {
  constructor (private readonly store: CatalogStore) {}

  async list<K extends CatalogKind> (tenantId: string, kind: K) {
    return await this.store.list(tenantId, kind)
  }

  /** Adds an item; a chosen id that is taken is 409 DUPLICATE_RESOURCE. */
  async add<K extends CatalogKind> (tenantId: string, kind: K, input: NewItem<K>): Promise<CatalogItems[K]> {
    const item = { ...input, id: input.id ?? `${SINGULAR[kind]}_${randomUUID()}` } as CatalogItems[K]
    if (!await this.store.add(tenantId, kind, item)) {
      throw new AppError('DUPLICATE_RESOURCE', `A ${SINGULAR[kind]} with id ${item.id} already exists`)
    }
    return item
  }

  /**
   * The strain a new crop names: one of the catalog, or a new one when `strainName` comes with an unknown id
   * (made on the spot). Its type and cannabinoids are not known yet: UNKNOWN and 0 until someone records them.
   */
  async strainFor (tenantId: string, id: string, strainName: string | undefined): Promise<Strain> {
    const known = await this.store.get(tenantId, 'strains', id)
    if (known) return known
    if (!strainName) {
      throw new AppError('VALIDATION_ERROR', `Unknown strain ${id}`, {
        details: { errors: { strain: [`Unknown strain ${id}; send strainName to add it to the catalog`] } },
      })
    }
    const strain: Strain = { id, name: strainName, type: 'UNKNOWN', cannabinoids: { thc: 0, cbd: 0 } }
    // Someone may add the same id at the same moment: theirs wins and is used.
    if (await this.store.add(tenantId, 'strains', strain)) return strain
    return await this.store.get(tenantId, 'strains', id) ?? strain
  }

  async strain (tenantId: string, id: string): Promise<Strain | undefined> {
    return await this.store.get(tenantId, 'strains', id)
  }

  /** The items of `ids`, in order; any unknown id is a 400 naming its position under `field`. */
  async require<K extends 'spaces' | 'lights'> (tenantId: string, kind: K, ids: readonly string[], field: string = kind): Promise<Array<CatalogItems[K]>> {
    const found = await this.fetch(tenantId, kind, ids)
    if (found.some((item) => !item)) throw unknownIds(field, ids, found, kind)
    return found as Array<CatalogItems[K]>
  }

  /** The items of `ids` that exist, for showing a crop. */
  async some<K extends 'spaces' | 'lights'> (tenantId: string, kind: K, ids: readonly string[]): Promise<Array<CatalogItems[K]>> {
    return (await this.fetch(tenantId, kind, ids)).filter((item): item is CatalogItems[K] => item !== undefined)
  }

  private async fetch<K extends CatalogKind> (tenantId: string, kind: K, ids: readonly string[]): Promise<Array<CatalogItems[K] | undefined>> {
    return await Promise.all(ids.map((id) => this.store.get(tenantId, kind, id)))
  }
}
