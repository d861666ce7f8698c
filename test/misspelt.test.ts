// A misspelt setting is named at start-up (src/domain/misspelt.ts); nothing else in the environment is judged.
import t from 'tap'
import { edits, misspeltSettings } from '../src/domain/misspelt.js'

const SETTINGS = ['PORT', 'HOST', 'MODE', 'DOCS', 'ADMIN_TOKEN', 'REDIS_URL', 'REDIS_PREFIX', 'LOG_LEVEL', 'MAX_SESSIONS', 'TRUST_PROXY']

t.test('edits counts inserts, deletes, changes and swaps of neighbours, up to a most', async t => {
  t.equal(edits('PORT', 'PORT', 2), 0)
  t.equal(edits('PROT', 'PORT', 2), 1, 'two neighbours swapped is one edit')
  t.equal(edits('ADMIN_TOKN', 'ADMIN_TOKEN', 2), 1)
  t.equal(edits('REDIS_ULR', 'REDIS_URL', 2), 1)
  t.equal(edits('HOME', 'HOST', 2), 2)
  t.equal(edits('PRT', 'PORT', 2), 1)
  t.equal(edits('PORTS', 'PORT', 2), 1)
  t.equal(edits('PATH', 'PORT', 5), 3)
  t.equal(edits('X', 'MAX_SESSIONS', 2), 3, 'far apart in length: more than the most, without counting')
  t.equal(edits('LOG_LEVLE_X', 'LOG_LEVEL', 1), 2, 'at most the most plus one')
  t.equal(edits('NODE', 'MODE', 2, 2), 2, 'a change counting two')
  t.equal(edits('PROT', 'PORT', 2, 2), 1, 'a swap still one')
})

t.test('a name one edit from a short setting, two from a longer one, or a setting in another case, is named with the setting', async t => {
  t.same(misspeltSettings(['PORTS', 'PROT', 'ADMIN_TOKN', 'REDIS_ULR', 'port', 'Admin_Token', 'LOG_LVL', 'MAX_SESION'], SETTINGS), [
    'PORTS is not a setting; did you mean PORT?',
    'PROT is not a setting; did you mean PORT?',
    'ADMIN_TOKN is not a setting; did you mean ADMIN_TOKEN?',
    'REDIS_ULR is not a setting; did you mean REDIS_URL?',
    'port is not a setting; did you mean PORT?',
    'Admin_Token is not a setting; did you mean ADMIN_TOKEN?',
    'LOG_LVL is not a setting; did you mean LOG_LEVEL?',
    'MAX_SESION is not a setting; did you mean MAX_SESSIONS?'
  ])
})

t.test('the settings themselves, and the rest of a usual environment, are not judged', async t => {
  const usual = ['NODE', 'PATH', 'HOME', 'HOSTNAME', 'USER', 'SHELL', 'TERM', 'LANG', 'PWD', 'OLDPWD', 'SHLVL', 'LOGNAME', 'TMPDIR', 'TZ', 'EDITOR', 'NODE_ENV',
    'NODE_OPTIONS', 'CI', 'npm_command', 'npm_config_cache', 'npm_lifecycle_event', 'COLORTERM', 'DISPLAY', 'SSH_AUTH_SOCK', 'MAIL', 'XDG_RUNTIME_DIR', 'LS_COLORS']
  t.same(misspeltSettings([...SETTINGS, ...usual], SETTINGS), [])
})
