// The roles a person holds in a club: what a token's `role` claim and a club's staff list carry.
export const ROLES = ['member', 'grower', 'admin'] as const
export type Role = typeof ROLES[number]
