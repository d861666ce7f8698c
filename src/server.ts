#!/usr/bin/env node
// The process: environment → options, a Fastify server with the service registered, listen,
// and a graceful close on SIGINT/SIGTERM. Nothing else starts a server.
import closeWithGrace from 'close-with-grace'
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import { realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { clientErrorHandler, frameworkErrors } from '../plugins/errors.js'
import app from './app.js'
import { configFromEnv, ConfigError, type ServerConfig } from './config.js'

/** A Fastify server with the service registered at the root, not yet listening. */
export function createServer (config: ServerConfig): FastifyInstance {
  const fastify = Fastify({
    logger: { level: config.logLevel },
    // One log line per request costs half the throughput; they are there at debug and trace.
    logController: new LogController({ disableRequestLogging: !['debug', 'trace'].includes(config.logLevel) }),
    // Errors raised before routing get the service's error body and headers too.
    frameworkErrors,
    clientErrorHandler,
    trustProxy: config.trustProxy ?? false,
    // Slow or idle clients are cut off: a request must arrive whole within 30 s (its headers within
    // 10 s), and an idle keep-alive connection is closed after 5 s.
    requestTimeout: 30_000,
    keepAliveTimeout: 5_000,
    http: {
      headersTimeout: 10_000,
      // The app refuses a missing Host itself, with its headers and error body (Node's own 400 has neither).
      requireHostHeader: false
    },
    // On close, requests that still arrive on open keep-alive connections are served, with
    // Connection: close (and the heartbeat says 503), rather than refused by Fastify or cut off.
    return503OnClosing: false,
    forceCloseConnections: false
  })
  fastify.register(app, config.app)
  return fastify
}

/**
 * Starts the practice target from the environment; resolves once it listens, or with undefined
 * (after one line on stderr) when a setting is bad.
 */
export async function main (env: Record<string, string | undefined>): Promise<FastifyInstance | undefined> {
  let config: ServerConfig
  try {
    config = configFromEnv(env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`api-challenges: ${error.message}\n`)
    return undefined
  }
  const fastify = createServer(config)
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err !== undefined) fastify.log.error({ err }, 'closing after an error')
    else fastify.log.info({ signal }, 'closing')
    await fastify.close()
  })
  const address = await fastify.listen({ port: config.port, host: config.host })
  fastify.log.info(`API Challenges practice target ready: curl -i -X POST ${address}/challenger`)
  return fastify
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  if (await main(process.env) === undefined) process.exitCode = 1
}
