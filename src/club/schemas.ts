import { z } from 'zod'

// What the club's routes (staff, members) check alike.

const MIN_PASSWORD_LENGTH = 8
export const passwordSchema = z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(1024)
