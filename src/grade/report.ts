// What a grading found: each mutant's state in the words of mutation-testing-report-schema, what
// caught it (or that nothing ever met it), and the score as Stryker counts it. The reporters
// (reporters/) say it for a person, a browser, CI and other tools.
import { createHash } from 'node:crypto'
import type { Defect, Family, Severity } from '../domain/defects/catalogue.js'
import type { Operation } from './coverage.js'
import type { SentRequest } from './requests.js'

/** A mutant's state, as mutation-testing-report-schema names it. */
export type Status = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'RuntimeError'

/** Stryker's thresholds: at or above high is good, below low is bad; below break, exit code 1 (null: never). */
export interface Thresholds {
  readonly high: number
  readonly low: number
  readonly break: number | null
}

export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze({ high: 80, low: 60, break: null })

/** The first request a mutant answered otherwise than the correct service did. */
export interface Caught {
  /** Its place in the run, from 1. */
  readonly position: number
  /** "GET /secret/note with a wrong token (X-AUTH-TOKEN)". */
  readonly request: string
  readonly status: number
  /** What the correct service answered to the request at that place; null when its run sent fewer. */
  readonly correctStatus: number | null
}

export interface MutantResult {
  readonly id: string
  readonly family: Family
  readonly severity: Severity
  readonly endpoint: string
  readonly untried: string
  readonly name: string
  readonly breaks: string
  readonly check: string
  /** A digest of what the defect is (id, name, what it breaks): --incremental reuses a result only while it is the same. */
  readonly hash: string
  readonly status: Status
  readonly exitCode: number | null
  readonly signal: string | null
  readonly seconds: number
  /** Requests the service got during the run. */
  readonly requests: number
  /** For a mutant detected: the first request answered otherwise, when one was. */
  readonly caughtBy: Caught | undefined
  /** The places (from 1) of the requests the defect changed: none means no coverage. */
  readonly metAt: readonly number[]
  /** Why it has its state, in a sentence (the schema's statusReason). */
  readonly reason: string
  /** The report it was taken from (--incremental), or undefined when it ran. */
  readonly reusedFrom: string | undefined
}

/** What --json writes (reporters/grade-json.ts): the shape of earlier versions, each mutant's state and what caught it added. */
export interface GradeResult {
  readonly command: readonly string[]
  readonly baseline: { readonly seconds: number, readonly requests: number }
  readonly timeoutSeconds: number
  /** Detected: killed or timed out. */
  readonly caught: number
  readonly total: number
  readonly score: number
  /** The break threshold, 0 for none. */
  readonly minScore: number
  readonly thresholds: Thresholds
  readonly passed: boolean
  readonly mutants: ReadonlyArray<{
    readonly id: string
    readonly name: string
    /** As earlier versions said it: killed, timed-out, survived (Survived or NoCoverage), error. */
    readonly outcome: 'killed' | 'timed-out' | 'survived' | 'error'
    readonly status: Status
    readonly family: Family
    readonly endpoint: string
    readonly exitCode: number | null
    readonly signal: string | null
    readonly seconds: number
    readonly requests: number
    readonly caughtBy: string | null
    readonly reason: string
    /** What is wrong and the exact check: for a mutant detected, or with --explain. */
    readonly breaks?: string
    readonly check?: string
  }>
}

/** A grading, as the reporters read it. */
export interface Grading {
  readonly command: readonly string[]
  /** The run against the correct service, which passed, its requests, and the service's documented operations. */
  readonly baseline: { readonly seconds: number, readonly requests: readonly SentRequest[], readonly contract: readonly Operation[] }
  readonly timeoutSeconds: number
  readonly thresholds: Thresholds
  /** Killed + Timeout. */
  readonly detected: number
  /** Every mutant but RuntimeError's. */
  readonly valid: number
  readonly total: number
  /** detected / valid, in percent rounded down to hundredths (0 when nothing is valid). */
  readonly score: number
  /** Whether the score reached the break threshold (exit code 0). */
  readonly passed: boolean
  readonly mutants: readonly MutantResult[]
  /** Whether the exact checks are said (--explain). */
  readonly explain: boolean
}

/** The digest --incremental compares: what the defect is, not how it is coded. */
export function defectHash (defect: Pick<Defect, 'id' | 'name' | 'breaks'>): string {
  return createHash('sha256').update(`${defect.id}\n${defect.name}\n${defect.breaks}`).digest('hex').slice(0, 16)
}

export const isDetected = (status: Status): boolean => status === 'Killed' || status === 'Timeout'

export function gradeResult (fields: Omit<Grading, 'detected' | 'valid' | 'total' | 'score' | 'passed'>): Grading {
  const { mutants, thresholds } = fields
  const detected = mutants.filter(m => isDetected(m.status)).length
  const valid = mutants.filter(m => m.status !== 'RuntimeError').length
  return {
    ...fields,
    detected,
    valid,
    total: mutants.length,
    score: valid === 0 ? 0 : Math.floor(detected * 10_000 / valid) / 100,
    // Compared in whole numbers, so that 2 of 3 is not taken for 66.67%.
    passed: thresholds.break === null || detected * 100 >= thresholds.break * valid,
    mutants
  }
}

/** The kind of check each family needs: a survivor's hint, never its exact check (that is --explain's). */
export const FAMILY_HINTS: Readonly<Record<Family, string>> = {
  status: 'assert each answer\'s exact status, not only its class (2xx, 4xx)',
  headers: 'assert the answers\' headers too, not only their status and body',
  body: 'assert the body\'s fields, their types and values, not only that a body came',
  auth: 'send what a stranger would: no credentials, wrong ones, another session\'s, and assert each refusal',
  sessions: 'follow a session through its life, before and after each change, and across two sessions',
  state: 'read back what was written, at the limits (lengths, sizes) and after each change',
  negotiation: 'ask for other formats and send other content types, and assert what comes back'
}

/** A mutant as a survivor's line names it without --explain: its family and endpoint, never what is wrong. */
export function mutantLabel (m: Pick<MutantResult, 'family' | 'endpoint'>, number: number): string {
  return `mutant ${number} (${m.family}, ${m.endpoint})`
}

/** The counts of each state, in the schema's order. */
export function counts (mutants: readonly MutantResult[]): Record<Status, number> {
  const all: Record<Status, number> = { Killed: 0, Timeout: 0, Survived: 0, NoCoverage: 0, RuntimeError: 0 }
  for (const m of mutants) all[m.status]++
  return all
}
