// The answers' serializers, compiled once per process rather than once per app and per route.
// Fastify compiles a fast-json-stringify function for every response schema of every route when
// an app starts: with the API at two bases, about a quarter of what building an app cost. Equal schemas
// make equal functions (each a pure function of its schema), so one is kept per schema and shared
// by every route and every app that has it. Fastify's own compiler does the same work, with the
// host's serializerOpts; the service's schemas need none (no $ref to shared schemas, no rounding).
import fastJsonStringify, { type Schema } from 'fast-json-stringify'

const compiled = new Map<string, (data: unknown) => string>()

/** Fastify's serializer compiler (setSerializerCompiler), one function per distinct schema. */
export function serializerOf ({ schema }: { schema: unknown }): (data: unknown) => string {
  const key = JSON.stringify(schema)
  let serialize = compiled.get(key)
  if (serialize === undefined) {
    serialize = fastJsonStringify(schema as Schema)
    compiled.set(key, serialize)
  }
  return serialize
}
