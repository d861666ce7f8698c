// The API's second base beside the root: the reference's tutorials send `/api/heartbeat`
// (ChallengeRouteHandler.API_CHALLENGES_PREFIX in eviltester/apichallenges).
export const API_BASE = '/api'

/** The API once more under each base of a grading run (routes/grades.ts): the run's id, then the base's. */
export const GRADE_BASE = '/grades/:grade/:base'
