import type { CustomerDoc, UserDoc } from '../model.ts'

export function customerView (c: CustomerDoc) {
  return {
    id: c.id,
    email: c.email,
    company_name: null,
    first_name: c.first_name,
    last_name: c.last_name,
    phone: c.phone,
    has_account: c.has_account,
    metadata: c.metadata,
    created_by: null,
    created_at: c.created_at,
    updated_at: c.updated_at,
    deleted_at: null,
    addresses: [],
    groups: [],
  }
}

export function userView (u: UserDoc) {
  return {
    id: u.id,
    first_name: u.first_name,
    last_name: u.last_name,
    email: u.email,
    avatar_url: null,
    metadata: u.metadata,
    created_at: u.created_at,
    updated_at: u.updated_at,
    deleted_at: null,
  }
}
