// The API's second base beside the root: the reference's tutorials send `/api/heartbeat`
// (ChallengeRouteHandler.API_CHALLENGES_PREFIX in eviltester/apichallenges).
export const API_BASE = '/api'
