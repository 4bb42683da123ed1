import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { loadConfigOrExit } from './config.ts'

// Reads config, builds the app, listens, closes gracefully. Nothing else.
async function main (): Promise<void> {
  const config = loadConfigOrExit()
  const app = await buildApp(config)
  if (config.generatedSecrets.length > 0) {
    app.log.warn({ secrets: config.generatedSecrets }, 'no value configured: a random per-process secret is used (development only)')
  }
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing: finishing in-flight requests')
    await app.close()
  })
  await app.listen({ port: config.port, host: config.host })
}

await main()
