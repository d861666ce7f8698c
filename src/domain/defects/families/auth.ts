// The auth family: who gets in (OWASP API Security Top 10, 2023: API1 and API2), and what a refusal gives away.
import { acceptToken, header, NOTE, UNCHANGED, type Defect } from '../defect.js'

const TOKEN_DIGITS = /^[0-9a-f]{32}$/
const BEARER = /^bearer +(\S+) *$/i
/** The token shared-token hands every session (32 hex digits, as a real one). */
export const SHARED_TOKEN = '5ea7ed0c0ffee5ea7ed0c0ffee5ea7ed'

export const authDefects: Defect[] = [
  {
    id: 'foreign-token',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API1:2023 Broken Object Level Authorization',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note with another session\'s token',
    name: 'Another session\'s token opens the note',
    breaks: 'Any token shaped like one (32 hex digits) reads and writes this session\'s note, another session\'s token included.',
    check: 'Make a second session, earn its token, and use it on the first session\'s note: assert it is refused, and how.',
    why: 'Broken object-level authorisation, the first of the OWASP API Security Top 10: one user reaches another\'s data.',
    hunt: true,
    request: asked => acceptToken(asked, token => TOKEN_DIGITS.test(token))
  },
  {
    id: 'token-any-case',
    family: 'auth',
    severity: 'medium',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note with the token in other letter case',
    name: 'The token is taken in any letter case',
    breaks: 'The note takes the session\'s token in capitals, or in any mix of cases, as if it were the token.',
    check: 'Send the right token changed in one small way (its letter case) and assert it is refused.',
    why: 'A secret compared loosely is a weaker secret, and a sign the comparison is not the exact, constant-time one it should be.',
    hunt: true,
    request: asked => acceptToken(asked, (token, own) => token.toLowerCase() === own.toLowerCase())
  },
  {
    id: 'token-prefix',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note with part of the token (its start)',
    name: 'The start of the token is enough',
    breaks: 'The note takes any start of the session\'s token (its first few characters, even one) as the whole token.',
    check: 'Send the right token cut short and assert it is refused.',
    why: 'A comparison that stops at the shorter string lets an attacker guess a token a character at a time.',
    hunt: true,
    request: asked => acceptToken(asked, (token, own) => token.length > 0 && own.startsWith(token))
  },
  {
    id: 'shared-token',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'POST /secret/token, and the note',
    untried: 'a POST /secret/token that earns a token',
    name: 'Every session is issued the same token',
    breaks: 'POST /secret/token gives every session the same token, and that token opens every session\'s note.',
    check: 'Earn the tokens of two sessions, and use one session\'s token on the other\'s note: assert it is refused.',
    why: 'A token reused across sessions identifies no one: whoever has logged in once reads everyone\'s data.',
    hunt: true,
    request: asked => acceptToken(asked, token => token === SHARED_TOKEN),
    answer (asked, answer) {
      if (asked.resource !== '/secret/token' || answer.statusCode !== 201 || answer.getHeader('x-auth-token') === undefined) return UNCHANGED
      answer.header('x-auth-token', SHARED_TOKEN)
      return { changed: true }
    }
  },
  {
    id: 'token-leaked',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API3:2023 Broken Object Property Level Authorization',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note refused for a missing or wrong token',
    name: 'A refused note request is told the token',
    breaks: 'A request to the note refused for a missing or wrong token is answered with the session\'s token in X-AUTH-TOKEN.',
    check: 'On a refusal, assert what the answer must not carry too: no X-AUTH-TOKEN, no secret in the body.',
    why: 'The session id is in every answer\'s X-Challenger: with this bug, anyone who has it gets the token by asking wrongly once.',
    hunt: true,
    answer (asked, answer) {
      if (asked.resource !== NOTE || asked.session === null || (answer.statusCode !== 401 && answer.statusCode !== 403)) return UNCHANGED
      answer.header('x-auth-token', asked.session.token)
      return { changed: true }
    }
  },
  {
    id: 'bearer-loses',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'GET and POST /secret/note',
    untried: 'a request to /secret/note with both Authorization: Bearer and X-AUTH-TOKEN, different',
    name: 'X-AUTH-TOKEN wins over Bearer',
    breaks: 'When both Authorization: Bearer and X-AUTH-TOKEN come, X-AUTH-TOKEN decides: Bearer should.',
    check: 'Send both headers with different tokens, one right and one wrong, and assert which one decided.',
    why: 'Which credential wins when two come is a security decision: the wrong precedence lets a stale or injected header decide.',
    hunt: true,
    request (asked) {
      const bearer = BEARER.exec(header(asked, 'authorization') ?? '')?.[1]
      const token = header(asked, 'x-auth-token')
      if (asked.resource !== NOTE || bearer === undefined || token === undefined || token === '' || token === bearer) return false
      delete asked.headers.authorization
      return true
    }
  },
  {
    id: 'any-password',
    family: 'auth',
    severity: 'high',
    source: 'OWASP API2:2023 Broken Authentication',
    endpoint: 'POST /secret/token',
    untried: 'a POST /secret/token with wrong Basic credentials',
    name: 'POST /secret/token takes any credentials',
    breaks: 'Any Basic credentials earn the token, wrong ones included.',
    check: 'Ask for the token with a wrong password and assert it is refused, and how.',
    why: 'A login that accepts anything is no login: negative tests matter as much as the happy path.',
    hunt: true,
    request (asked, { credentials }) {
      const authorization = header(asked, 'authorization')
      if (asked.method !== 'POST' || asked.resource !== '/secret/token' || authorization === undefined || !/^basic /i.test(authorization) || authorization === credentials) return false
      asked.headers.authorization = credentials
      return true
    }
  }
]
