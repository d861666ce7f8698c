import neostandard from 'neostandard'

export default neostandard({
  ts: true,
  ignores: ['dist/**', '.tap/**', 'coverage/**', '.exp/**']
})
