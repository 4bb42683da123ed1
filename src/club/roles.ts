import type { Role } from '../tenants/roles.ts'

/** Who runs the club's people (staff and members): checked by their services, given to their routes' guards. */
export const CLUB_ADMINS: readonly Role[] = ['admin']
