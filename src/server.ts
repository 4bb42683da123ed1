import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { ConfigError, loadConfigOrExit } from './config.ts'
import { serviceLogger } from './logger.ts'

// Reads config, builds the app, listens, closes gracefully. Nothing else.
async function main (): Promise<void> {
  const config = loadConfigOrExit()
  // a setting that fails only when tried (Redis not answering at REDIS_URL, an evicting Redis in production) is
  // one line, like the settings refused when read
  const logger = serviceLogger(config.logLevel, config.env)
  process.once('exit', logger.flushSync)
  const app = await buildApp(config, { logger: logger.options }).catch((err: unknown) => {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`${err.message}\n`)
    process.exit(1)
  })
  if (config.env === 'production' && config.devChatProvider.length > 0) {
    app.log.warn({ variables: config.devChatProvider }, 'production with the chat provider\'s development values: the bot\'s replies reach no member')
  }
  if (config.generatedSecrets.length > 0) {
    app.log.warn({ secrets: config.generatedSecrets }, 'no value configured: a random per-process secret is used (development only)')
  }
  // Faults (SIGSEGV and the like) are left to their default: a JavaScript handler returns to the faulting
  // instruction, which faults again, and the process spins forever instead of dying (seen when the terminal of
  // a development server went away).
  closeWithGrace({ delay: 10_000, skip: ['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL'] }, async ({ signal, err }) => {
    // the lines written so far go out before the close, which may hang until it is killed
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing: finishing in-flight requests')
    logger.flushSync()
    await app.close()
    logger.flushSync()
  })
  await app.listen({ port: config.port, host: config.host })
}

await main()
