// JUnit XML for CI: a test case per mutant, each one not detected a failure (its hint, or with
// --explain what is wrong and the check), each that could not run an error.
import { escapeXml } from '../../domain/http/xml.js'
import { FAMILY_HINTS, isDetected, type Grading } from '../report.js'
import { nameOf } from './clear-text.js'

export function junitReport (result: Grading): string {
  const failures = result.mutants.filter(m => m.status === 'Survived' || m.status === 'NoCoverage').length
  const errors = result.total - result.valid
  const time = result.mutants.reduce((sum, m) => sum + m.seconds, 0).toFixed(3)
  const cases = result.mutants.map((m, index) => {
    const name = nameOf(m, index, result.explain)
    const open = `    <testcase classname="mutants.${m.family}" name="${escapeXml(result.explain || isDetected(m.status) ? `${m.id}: ${m.name}` : name)}" time="${m.seconds.toFixed(3)}"`
    if (isDetected(m.status)) {
      return `${open}>\n      <system-out>${escapeXml(m.reason)}</system-out>\n    </testcase>`
    }
    if (m.status === 'RuntimeError') return `${open}>\n      <error type="RuntimeError" message="${escapeXml(m.reason)}"/>\n    </testcase>`
    const detail = result.explain ? `wrong: ${m.breaks}\ncheck: ${m.check}` : `hint (${m.family}): ${FAMILY_HINTS[m.family]}`
    return `${open}>\n      <failure type="${m.status}" message="${escapeXml(m.reason)}">${escapeXml(detail)}</failure>\n    </testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="grade" tests="${result.total}" failures="${failures}" errors="${errors}" time="${time}">`,
    `  <testsuite name="api-challenges-fastify grade: detected ${result.detected} of ${result.valid}" tests="${result.total}" failures="${failures}" errors="${errors}" skipped="0" time="${time}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    ''
  ].join('\n')
}
