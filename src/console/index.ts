import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { bearerToken, verifyAccessToken, type Principal } from '../auth/tokens.ts'
import { AppError, notFound } from '../errors.ts'
import { errorResponses } from '../schemas/common.ts'
import { ROLES } from '../tenants/roles.ts'
import { consoleBundle } from './bundle.ts'

// The staff and member console at /console (docs/console.md): its files, and its session. The API stays
// bearer-only: the console keeps its token in memory and, so that a reload keeps the login, in an HTTP-only
// SameSite=Strict cookie that only /console/session reads, and only with the `x-console` header (a header a
// cross-site form cannot send, and that CORS does not allow).

const COOKIE = 'console_session'
const COOKIE_PATH = '/console/session'
const TOKEN = /^[A-Za-z0-9\-_.]+$/

// What the console loads is all its own: no inline script, no other origin, nothing framing it.
const CSP = [
  "default-src 'self'", "base-uri 'none'", "connect-src 'self'", "font-src 'self'", "form-action 'self'",
  "frame-ancestors 'none'", "img-src 'self' data:", "object-src 'none'", "script-src 'self'",
  "script-src-attr 'none'", "style-src 'self'",
].join(';')

const consoleHeader = z.object({ 'x-console': z.literal('1').describe('Any cross-site form lacks it: the CSRF guard of the cookie') }).loose()
const session = z.object({
  token: z.string(),
  sub: z.string(),
  role: z.enum(ROLES),
  tenants: z.array(z.string()),
  name: z.string().optional(),
  email: z.string().optional(),
  expiresAt: z.iso.datetime(),
}).meta({ id: 'ConsoleSession' })

function sessionView (token: string, p: Principal): z.infer<typeof session> {
  return {
    token,
    sub: p.sub,
    role: p.role,
    tenants: p.tenants,
    ...(p.name ? { name: p.name } : {}),
    ...(p.email ? { email: p.email } : {}),
    expiresAt: new Date(p.exp * 1000).toISOString(),
  }
}

function cookieToken (request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2)
    if (name === COOKIE && value && TOKEN.test(value)) return value
  }
  return undefined
}

// Secure in production (served over https, as its HSTS header says) and on any https request.
function setCookie (request: FastifyRequest, reply: FastifyReply, value: string, maxAge: number): void {
  const secure = request.server.config.env === 'production' || request.protocol === 'https' ? '; Secure' : ''
  reply.header('set-cookie', `${COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`)
}

export default fp(async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const secret = app.config.jwtSecret
  const tags = ['console']

  const sendFile = async (reply: FastifyReply, request: FastifyRequest, path: string) => {
    const f = (await consoleBundle()).files.get(path)
    if (!f) throw notFound('Console file')
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))
    reply.header('content-security-policy', CSP)
      .header('content-type', f.type)
      .header('vary', 'accept-encoding')
      .header('cache-control', f.immutable ? 'public, max-age=31536000, immutable' : 'no-store')
    if (gzip) reply.header('content-encoding', 'gzip')
    return await reply.send(gzip ? f.gzip : f.body)
  }

  for (const url of ['/console', '/console/']) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => await sendFile(reply, request, 'index.html'))
  }
  app.get('/console/assets/:name', {
    schema: { hide: true, params: z.object({ name: z.string().regex(/^[A-Za-z0-9_-]+\.(js|css)$/) }) },
  }, async (request, reply) => await sendFile(reply, request, `assets/${request.params.name}`))

  app.post(COOKIE_PATH, {
    schema: {
      tags,
      summary: "Keep the console's login: the bearer token is kept in an HTTP-only cookie that only this path reads",
      headers: consoleHeader,
      response: { 200: session, ...errorResponses },
    },
  }, async (request, reply) => {
    const token = bearerToken(request.headers.authorization)
    const principal = await verifyAccessToken(secret, token)
    setCookie(request, reply, token, Math.max(0, principal.exp - Math.floor(Date.now() / 1000)))
    return sessionView(token, principal)
  })

  app.get(COOKIE_PATH, {
    schema: {
      tags,
      summary: "The console's login after a reload: the token its cookie keeps, with who it is; 401 when none or expired",
      headers: consoleHeader,
      response: { 200: session, ...errorResponses },
    },
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const token = cookieToken(request)
    if (!token) throw new AppError('UNAUTHORIZED', 'No console session')
    try {
      return sessionView(token, await verifyAccessToken(secret, token))
    } catch (err) {
      setCookie(request, reply, '', 0)
      throw err
    }
  })

  app.get('/console/context', {
    onRequest: app.guard(),
    schema: {
      tags,
      summary: "What the console shows beside the caller's screens: the club's name and language, the chat's number",
      response: {
        200: z.object({
          club: z.object({ id: z.string(), name: z.string(), locale: z.enum(['es', 'en']) }),
          chatNumber: z.string().nullable().describe('The business number members write to (CHAT_DISPLAY_NUMBER), digits'),
        }),
        ...errorResponses,
      },
    },
  }, async (request) => {
    const { id, name, locale } = request.actor.tenant
    return { club: { id, name, locale }, chatNumber: app.config.chat.displayNumber ?? null }
  })

  app.delete(COOKIE_PATH, {
    schema: { tags, summary: 'Log the console out: its cookie is dropped', headers: consoleHeader, response: { 204: z.null(), ...errorResponses } },
  }, async (request, reply) => {
    setCookie(request, reply, '', 0)
    return await reply.status(204).send(null)
  })
}, { name: 'console', dependencies: ['security-headers'] })
