// The second base the API answers under, besides the service's root: the reference's 2026 tutorials
// send `/api/heartbeat` (ChallengeRouteHandler.API_CHALLENGES_PREFIX in eviltester/apichallenges).
// src/app.ts registers the API's routes under it; the journal and the 404's hints read paths with it.
export const API_BASE = '/api'
