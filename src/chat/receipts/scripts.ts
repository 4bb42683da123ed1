import { defineScript } from '../../stores/define-script.ts'
import { loadLua } from '../../stores/lua.ts'

// The receipts' Redis scripts, one Lua file each in scripts/ (keys, arguments and reply in its header). A receipt's
// hash keeps minimums (each status's earliest time, the earliest failure), which any order of the same events
// reaches alike: the merge of src/chat/provider/receipts.ts, field by field.

const DIR = new URL('./scripts/', import.meta.url)

/** The fields of one receipt as HMGET answers them (null when absent). */
export type RawReceipt = [meta: string | null, sent: string | null, delivered: string | null, read: string | null, failed: string | null]

const rawList = (raw: unknown): Array<RawReceipt | null> =>
  (raw as Array<Array<string | null> | null>).map((r) => Array.isArray(r) && r[0] !== null ? r as RawReceipt : null)

export const apply = defineScript<string[], Array<RawReceipt | null>>({
  name: 'chatReceiptApply', keys: 'list', lua: loadLua(DIR, 'apply-list'), decode: rawList
})

export const read = defineScript<[], Array<RawReceipt | null>>({ name: 'chatReceiptRead', keys: 'list', lua: loadLua(DIR, 'read-list'), decode: rawList })
