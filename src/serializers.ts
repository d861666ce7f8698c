// The answers' serializers, one per distinct response schema in the process: Fastify compiles one
// per route and per app, and the API has its routes at two bases (what this saves an app's start is
// in docs/benchmarks.md, "Optimisations kept"). A serializer is a pure function of its schema, and
// the service's schemas need no serializerOpts (no $ref to shared schemas, no rounding).
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
