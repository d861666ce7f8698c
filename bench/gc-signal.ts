// Preloaded into a server that a bench script measures (node --expose-gc --import gc-signal.js):
// SIGWINCH (a signal nothing else here listens to: close-with-grace takes SIGUSR2, and the inspector
// SIGUSR1) runs a full gc and says so on stdout, so that the RSS read from /proc next is what the
// process keeps, not the garbage of the requests that made it. The server itself is unchanged.
const gc = (globalThis as { gc?: () => void }).gc

process.on('SIGWINCH', () => {
  gc?.()
  gc?.()
  const { rss, heapTotal, heapUsed, external } = process.memoryUsage()
  process.stdout.write(`bench-gc-done ${gc === undefined ? 'no-gc' : 'gc'} ${JSON.stringify({ rss, heapTotal, heapUsed, external })}\n`)
})
