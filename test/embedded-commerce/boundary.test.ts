import { ESLint } from 'eslint'
import { beforeAll, describe, expect, it } from 'vitest'

// The import boundary of eslint.config.js: only src/app.ts reaches into the embedded backend, which imports only
// shared infrastructure. Linted as if the line were written in the named file.
const eslint = new ESLint()

async function refused (filePath: string, line: string): Promise<boolean> {
  const [result] = await eslint.lintText(`${line}\nexport const used = x\n`, { filePath })
  return (result?.messages ?? []).some((m) => m.ruleId === 'no-restricted-imports')
}

describe('embedded commerce import boundary', () => {
  // Loading the config and the TypeScript parser takes seconds on a busy machine: once, outside the cases.
  beforeAll(async () => { await eslint.lintText('', { filePath: 'src/app.ts' }) }, 60_000)

  it.each([
    ['src/tenants/demo.ts', "import { newId as x } from '../embedded-commerce/ids.ts'"],
    ['src/orders/service.ts', "import type { AuthContext as x } from '../embedded-commerce/tokens.ts'"],
    ['src/embedded-commerce/fields.ts', "import { notFound as x } from '../errors.ts'"],
    ['src/embedded-commerce/store/port.ts', "import { keys as x } from '../../chat/shards.ts'"],
    ['src/embedded-commerce/routes/admin.ts', "import { x } from '../../../machines/conversation.ts'"],
  ])('refuses %s: %s', async (file, line) => {
    expect(await refused(file, line)).toBe(true)
  })

  it.each([
    ['src/app.ts', "import x from './embedded-commerce/plugin.ts'"],
    ['src/embedded-commerce/backend.ts', "import type { RedisClient as x } from '../plugins/redis.ts'"],
    ['src/embedded-commerce/store/lua.ts', "import { defineScript as x } from '../../stores/define-script.ts'"],
    ['src/embedded-commerce/routes/admin.ts', "import { notFound as x } from '../errors.ts'"],
    ['src/embedded-commerce/demo.ts', "import { demoStaff as x } from '../tenants/demo.ts'"],
  ])('allows %s: %s', async (file, line) => {
    expect(await refused(file, line)).toBe(false)
  })
})
