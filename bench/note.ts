// The note the benchmark writes into every session (65 characters, short of the 100-character
// limit); the baseline's GET /secret/note returns the same text, so both answers are the same size.
export const NOTE = 'a note written by the benchmark, short of the 100 character limit'
